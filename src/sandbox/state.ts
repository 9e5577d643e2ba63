// The sandbox's mutable state: the record arrays it serves, the requests it received and the account gate.
// Tests read and add records here directly. It must never hold an API key, a password or a card token:
// requests are recorded with only whether a key was present.
import { demoDiscounts, demoLocations, demoPackages, demoPayments, demoServices, demoSkills, demoTimezones } from './demo-catalog.js';
import { demoClients, demoPractitioners, demoStaff } from './demo-people.js';
import { demoSessions } from './demo-sessions.js';
import type {
  AvailabilityRecord,
  ClientRecord,
  DiscountRecord,
  LocationRecord,
  PackageRecord,
  PaymentRecord,
  PractitionerRecord,
  ServiceRecord,
  SessionRecord,
  SkillRecord,
  StaffRecord,
  TimezoneRecord,
} from './records.js';

/** One request as the sandbox received it. */
export interface RecordedRequest {
  method: string;
  /** Path as sent, without the query string, not decoded. */
  path: string;
  /** Query parameters, a repeated name as an array; an `api_key` value is replaced by "[redacted]". */
  query: Record<string, string | string[]>;
  /** Whether an X-API-KEY header was present (its value is never kept). */
  apiKey: boolean;
}

/**
 * An account-level condition that makes every authenticated v1 request fail with the matching code
 * (v1's API reference, Authentication rule 7, and 503 maintenance). null: the account is in good standing.
 */
export type AccountGate = 'account_unverified' | 'account_locked' | 'plan_not_allowed' | 'maintenance';

export interface SandboxState {
  clients: ClientRecord[];
  staff: StaffRecord[];
  practitioners: PractitionerRecord[];
  services: ServiceRecord[];
  sessions: SessionRecord[];
  discounts: DiscountRecord[];
  timezones: TimezoneRecord[];
  payments: PaymentRecord[];
  locations: LocationRecord[];
  skills: SkillRecord[];
  packages: PackageRecord[];
  /** Weekly availability sent with created clients (v1 keeps it with the user, not the client record). */
  availability: AvailabilityRecord[];
  requests: RecordedRequest[];
  gate: AccountGate | null;
}

// One seed per generated list, so changing one list never reshuffles another.
const SEEDS = { clients: 1001, staff: 2002, practitioners: 3003, sessions: 4004 } as const;

/** A fresh state with the demo data: every call returns new arrays and records with identical values. */
export function createSandboxState(): SandboxState {
  return {
    clients: demoClients(SEEDS.clients),
    staff: demoStaff(SEEDS.staff),
    practitioners: demoPractitioners(SEEDS.practitioners),
    services: demoServices(),
    sessions: demoSessions(SEEDS.sessions),
    discounts: demoDiscounts(),
    timezones: demoTimezones(),
    payments: demoPayments(),
    locations: demoLocations(),
    skills: demoSkills(),
    packages: demoPackages(),
    availability: [],
    requests: [],
    gate: null,
  };
}

/** The id a new record of this list gets: one above the highest, so records tests add are respected. */
export function nextId(records: readonly { id: number }[]): number {
  return records.reduce((max, r) => Math.max(max, r.id), 0) + 1;
}
