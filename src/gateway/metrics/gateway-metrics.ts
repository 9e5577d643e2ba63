// What the gateway counts, as a small interface the rest of the code calls (server, upstream layers,
// payment flow), so none of them knows about prom-client. `noMetrics` is the do-nothing implementation
// used when METRICS_PORT is unset. Implementations must never put a key or a request value in a label.
import type { IdempotencyEvent } from '../../payment/claims/idempotency.js';

// The claims engine's events are the payment's own; counted here by name.
export { IDEMPOTENCY_EVENTS, type IdempotencyEvent } from '../../payment/claims/idempotency.js';

/** How one upstream attempt ended (one per HTTP exchange with v1, retries included). */
export type UpstreamOutcome = 'ok' | 'client_error' | 'rate_limited' | 'server_error' | 'timeout' | 'unreachable' | 'bad_reply';

/** The HTTP method of an upstream exchange: GETs (reads, the payment flow's checks) and POSTs (the payment and
 * the client it may create first). */
export type UpstreamVerb = 'GET' | 'POST';

/** What one upstream exchange was, besides its outcome: `resource` is the first segment of its v1 path
 * (`clients` for /clients/12: never an id, a query or anything else a caller sent), `seconds` how long it took. */
export interface UpstreamCall {
  resource: string;
  verb: UpstreamVerb;
  seconds: number;
}

export type CacheEvent = 'hit' | 'miss' | 'stale';


/** How one reload of a mapping set (SIGHUP) ended: `ok` the new set took over, `invalid` it failed
 * validation and the set in service stays, `error` it could not be read or built (the set in service stays). */
export const MAPPING_RELOAD_RESULTS = ['ok', 'invalid', 'error'] as const;
export type MappingReloadResult = (typeof MAPPING_RELOAD_RESULTS)[number];

/** Which claim a payment call took: its Idempotency-Key, or (keyless) its fingerprint. */
export type ClaimKind = 'key' | 'keyless';

/** What became of one shadow comparison (SHADOW_MAPPINGS_DIR): the candidate's reply was the same text,
 * different, not compared (queue full, a team listing, no candidate mapping), the candidate failed, or it
 * asked v1 for something the served mapping did not (never called: skipped). */
export const SHADOW_RESULTS = ['same', 'different', 'skipped', 'failed', 'candidate_needed_other_v1_call'] as const;
export type ShadowResult = (typeof SHADOW_RESULTS)[number];

/** The notices sent to an integration's owner (its `notify` URL): the closed set of event names. */
export const NOTICE_EVENTS = ['sunset-call', 'brownout-upcoming', 'brownout-hit', 'quiet'] as const;
export type NoticeEvent = (typeof NOTICE_EVENTS)[number];

export interface GatewayMetrics {
  /** A request entered the listener (the in-flight gauge goes up). */
  requestStarted(): void;
  /** A request's reply finished or its connection closed. `method` is a route name, never a path. */
  requestFinished(method: string, status: number, seconds: number): void;
  /** One exchange with v1 ended (each GET attempt, retries included, and each POST). */
  upstreamCall(outcome: UpstreamOutcome, call: UpstreamCall): void;
  cacheEvent(event: CacheEvent): void;
  /** One retry of an upstream GET was made. */
  retried(): void;
  /** A reload of a mapping set (SIGHUP: MAPPINGS_DIR, and any set registered beside it) ended. */
  mappingReload(result: MappingReloadResult): void;
  /** The mappings in service (at start, then after each reload that took over): the digest of their files,
   * and their legacy methods (besides the fixed route names, the only `method` label values). */
  mappingsInService(digest: string, methods: Iterable<string>): void;
  /** The payment flow answered with this legacy code (0-12). */
  paymentCompleted(code: number): void;
  /** Redis (REDIS_URL) came up or went down; called once at start with its state, then on each change. */
  redisState(up: boolean): void;
  /** With a shared claims store (IDEMPOTENCY_URL, or REDIS_URL): how to learn whether it answers, read at
   * each scrape. Called once. */
  claimStore(isUp: () => boolean): void;
  idempotencyEvent(event: IdempotencyEvent, claim: ClaimKind): void;
  /** A payment whose outcome was unknown was settled from v1's payments list: paid, or not paid. */
  paymentSettled(result: SettleResult): void;
  /** The background settler's last scan: the claims whose outcome is still unknown, and the oldest's age. */
  unknownPayments(count: number, oldestAgeSeconds: number): void;
  /** One shadow comparison of a read (SHADOW_MAPPINGS_DIR) ended so. */
  shadowRead(method: string, result: ShadowResult): void;
  /** A legacy call was refused by a brownout window (BROWNOUTS_FILE): the window's name, the call's legacy
   * method (`payment` for the payment). */
  brownoutRefusal(window: string, method: string): void;
  /** A notice to an integration's owner (its `notify` URL) could not be delivered: one failed attempt. */
  noticeFailed(event: NoticeEvent): void;
  /** A shadow comparison found `count` differences of this kind (the replay diff's kinds). */
  shadowDifference(method: string, kind: string, count: number): void;
}

/** How an unknown outcome was settled (the `result` label's values). */
export const SETTLE_RESULTS = ['paid', 'not_paid'] as const;
export type SettleResult = (typeof SETTLE_RESULTS)[number];

export const noMetrics: GatewayMetrics = {
  requestStarted: () => undefined,
  requestFinished: () => undefined,
  upstreamCall: () => undefined,
  cacheEvent: () => undefined,
  retried: () => undefined,
  mappingReload: () => undefined,
  mappingsInService: () => undefined,
  paymentCompleted: () => undefined,
  redisState: () => undefined,
  claimStore: () => undefined,
  idempotencyEvent: () => undefined,
  paymentSettled: () => undefined,
  unknownPayments: () => undefined,
  shadowRead: () => undefined,
  shadowDifference: () => undefined,
  brownoutRefusal: () => undefined,
  noticeFailed: () => undefined,
};

/** `metrics` with anything it lacks done by `noMetrics`: a host application's own GatewayMetrics, written
 * before a method was added, must not make the gateway throw when it counts. */
export function completeMetrics(metrics: Partial<GatewayMetrics>): GatewayMetrics {
  const names = Object.keys(noMetrics) as Array<keyof GatewayMetrics>;
  if (names.every((name) => typeof metrics[name] === 'function')) return metrics as GatewayMetrics;
  const complete: Record<string, unknown> = {};
  for (const name of names) {
    const own = metrics[name];
    complete[name] = typeof own === 'function' ? (own as (...args: unknown[]) => void).bind(metrics) : noMetrics[name];
  }
  return complete as unknown as GatewayMetrics;
}
