// The v1 resources the sandbox serves: path name, record name, field order, filters and verbs of each,
// and the serialiser that writes a record in its field order. Data only plus one pure function:
// it must never do I/O or change the state.
import {
  CLIENT_FIELDS,
  DISCOUNT_FIELDS,
  LOCATION_FIELDS,
  PACKAGE_FIELDS,
  PAYMENT_FIELDS,
  PRACTITIONER_FIELDS,
  SERVICE_FIELDS,
  SESSION_FIELDS,
  SKILL_FIELDS,
  STAFF_FIELDS,
  TIMEZONE_FIELDS,
} from './records.js';
import type { SandboxState } from './state.js';

/**
 * How a filter value is compared with a field:
 * - integer: the value must be a whole number (else 400) equal to the field;
 * - date: the value must be YYYY-MM-DD (else 400) equal to the field;
 * - exact: string equality;
 * - case-insensitive: string equality ignoring case;
 * - email-list: the field is a comma-separated list; any address equal to the value, ignoring case.
 * An empty value matches records whose field is empty (null).
 */
export type FilterMatch = 'integer' | 'date' | 'exact' | 'case-insensitive' | 'email-list';

export interface FilterDef {
  field: string;
  match: FilterMatch;
}

export type HttpVerb = 'GET' | 'POST';

export interface ResourceDef {
  /** Path segment under /api/v1/. */
  name: string;
  /** Value of every record's `object` field. */
  objectName: string;
  fields: readonly string[];
  /** The records the API can see, in stored order (ids ascending). */
  records(state: SandboxState): readonly object[];
  filters: Readonly<Record<string, FilterDef>>;
  /** Verbs on /api/v1/{name}; a single record (/api/v1/{name}/{id}) supports GET only. */
  collectionVerbs: readonly HttpVerb[];
}

const READ_ONLY: readonly HttpVerb[] = ['GET'];

const RESOURCE_LIST: readonly ResourceDef[] = [
  {
    name: 'clients',
    objectName: 'client',
    fields: CLIENT_FIELDS,
    records: (s) => s.clients,
    filters: {
      email: { field: 'email', match: 'email-list' },
      username: { field: 'username', match: 'case-insensitive' },
      first_name: { field: 'first_name', match: 'case-insensitive' },
      last_name: { field: 'last_name', match: 'case-insensitive' },
      status: { field: 'status', match: 'exact' },
    },
    collectionVerbs: ['GET', 'POST'],
  },
  {
    name: 'discounts',
    objectName: 'discount',
    fields: DISCOUNT_FIELDS,
    records: (s) => s.discounts,
    filters: { code: { field: 'code', match: 'case-insensitive' } },
    collectionVerbs: READ_ONLY,
  },
  {
    name: 'locations',
    objectName: 'location',
    fields: LOCATION_FIELDS,
    records: (s) => s.locations,
    filters: { status: { field: 'status', match: 'exact' } },
    collectionVerbs: READ_ONLY,
  },
  {
    name: 'packages',
    objectName: 'package',
    fields: PACKAGE_FIELDS,
    // v1 record rule 8: deleted packages are not returned, neither listed nor by id.
    records: (s) => s.packages.filter((p) => p.status !== 'deleted'),
    filters: { status: { field: 'status', match: 'exact' }, service_id: { field: 'service_id', match: 'integer' } },
    collectionVerbs: READ_ONLY,
  },
  {
    name: 'payments',
    objectName: 'payment',
    fields: PAYMENT_FIELDS,
    records: (s) => s.payments,
    filters: { client_id: { field: 'client_id', match: 'integer' } },
    collectionVerbs: ['GET', 'POST'],
  },
  {
    name: 'practitioners',
    objectName: 'practitioner',
    fields: PRACTITIONER_FIELDS,
    records: (s) => s.practitioners,
    filters: { status: { field: 'status', match: 'exact' } },
    collectionVerbs: READ_ONLY,
  },
  {
    name: 'services',
    objectName: 'service',
    fields: SERVICE_FIELDS,
    records: (s) => s.services,
    filters: {
      group_id: { field: 'group_id', match: 'integer' },
      service_status: { field: 'service_status', match: 'integer' },
    },
    collectionVerbs: READ_ONLY,
  },
  {
    name: 'sessions',
    objectName: 'session',
    fields: SESSION_FIELDS,
    records: (s) => s.sessions,
    filters: {
      client_id: { field: 'client_id', match: 'integer' },
      pract_id: { field: 'pract_id', match: 'integer' },
      session_date: { field: 'session_date', match: 'date' },
    },
    collectionVerbs: READ_ONLY,
  },
  {
    name: 'skills',
    objectName: 'skill',
    fields: SKILL_FIELDS,
    records: (s) => s.skills,
    filters: {},
    collectionVerbs: READ_ONLY,
  },
  {
    name: 'staff',
    objectName: 'staff',
    fields: STAFF_FIELDS,
    records: (s) => s.staff,
    filters: { status: { field: 'status', match: 'exact' } },
    collectionVerbs: READ_ONLY,
  },
  {
    name: 'timezones',
    objectName: 'timezone',
    fields: TIMEZONE_FIELDS,
    records: (s) => s.timezones,
    filters: { name: { field: 'name', match: 'exact' } },
    collectionVerbs: READ_ONLY,
  },
];

export const RESOURCES: ReadonlyMap<string, ResourceDef> = new Map(RESOURCE_LIST.map((r) => [r.name, r]));

/** Field value of a record by name: records are plain objects whose fields the definition lists. */
export function fieldValue(record: object, field: string): unknown {
  return (record as Record<string, unknown>)[field];
}

/**
 * The record as v1 writes it: `object` first, then every field in the resource's order; a missing field
 * is null. Records tests push into the state come out in the same shape as the demo ones.
 */
export function serializeRecord(resource: ResourceDef, record: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of resource.fields) {
    out[field] = field === 'object' ? resource.objectName : (fieldValue(record, field) ?? null);
  }
  return out;
}
