// The prom-client implementation of GatewayMetrics, on a Registry of its own per gateway (never the
// global one, so two gateways in one process do not mix counts). Metric names are fixed: dashboards and
// alerts read them (docs/operations.md lists each), so renaming one breaks them.
// Every label value is checked against a closed set here, whatever the caller passes: a label can never
// carry an API key, a path or any other value taken from a request.
import { readFileSync } from 'node:fs';
import { MAPPING_RELOAD_RESULTS, NOTICE_EVENTS, SETTLE_RESULTS } from './gateway-metrics.js';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { ALL_PAYMENT_CODES } from '../../payment/codes.js';
import { DIFF_KINDS } from '../../json-diff/json-diff.js';
import { IDEMPOTENCY_EVENTS, SHADOW_RESULTS, type CacheEvent, type ClaimKind, type GatewayMetrics, type IdempotencyEvent, type UpstreamCall, type UpstreamOutcome, type UpstreamVerb } from './gateway-metrics.js';

/** Route names that are not legacy methods; `other` stands for anything not known at start. */
export const FIXED_ROUTE_NAMES = ['passthrough', 'payment', 'healthz', 'readyz', 'rejected', 'other'] as const;

const UPSTREAM_OUTCOMES: readonly UpstreamOutcome[] = ['ok', 'client_error', 'rate_limited', 'server_error', 'timeout', 'unreachable', 'bad_reply'];
const CACHE_EVENTS: readonly CacheEvent[] = ['hit', 'miss', 'stale'];

/** The v1 resources the mappings read (`source.resource`) and the payment flow reads and writes (its
 * `resources`): the `resource` label's values, with `other` for any other path's first segment. */
export const V1_RESOURCES = ['clients', 'staff', 'practitioners', 'services', 'sessions', 'discounts', 'timezones', 'payments'] as const;
/** The resources the gateway POSTs to (the payment, and the client it may create first). */
const WRITTEN_RESOURCES: ReadonlySet<string> = new Set(['clients', 'payments']);
const UPSTREAM_VERBS: readonly UpstreamVerb[] = ['GET', 'POST'];
/** The legacy payment codes: every one is exported from the start, at 0. */
const PAYMENT_CODES = ALL_PAYMENT_CODES.map(String);

/** The package's version (package.json, three levels above src/gateway/metrics/ or dist/gateway/metrics/),
 * `unknown` when it cannot be read or does not look like a version. */
export function packageVersion(): string {
  try {
    const data: unknown = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'));
    const version = typeof data === 'object' && data !== null ? (data as { version?: unknown }).version : undefined;
    return typeof version === 'string' && /^\d+\.\d+\.\d+[0-9A-Za-z.+-]{0,64}$/.test(version) ? version : 'unknown';
  } catch {
    return 'unknown';
  }
}

/** The status class label of an HTTP status: `2xx` ... `5xx` (`1xx` too), `other` for anything else. */
export function statusClass(status: number): string {
  return Number.isInteger(status) && status >= 100 && status <= 599 ? `${Math.floor(status / 100)}xx` : 'other';
}

export interface PrometheusMetrics extends GatewayMetrics {
  registry: Registry;
}

export interface PrometheusOptions {
  /** The mapped legacy method names: the only `method` label values besides FIXED_ROUTE_NAMES. */
  legacyMethods: Iterable<string>;
  /** Default process metrics (CPU, memory, event loop, GC); off in unit tests to avoid global observers. */
  processMetrics?: boolean;
  /** REDIS_URL is set: `legacy_gateway_redis_up` is exported (0 until Redis answers). Without it the gauge
   * is absent, so an alert on `legacy_gateway_redis_up == 0` never fires for a gateway without Redis. */
  redis?: boolean;
  /** `legacy_gateway_build_info`'s version label; default: package.json's version. */
  version?: string;
}

const CLAIM_KINDS: readonly ClaimKind[] = ['key', 'keyless'];

/** The payment claims' events (keyed and keyless: a keyless `replayed`, `waited` or `outcome_unknown` is
 * a duplicate payment suppressed), and Redis's state when REDIS_URL is set. */
function sharedStateMetrics(registry: Registry, redis: boolean): Pick<GatewayMetrics, 'redisState' | 'claimStore' | 'idempotencyEvent'> {
  const idempotency = new Counter({
    name: 'legacy_gateway_idempotency_events_total',
    help: 'Claimed payment calls (claim="key": an Idempotency-Key; "keyless": the duplicate check), by what became of them.',
    labelNames: ['event', 'claim'],
    registers: [registry],
  });
  for (const claim of CLAIM_KINDS) for (const event of IDEMPOTENCY_EVENTS) idempotency.inc({ event, claim }, 0);
  const redisUp = redis
    ? new Gauge({ name: 'legacy_gateway_redis_up', help: 'Whether Redis (REDIS_URL, the state replicas share) answers: 1 up, 0 down.', registers: [registry] })
    : undefined;
  redisUp?.set(0);
  // Registered only once a shared claims store is named: without one (claims in this process) the gauge is
  // absent, so an alert on it never fires for such a gateway.
  let claimStoreUp: (() => boolean) | undefined;
  return {
    redisState: (up) => redisUp?.set(up ? 1 : 0),
    claimStore: (isUp) => {
      if (claimStoreUp) return;
      claimStoreUp = isUp;
      new Gauge({
        name: 'legacy_gateway_claim_store_up',
        help: 'Whether the store holding the payment claims (IDEMPOTENCY_URL, or REDIS_URL) answers: 1 up, 0 down (payments that need a claim are refused).',
        registers: [registry],
        collect() {
          this.set(claimStoreUp?.() === true ? 1 : 0);
        },
      });
    },
    idempotencyEvent: (event: IdempotencyEvent, claim: ClaimKind) => {
      if ((IDEMPOTENCY_EVENTS as readonly string[]).includes(event) && CLAIM_KINDS.includes(claim)) idempotency.inc({ event, claim });
    },
  };
}

/** Unknown payment outcomes: settled by result (each at 0 from the start), and those still unknown with the
 * oldest's age (from the background settler's last scan; 0 until it has scanned). */
function settleMetrics(registry: Registry): Pick<GatewayMetrics, 'paymentSettled' | 'unknownPayments'> {
  const settled = new Counter({
    name: 'legacy_gateway_payments_settled_total',
    help: "Payments whose outcome was unknown, settled from v1's payments list, by result: paid (one matching record), not_paid (none, past PAYMENT_SETTLE_AFTER_S).",
    labelNames: ['result'],
    registers: [registry],
  });
  for (const result of SETTLE_RESULTS) settled.inc({ result }, 0);
  const unknown = new Gauge({
    name: 'legacy_gateway_payments_unknown',
    help: 'Payment claims whose outcome is still unknown (the claims store, at the last scan of the background settler).',
    registers: [registry],
  });
  const oldest = new Gauge({
    name: 'legacy_gateway_payments_unknown_oldest_age_seconds',
    help: 'How long ago the oldest payment whose outcome is still unknown was sent (0: none).',
    registers: [registry],
  });
  unknown.set(0);
  oldest.set(0);
  return {
    paymentSettled: (result) => {
      if (SETTLE_RESULTS.includes(result)) settled.inc({ result });
    },
    unknownPayments: (count, oldestAgeSeconds) => {
      unknown.set(Number.isFinite(count) && count >= 0 ? count : 0);
      oldest.set(Number.isFinite(oldestAgeSeconds) && oldestAgeSeconds >= 0 ? oldestAgeSeconds : 0);
    },
  };
}

/** The mappings: reloads by result (each at 0 from the start), and the digest of the set in service. A
 * reload that takes over adds its legacy methods to the `method` label's values (`methods`). */
function mappingMetrics(registry: Registry, methods: Set<string>): Pick<GatewayMetrics, 'mappingReload' | 'mappingsInService'> {
  const reloads = new Counter({
    name: 'legacy_gateway_mapping_reloads_total',
    help: 'Reloads of a mapping set (SIGHUP), by result: ok (took over), invalid (failed validation; the set in service stays), error.',
    labelNames: ['result'],
    registers: [registry],
  });
  for (const result of MAPPING_RELOAD_RESULTS) reloads.inc({ result }, 0);
  const info = new Gauge({
    name: 'legacy_gateway_mappings_info',
    help: 'Always 1; its digest label is a short SHA-256 of the files of the mappings in service (MAPPINGS_DIR).',
    labelNames: ['digest'],
    registers: [registry],
  });
  return {
    mappingReload: (result) => {
      if (MAPPING_RELOAD_RESULTS.includes(result)) reloads.inc({ result });
    },
    mappingsInService: (digest, legacyMethods) => {
      info.reset();
      info.set({ digest: /^[0-9a-f]{1,64}$/.test(digest) ? digest : 'other' }, 1);
      for (const method of legacyMethods) methods.add(method);
    },
  };
}

/** A window's name as a label: the brownouts file allows only these (brownout-schema.ts); anything else is `other`. */
const WINDOW_LABEL = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** The retirement's counters: brownout refusals by window and legacy method (the windows are the
 * operator's, named in BROWNOUTS_FILE), and failed deliveries of notices by event (each at 0 from the start). */
function retirementMetrics(registry: Registry, methodLabel: (method: string) => string): Pick<GatewayMetrics, 'brownoutRefusal' | 'noticeFailed'> {
  const refusals = new Counter({
    name: 'legacy_gateway_brownout_refusals_total',
    help: 'Legacy calls refused with 410 during a brownout window (BROWNOUTS_FILE), by window name and legacy method.',
    labelNames: ['window', 'method'],
    registers: [registry],
  });
  const failures = new Counter({
    name: 'legacy_gateway_notice_failures_total',
    help: "Failed deliveries of a notice to an integration's owner (its notify URL), by event; each failed attempt counts.",
    labelNames: ['event'],
    registers: [registry],
  });
  for (const event of NOTICE_EVENTS) failures.inc({ event }, 0);
  return {
    brownoutRefusal: (window, method) => refusals.inc({ window: WINDOW_LABEL.test(window) ? window : 'other', method: methodLabel(method) }),
    noticeFailed: (event) => {
      if ((NOTICE_EVENTS as readonly string[]).includes(event)) failures.inc({ event });
    },
  };
}

/** `legacy_gateway_build_info{version}`, always 1. */
function buildInfo(registry: Registry, version: string): void {
  new Gauge({
    name: 'legacy_gateway_build_info',
    help: "Always 1; its version label is the gateway's package version.",
    labelNames: ['version'],
    registers: [registry],
  }).set({ version }, 1);
}

/** Every exchange with v1, counted and timed by resource, verb and outcome. The pairs the gateway makes (a
 * GET of each resource, a POST of the written ones) start at 0 with every outcome. */
function upstreamMetrics(registry: Registry): GatewayMetrics['upstreamCall'] {
  const upstream = new Counter({
    name: 'legacy_gateway_upstream_requests_total',
    help: 'Exchanges with v1 (GET attempts, retries included, and POSTs), by v1 resource, verb and outcome.',
    labelNames: ['resource', 'verb', 'outcome'],
    registers: [registry],
  });
  const upstreamDuration = new Histogram({
    name: 'legacy_gateway_upstream_request_duration_seconds',
    help: 'Time one exchange with v1 took (a GET attempt or a POST), by v1 resource, verb and outcome.',
    labelNames: ['resource', 'verb', 'outcome'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  for (const resource of V1_RESOURCES) {
    for (const verb of UPSTREAM_VERBS) {
      if (verb === 'POST' && !WRITTEN_RESOURCES.has(resource)) continue;
      for (const outcome of UPSTREAM_OUTCOMES) upstream.inc({ resource, verb, outcome }, 0);
    }
  }
  const resources: ReadonlySet<string> = new Set(V1_RESOURCES);
  // `given` is checked although the type requires it: a host application's code may call without it.
  return (outcome: UpstreamOutcome, given: UpstreamCall | undefined) => {
    const labels = {
      resource: given !== undefined && resources.has(given.resource) ? given.resource : 'other',
      verb: given !== undefined && UPSTREAM_VERBS.includes(given.verb) ? given.verb : 'GET',
      outcome: UPSTREAM_OUTCOMES.includes(outcome) ? outcome : 'unreachable',
    };
    upstream.inc(labels);
    if (given !== undefined && Number.isFinite(given.seconds) && given.seconds >= 0) upstreamDuration.observe(labels, given.seconds);
  };
}

/** Shadow comparisons (SHADOW_MAPPINGS_DIR), by legacy method: their results and the differences found by
 * kind, every known pair at 0 from the start (both replies are 200s: no `status` difference). */
function shadowMetrics(registry: Registry, methodLabel: (method: string) => string, methods: readonly string[]): Pick<GatewayMetrics, 'shadowRead' | 'shadowDifference'> {
  const kinds: readonly string[] = DIFF_KINDS.filter((kind) => kind !== 'status');
  const reads = new Counter({
    name: 'legacy_gateway_shadow_reads_total',
    help: "Translated reads also translated by the candidate mappings (SHADOW_MAPPINGS_DIR), by legacy method and result.",
    labelNames: ['method', 'result'],
    registers: [registry],
  });
  const differences = new Counter({
    name: 'legacy_gateway_shadow_differences_total',
    help: "Differences between the served reply and the candidate mappings' reply, by legacy method and kind (the replay diff's kinds).",
    labelNames: ['method', 'kind'],
    registers: [registry],
  });
  for (const method of methods) {
    for (const result of SHADOW_RESULTS) reads.inc({ method, result }, 0);
    for (const kind of kinds) differences.inc({ method, kind }, 0);
  }
  return {
    shadowRead: (method, result) => {
      if ((SHADOW_RESULTS as readonly string[]).includes(result)) reads.inc({ method: methodLabel(method), result });
    },
    shadowDifference: (method, kind, count) => {
      if (kinds.includes(kind) && Number.isInteger(count) && count > 0) differences.inc({ method: methodLabel(method), kind }, count);
    },
  };
}

export function createPrometheusMetrics(options: PrometheusOptions): PrometheusMetrics {
  const registry = new Registry();
  if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry });
  const legacyMethods = [...new Set(options.legacyMethods)];
  const methods = new Set<string>([...legacyMethods, ...FIXED_ROUTE_NAMES]);
  const methodLabel = (method: string): string => (methods.has(method) ? method : 'other');
  const statusLabel = (status: number): string => (Number.isInteger(status) && status >= 100 && status <= 599 ? String(status) : 'other');

  const requests = new Counter({
    name: 'legacy_gateway_requests_total',
    help: 'Requests answered, by legacy method (or gateway route) and HTTP status.',
    labelNames: ['method', 'status'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'legacy_gateway_request_duration_seconds',
    help: 'Time from receiving a request to finishing its reply, by legacy method (or gateway route) and status class (2xx, 3xx, 4xx, 5xx).',
    labelNames: ['method', 'status_class'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const cache = new Counter({
    name: 'legacy_gateway_cache_events_total',
    help: 'Response cache lookups: hit, miss, and stale replies served because the upstream failed.',
    labelNames: ['event'],
    registers: [registry],
  });
  const retries = new Counter({
    name: 'legacy_gateway_retries_total',
    help: 'Retries of upstream GETs after a connect error, 502 or 503.',
    registers: [registry],
  });
  const payments = new Counter({
    name: 'legacy_gateway_payments_total',
    help: 'Legacy payment calls answered, by legacy payment code (0-12).',
    labelNames: ['code'],
    registers: [registry],
  });
  // Counted in a plain number and read when scraped: a gauge's inc and dec cost a label lookup each, twice
  // per request.
  let inFlight = 0;
  new Gauge({
    name: 'legacy_gateway_in_flight_requests',
    help: 'Requests received and not yet answered.',
    registers: [registry],
    collect() {
      this.set(inFlight);
    },
  });
  // Known label values start at 0, so a rate() over them exists before the first event.
  for (const event of CACHE_EVENTS) cache.inc({ event }, 0);
  for (const code of PAYMENT_CODES) payments.inc({ code }, 0);
  buildInfo(registry, options.version ?? packageVersion());

  return {
    registry,
    requestStarted: () => {
      inFlight++;
    },
    requestFinished(method, status, seconds) {
      inFlight--;
      const label = methodLabel(method);
      requests.inc({ method: label, status: statusLabel(status) });
      duration.observe({ method: label, status_class: statusClass(status) }, seconds);
    },
    upstreamCall: upstreamMetrics(registry),
    cacheEvent: (event) => {
      if (CACHE_EVENTS.includes(event)) cache.inc({ event });
    },
    retried: () => retries.inc(),
    ...mappingMetrics(registry, methods),
    paymentCompleted: (code) => payments.inc({ code: Number.isInteger(code) && code >= 0 && code <= 12 ? String(code) : 'other' }),
    ...sharedStateMetrics(registry, options.redis ?? false),
    ...settleMetrics(registry),
    ...shadowMetrics(registry, methodLabel, legacyMethods),
    ...retirementMetrics(registry, methodLabel),
  };
}
