// Which notices are due at a moment: pure decisions over what the caller read (the integrations with a
// `notify` URL, the sunset, who called today, the brownout windows, each integration's recent calls and the
// brownouts' refusals), so the background loop, the dry run and a test with a fake clock agree. Each notice
// has an id made from its integration, its event and its subject (the day, the window's opening, the last
// call), the same on every replica: it is the key the shared store claims it under and the receiver's
// dedupe key. Nothing here reads a clock, sends or stores; no notice ever carries an API key.
import { createHash } from 'node:crypto';
import { coversIntegration, comingOccurrences, occurrencesBetween, type Occurrence } from '../brownouts/brownout-windows.js';
import type { BrownoutWindow } from '../brownouts/brownout-schema.js';
import { guideUrl, utcMoment, type WhereToMove } from '../brownouts/brownout-reply.js';
import type { Integration } from '../integrations/integration-directory.js';
import type { NoticeEvent } from '../metrics/gateway-metrics.js';

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;
/** How long before a window opens its `brownout-upcoming` goes out. */
export const UPCOMING_MS = DAY_MS;
/** How far back an integration's calls tell whether a coming window would refuse it. */
export const RECENT_CALLS_MS = 7 * DAY_MS;
/** How long after a window closes its `brownout-hit` waits: every replica has told the shared store its
 * refusals by then (each does at every round, docs/usage.md). */
export const HIT_GRACE_MS = 2 * 60_000;
/** How long after a window closes its `brownout-hit` may still be decided (a gateway started later). */
export const HIT_HORIZON_MS = DAY_MS;
/** How long after QUIET_DAYS a `quiet` may still be decided: no notice about a silence older than that. */
export const QUIET_HORIZON_MS = 7 * DAY_MS;

/** One integration's recent calls, as the usage report tells them. */
export interface IntegrationCalls {
  /** Its last legacy call (ms since the epoch), over all its keys. */
  lastSeenMs: number;
  /** The legacy methods it called in the last 7 days (`payment` for the payment). */
  recentMethods: ReadonlySet<string>;
}

export interface ScheduleInputs {
  now: number;
  integrations: readonly Integration[];
  /** LEGACY_SUNSET (ms); undefined: no `sunset-call`. */
  sunset: number | undefined;
  /** The integrations (by name) that called the legacy API on the UTC day of `now`. */
  calledToday: ReadonlySet<string>;
  windows: readonly BrownoutWindow[];
  /** Each integration's recent calls by name; undefined: not known this time (no `brownout-upcoming`, no `quiet`). */
  calls: ReadonlyMap<string, IntegrationCalls> | undefined;
  /** The refused calls of each recently closed window opening (`occurrenceKey`), by integration. */
  refused: ReadonlyMap<string, ReadonlyMap<string, number>>;
  quietDays: number;
  where: WhereToMove;
}

/** A notice to send: its id (the dedupe key), event, integration, where it goes and what it says. */
export interface DueNotice {
  id: string;
  type: NoticeEvent;
  integration: string;
  notify: string;
  data: Record<string, unknown>;
}

/** The UTC day of a moment: `2026-12-02`. */
export const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** One opening of a window, named the same on every replica: `first-warning@2027-01-12T14:00:00Z`. */
export const occurrenceKey = (o: Pick<Occurrence, 'start'> & { window: Pick<BrownoutWindow, 'name'> }): string => `${o.window.name}@${utcMoment(o.start)}`;

/** A notice's id: the same for the same integration, event and subject, whoever decides it. */
export function noticeId(integration: string, type: NoticeEvent, subject: string): string {
  return createHash('sha256').update(`${integration}\n${type}\n${subject}`).digest('hex').slice(0, 32);
}

/** The window openings whose `brownout-hit` may be decided at `now` (closed, within the horizon). */
export function closedOccurrences(windows: readonly BrownoutWindow[], now: number): Occurrence[] {
  return windows.flatMap((w) => occurrencesBetween(w, now - HIT_HORIZON_MS, now).filter((o) => o.end <= now - HIT_GRACE_MS && o.end > now - HIT_HORIZON_MS));
}

/** Whether a window refuses one of these methods (a read method it lists, or every one; the payment only
 * with `payments: true`). */
function refusesAny(w: BrownoutWindow, methods: ReadonlySet<string>): boolean {
  for (const m of methods) {
    if (m === 'payment' ? w.payments : w.methods === undefined || w.methods.has(m)) return true;
  }
  return false;
}

const windowData = (o: Occurrence) => ({ window: o.window.name, start: utcMoment(o.start), end: utcMoment(o.end) });

/** Every notice due at `inputs.now`, for the integrations with a `notify` URL; in a stable order. */
export function dueNotices(inputs: ScheduleInputs): DueNotice[] {
  const { now } = inputs;
  const out: DueNotice[] = [];
  const push = (i: Integration, type: NoticeEvent, subject: string, data: Record<string, unknown>) => {
    out.push({ id: noticeId(i.name, type, subject), type, integration: i.name, notify: i.notify!, data });
  };
  const coming = comingOccurrences(inputs.windows, now, now + UPCOMING_MS + 1).filter((o) => o.start > now);
  const closed = closedOccurrences(inputs.windows, now);
  for (const i of inputs.integrations) {
    if (i.notify === undefined) continue;
    const guide = guideUrl(inputs.where, i.name);
    const withGuide = guide === undefined ? {} : { guide };
    if (inputs.sunset !== undefined && inputs.calledToday.has(i.name)) {
      const day = utcDay(now);
      push(i, 'sunset-call', day, { day, sunset: new Date(inputs.sunset).toISOString(), ...withGuide });
    }
    const calls = inputs.calls?.get(i.name);
    if (calls) {
      const recent = calls.lastSeenMs > now - RECENT_CALLS_MS ? calls.recentMethods : new Set<string>();
      for (const o of coming) {
        if (!coversIntegration(o.window, i.name) || !refusesAny(o.window, recent)) continue;
        const methods = o.window.methods === undefined ? null : [...o.window.methods];
        push(i, 'brownout-upcoming', occurrenceKey(o), { ...windowData(o), methods, payments: o.window.payments, ...withGuide });
      }
      const quietFor = now - calls.lastSeenMs;
      const quietMs = inputs.quietDays * DAY_MS;
      if (quietFor >= quietMs && quietFor < quietMs + QUIET_HORIZON_MS) {
        push(i, 'quiet', String(calls.lastSeenMs), { lastCall: new Date(calls.lastSeenMs).toISOString(), quietDays: inputs.quietDays });
      }
    }
    for (const o of closed) {
      const refused = inputs.refused.get(occurrenceKey(o))?.get(i.name) ?? 0;
      if (refused > 0) push(i, 'brownout-hit', occurrenceKey(o), { ...windowData(o), refusedCalls: refused, ...withGuide });
    }
  }
  return out;
}

/** The notice as it is sent: one JSON object (`data` last), never a key. */
export function noticeBody(notice: DueNotice, created: number): string {
  return JSON.stringify({ id: notice.id, type: notice.type, integration: notice.integration, created: new Date(created).toISOString(), data: notice.data });
}

/** What the schedule reads of one usage report entry. */
export interface CalledEntry {
  name: string | undefined;
  lastSeenMs: number;
  methods: Readonly<Record<string, number>>;
  /** Its calls per UTC day, when the report counts days; a day's methods when it counts them. */
  daily: ReadonlyArray<{ day: string; methods: Readonly<Record<string, number>> | undefined }> | undefined;
}

/** Each named integration's recent calls, over all its keys: its last call, and the methods it called in
 * the last 7 days (from the days' methods when the report counts them; else, when its last call is that
 * recent, every method it ever called). */
export function recentCalls(entries: readonly CalledEntry[], now: number): Map<string, IntegrationCalls> {
  const firstDay = utcDay(now - RECENT_CALLS_MS);
  const out = new Map<string, { lastSeenMs: number; recentMethods: Set<string> }>();
  for (const e of entries) {
    if (e.name === undefined) continue;
    const calls = out.get(e.name) ?? { lastSeenMs: e.lastSeenMs, recentMethods: new Set<string>() };
    calls.lastSeenMs = Math.max(calls.lastSeenMs, e.lastSeenMs);
    const days = e.daily?.filter((d) => d.day > firstDay);
    if (days !== undefined && days.every((d) => d.methods !== undefined)) {
      for (const d of days) for (const [m, n] of Object.entries(d.methods!)) if (n > 0) calls.recentMethods.add(m);
    } else if (e.lastSeenMs > now - RECENT_CALLS_MS) {
      for (const [m, n] of Object.entries(e.methods)) if (n > 0) calls.recentMethods.add(m);
    }
    out.set(e.name, calls);
  }
  return out;
}

type Counts = Readonly<Record<string, number>>;
const isCounts = (v: unknown): v is Counts => typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every((n) => typeof n === 'number');

/** A report's days with their methods (`{ "2027-01-11": { methods: {...} } }`, or a list of `{ day, methods }`);
 * undefined when the report counts no days' methods, so the schedule falls back on the last call. */
function daysOf(daily: unknown): CalledEntry['daily'] {
  const rows = Array.isArray(daily)
    ? daily.map((d: unknown) => d as { day?: unknown; methods?: unknown })
    : typeof daily === 'object' && daily !== null
      ? Object.entries(daily).map(([day, v]) => ({ day, methods: (v as { methods?: unknown } | null)?.methods }))
      : undefined;
  if (rows === undefined || !rows.every((r) => typeof r.day === 'string' && isCounts(r.methods))) return undefined;
  return rows.map((r) => ({ day: r.day as string, methods: r.methods as Counts }));
}

/** The gateway's own usage report entries (GET /usage), as the schedule reads them. */
export function calledEntries(report: ReadonlyArray<{ name?: string | null; lastSeen: string; methods: Counts; daily?: unknown }>): CalledEntry[] {
  return report.flatMap((i) => {
    const lastSeenMs = Date.parse(i.lastSeen);
    if (Number.isNaN(lastSeenMs)) return [];
    return [{ name: i.name ?? undefined, lastSeenMs, methods: i.methods, daily: daysOf(i.daily) }];
  });
}
