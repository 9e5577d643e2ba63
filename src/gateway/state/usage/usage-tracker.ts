// Who still calls the old API: the legacy calls the gateway serves (translated reads and the payment; never
// the passthrough or health), counted per API key, the one question that decides when the gateway can be
// retired. A key is never kept, logged or shown: it is known only by its fingerprint, the HMAC of
// `usage:<key>` under GATEWAY_SECRET (hex), which an operator holding the secret can compute for a key
// they know (`legacy-gateway usage --fingerprint-of`, docs/usage.md), and no one can turn back into the key.
// A call without a key of its own (none sent, or UPSTREAM_API_KEY lent to it) counts under the fingerprint
// of the empty key.
//
// Per fingerprint: the calls, the calls per legacy method, per HTTP status answered, per legacy payment code,
// per call shape (the method and its query parameter names, call-shape.ts) and per UTC day (the last 90 days),
// when it was first and last seen, and its first few user agents (control characters removed, cut short, the
// key itself replaced if a client put it there). A call is counted when its reply ends, its status and
// payment code known. Memory is bounded: past `maxFingerprints` distinct fingerprints, new ones count under
// `other`; past `maxShapesPerKey` shapes, a fingerprint's new shapes count under `(other)`; days older than
// `keepDays` are dropped.
//
// Without a shared store the counts are this process's. With one (Redis, usage-redis.ts) they are kept in
// an in-process buffer and handed to the store in one batch every few seconds, never a store call per
// request; a batch the store could not take is kept and sent again, under the same sequence number, so a
// batch the store applied but whose answer was lost is not counted twice. Recording never waits, never
// throws, and never depends on the store being up.
import { createHmac, hash, randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { oldestKeptDay, utcDay } from './call-shape.js';

export interface UsageLimits {
  /** Distinct fingerprints counted one by one (in process, and in the shared store); past it, `other`. */
  maxFingerprints: number;
  /** User agents kept per fingerprint: the first ones seen. */
  maxAgentsPerKey: number;
  /** The longest user agent kept, in characters. */
  maxAgentLength: number;
  /** Call shapes counted one by one per fingerprint; past it, `(other)`. */
  maxShapesPerKey: number;
  /** UTC days of calls kept per fingerprint, today included; older ones are dropped. */
  keepDays: number;
  /** How often the buffer is handed to the shared store. */
  flushEveryMs: number;
  /** How long the shared store keeps an integration after its last call. */
  ttlMs: number;
}

export const DEFAULT_USAGE_LIMITS: UsageLimits = {
  maxFingerprints: 1_000,
  maxAgentsPerKey: 10,
  maxAgentLength: 200,
  maxShapesPerKey: 50,
  keepDays: 90,
  flushEveryMs: 5_000,
  ttlMs: 90 * 24 * 3_600_000,
};

/** The fingerprint the calls past `maxFingerprints` count under. */
export const OTHER_FINGERPRINT = 'other';

/** The shape a fingerprint's calls of new shapes count under, past `maxShapesPerKey`. */
export const OTHER_SHAPE = '(other)';

/** One legacy call, as the usage step sees it. */
export interface LegacyCall {
  /** The key the caller sent (undefined: none, or the gateway's own lent to it). */
  apiKey: string | undefined;
  /** The legacy method's label (`clients`, `payment`, ...). */
  method: string;
  /** The User-Agent header as it came. */
  userAgent: string | undefined;
  /** How it was called (call-shape.ts: `client?email`); unset: the method alone. */
  shape?: string | undefined;
  /** The HTTP status answered; undefined: the caller left before any reply was written. */
  status?: number | undefined;
  /** The legacy code of a payment's reply. */
  paymentCode?: number | undefined;
}

/** What a fingerprint's calls are counted by, each as key -> calls, in the order GET /usage gives them:
 * `methods` (legacy method), `statuses` (HTTP status answered), `paymentCodes` (legacy payment code answered),
 * `shapes` (call shape, `client?email`), `daily` (UTC day, `2027-01-12`, the last `keepDays` days). */
const COUNTED_BY = ['methods', 'statuses', 'paymentCodes', 'shapes', 'daily'] as const;
type CountedBy = (typeof COUNTED_BY)[number];
export type UsageCounts = Record<CountedBy, Record<string, number>>;

/** One value per count, in COUNTED_BY's order. */
function perCount<V>(make: (by: CountedBy) => V): Record<CountedBy, V> {
  return Object.fromEntries(COUNTED_BY.map((by) => [by, make(by)])) as Record<CountedBy, V>;
}

/** One integration in GET /usage. */
export interface IntegrationUsage extends UsageCounts {
  /** The integration's name (INTEGRATIONS_FILE), given by the report; null: a key no integration names. */
  name?: string | null;
  fingerprint: string;
  calls: number;
  firstSeen: string;
  lastSeen: string;
  userAgents: string[];
}

export interface UsageReport {
  /** Most recently seen first. */
  integrations: IntegrationUsage[];
  /** true: every replica sharing the store (REDIS_URL), as of each one's last flush; false: this process. */
  shared: boolean;
  /** With `shared`: how often each replica writes its counts to the store (ms), and the calls this one has
   * counted that the store does not hold yet (they show at its next flush). */
  flushEveryMs?: number;
  unflushed?: number;
}

/** What one fingerprint's calls add up to over a while (all of them, or since the last flush). */
export interface UsageTally extends UsageCounts {
  fingerprint: string;
  calls: number;
  /** ms since the epoch */
  first: number;
  last: number;
  agents: string[];
}

/** One flush's counts, under a sequence number the store applies at most once. */
export interface UsageBatch {
  /** The process's own id, random at start. */
  source: string;
  seq: number;
  /** The oldest UTC day the store keeps (older days are dropped), as of the flush. */
  oldestDay: string;
  tallies: UsageTally[];
}

/** Where the replicas' counts are added up (Redis: usage-redis.ts). */
export interface SharedUsageStore {
  isUp(): boolean;
  /** Adds a batch's counts, once: a batch whose sequence number the store already took changes nothing. */
  apply(batch: UsageBatch): Promise<void>;
  read(): Promise<IntegrationUsage[]>;
}

export interface UsageTracker {
  /** Counts one legacy call: never waits, never throws. */
  record(call: LegacyCall): void;
  /** The fingerprint a call with this key counts under (`other` past the bound), made once per key. */
  fingerprintOf(apiKey: string | undefined): string;
  report(): Promise<UsageReport>;
  /** Hands the buffer to the shared store now (nothing without one); never rejects. */
  flush(): Promise<void>;
  /** Stops the timer, then flushes what is left (the shared store must still be open). */
  close(): Promise<void>;
}

/** The fingerprint of an API key under the shared secret: HMAC-SHA256 of `usage:<key>`, hex. */
export function usageFingerprint(secret: string | Buffer, apiKey: string | undefined): string {
  return createHmac('sha256', secret)
    .update(`usage:${apiKey ?? ''}`)
    .digest('hex');
}

// Every C0 and C1 control character, and the bidirectional overrides that could reorder a terminal line.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** A user agent as it may be kept and shown: the key replaced, control characters removed, cut short;
 * undefined when nothing is left. */
export function cleanUserAgent(raw: string | undefined, apiKey: string | undefined, maxLength: number): string | undefined {
  if (raw === undefined) return undefined;
  let text = raw;
  if (apiKey !== undefined && apiKey !== '' && text.includes(apiKey)) text = text.split(apiKey).join('[api key]');
  text = text.replace(CONTROL, '').trim().slice(0, maxLength).trim();
  return text === '' ? undefined : text;
}

type Tally = Record<CountedBy, Map<string, number>> & {
  calls: number;
  first: number;
  last: number;
  agents: string[];
};

function increment(counts: Map<string, number>, key: string, by = 1): void {
  counts.set(key, (counts.get(key) ?? 0) + by);
}

function dropDaysBefore(daily: Map<string, number>, oldest: string): void {
  for (const day of daily.keys()) if (day < oldest) daily.delete(day);
}

/** Counts per fingerprint, bounded: past `maxFingerprints`, new fingerprints count under `other`. */
class Tallies {
  private byFingerprint = new Map<string, Tally>();

  constructor(private readonly limits: UsageLimits) {}

  get size(): number {
    return this.byFingerprint.size;
  }

  add(fingerprint: string, call: LegacyCall, agent: string | undefined, at: number): void {
    let tally = this.byFingerprint.get(fingerprint);
    if (!tally) {
      const counted = this.byFingerprint.size - (this.byFingerprint.has(OTHER_FINGERPRINT) ? 1 : 0);
      const name = counted >= this.limits.maxFingerprints ? OTHER_FINGERPRINT : fingerprint;
      tally = this.byFingerprint.get(name);
      if (!tally) {
        tally = { calls: 0, ...perCount(() => new Map<string, number>()), first: at, last: at, agents: [] };
        this.byFingerprint.set(name, tally);
      }
    }
    tally.calls += 1;
    increment(tally.methods, call.method);
    if (call.status !== undefined) increment(tally.statuses, String(call.status));
    if (call.paymentCode !== undefined) increment(tally.paymentCodes, String(call.paymentCode));
    const shape = call.shape ?? call.method;
    increment(tally.shapes, tally.shapes.has(shape) || tally.shapes.size - (tally.shapes.has(OTHER_SHAPE) ? 1 : 0) < this.limits.maxShapesPerKey ? shape : OTHER_SHAPE);
    const day = utcDay(at);
    // A new day drops the days past keeping; a new tally has none to drop.
    if (tally.daily.size > 0 && !tally.daily.has(day)) dropDaysBefore(tally.daily, oldestKeptDay(at, this.limits.keepDays));
    increment(tally.daily, day);
    if (at < tally.first) tally.first = at;
    if (at > tally.last) tally.last = at;
    if (agent !== undefined && tally.agents.length < this.limits.maxAgentsPerKey && !tally.agents.includes(agent)) tally.agents.push(agent);
  }

  list(): UsageTally[] {
    return [...this.byFingerprint].map(([fingerprint, t]) => ({
      fingerprint,
      calls: t.calls,
      ...perCount((by) => Object.fromEntries(t[by])),
      first: t.first,
      last: t.last,
      agents: [...t.agents],
    }));
  }

  /** Everything counted so far, and a fresh start. */
  drain(): UsageTally[] {
    const all = this.list();
    this.byFingerprint = new Map();
    return all;
  }
}

/** Counts with their keys in order (JSON keeps an object's keys in the order they were made): two readers
 * of the same counts write the same text. */
export function ordered(counts: Readonly<Record<string, number>>): Record<string, number> {
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** The report's form of a tally. */
export function integrationOf(tally: UsageTally): IntegrationUsage {
  return {
    fingerprint: tally.fingerprint,
    calls: tally.calls,
    ...perCount((by) => ordered(tally[by])),
    firstSeen: new Date(tally.first).toISOString(),
    lastSeen: new Date(tally.last).toISOString(),
    userAgents: [...tally.agents].sort(),
  };
}

/** Most recently seen first; then by fingerprint, so that two readers of the same counts agree. */
export function sortIntegrations(list: IntegrationUsage[]): IntegrationUsage[] {
  return list.sort((a, b) => (a.lastSeen === b.lastSeen ? (a.fingerprint < b.fingerprint ? -1 : 1) : a.lastSeen < b.lastSeen ? 1 : -1));
}

export interface UsageTrackerOptions {
  /** GATEWAY_SECRET, or the process's random secret without one. */
  secret: string | Buffer;
  /** Where the replicas add their counts up; unset: this process keeps them. */
  shared?: SharedUsageStore;
  logger?: Logger;
  limits?: Partial<UsageLimits>;
  now?: () => number;
  /** The name of the integration a fingerprint belongs to (INTEGRATIONS_FILE), asked when a report is made,
   * so a reload of the names shows at once; unset: every key unnamed. */
  nameOf?: (fingerprint: string) => string | undefined;
  /** Told after each flush that handed the store a batch (tests await it instead of sleeping). */
  onFlushed?: () => void;
}

class Tracker implements UsageTracker {
  private readonly limits: UsageLimits;
  private readonly tallies: Tallies;
  private readonly now: () => number;
  private readonly source = randomUUID();
  private seq = 0;
  /** A batch the store has not confirmed: sent again, as it is, before anything newer. */
  private unconfirmed: UsageBatch | undefined;
  private flushing: Promise<void> | undefined;
  private failing = false;
  private readonly timer: NodeJS.Timeout | undefined;
  /** Fingerprints by a SHA-256 of the API key (never the key itself), so a caller's HMAC is made once:
   * an HMAC per call made and dropped two native objects per request. Bounded by `maxFingerprints`. */
  private readonly fingerprints = new Map<string, string>();

  constructor(private readonly options: UsageTrackerOptions) {
    this.limits = { ...DEFAULT_USAGE_LIMITS, ...options.limits };
    this.tallies = new Tallies(this.limits);
    this.now = options.now ?? Date.now;
    if (options.shared) {
      this.timer = setInterval(() => void this.flush(), this.limits.flushEveryMs);
      this.timer.unref();
    }
  }

  record(call: LegacyCall): void {
    try {
      const fingerprint = this.fingerprintOf(call.apiKey);
      const agent = cleanUserAgent(call.userAgent, call.apiKey, this.limits.maxAgentLength);
      this.tallies.add(fingerprint, call, agent, this.now());
    } catch (err) {
      // Counting must never fail a call; the error names no key (nothing here puts one in a message).
      this.options.logger?.warn({ err: (err as Error).name }, 'a legacy call could not be counted in GET /usage');
    }
  }

  fingerprintOf(apiKey: string | undefined): string {
    const id = hash('sha256', apiKey ?? '', 'base64url');
    const known = this.fingerprints.get(id);
    if (known !== undefined) return known;
    // Past the bound an unknown key counts under `other` without an HMAC being made: a flood of made-up
    // keys costs one hash each, and nothing more is kept.
    if (this.fingerprints.size >= this.limits.maxFingerprints) return OTHER_FINGERPRINT;
    const fingerprint = usageFingerprint(this.options.secret, apiKey);
    this.fingerprints.set(id, fingerprint);
    return fingerprint;
  }

  async report(): Promise<UsageReport> {
    const shared = this.options.shared;
    const counted = shared ? await shared.read() : this.tallies.list().map(integrationOf);
    const oldestDay = oldestKeptDay(this.now(), this.limits.keepDays);
    const integrations = sortIntegrations(counted.map((i) => this.reported(i, oldestDay)));
    if (!shared) return { integrations, shared: false };
    const calls = (tallies: readonly UsageTally[]) => tallies.reduce((sum, t) => sum + t.calls, 0);
    const unflushed = calls(this.tallies.list()) + calls(this.unconfirmed?.tallies ?? []);
    return { integrations, shared: true, flushEveryMs: this.limits.flushEveryMs, unflushed };
  }

  /** The entry with its integration's name first (null when no integration names its key), and the days
   * still kept. */
  private reported(i: IntegrationUsage, oldestDay: string): IntegrationUsage {
    const daily = Object.fromEntries(Object.entries(i.daily).filter(([day]) => day >= oldestDay));
    return { name: this.options.nameOf?.(i.fingerprint) ?? null, ...i, daily };
  }

  flush(): Promise<void> {
    this.flushing ??= this.flushOnce().finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  private async flushOnce(): Promise<void> {
    const store = this.options.shared;
    // Redis down: nothing is asked of it; the buffer keeps counting (bounded) until it is back.
    if (!store || !store.isUp()) return;
    if (!this.unconfirmed && this.tallies.size === 0) return;
    try {
      if (this.unconfirmed) {
        await store.apply(this.unconfirmed);
        this.unconfirmed = undefined;
      }
      if (this.tallies.size > 0) {
        this.seq += 1;
        this.unconfirmed = { source: this.source, seq: this.seq, oldestDay: oldestKeptDay(this.now(), this.limits.keepDays), tallies: this.tallies.drain() };
        await store.apply(this.unconfirmed);
        this.unconfirmed = undefined;
      }
      this.faultChanged(false);
      this.options.onFlushed?.();
    } catch (err) {
      this.faultChanged(true, err);
    }
  }

  /** One log line per change, never one per flush. */
  private faultChanged(failing: boolean, err?: unknown): void {
    if (failing === this.failing) return;
    this.failing = failing;
    if (failing) {
      this.options.logger?.warn({ reason: err instanceof Error ? err.name : 'unknown' }, 'GET /usage counts cannot be written to Redis: they are kept in this process and written once it answers');
    } else {
      this.options.logger?.info('GET /usage counts are written to Redis again');
    }
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flush();
    // A flush already under way when close began took only what was counted before it.
    await this.flush();
  }
}

export function createUsageTracker(options: UsageTrackerOptions): UsageTracker {
  return new Tracker(options);
}
