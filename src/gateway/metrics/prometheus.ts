// The prom-client implementation of GatewayMetrics, on a Registry of its own per gateway (never the
// global one, so two gateways in one process do not mix counts). Metric names are fixed: dashboards and
// alerts read them (docs/operations.md lists each), so renaming one breaks them.
// Every label value is checked against a closed set here, whatever the caller passes: a label can never
// carry an API key, a path or any other value taken from a request.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { IDEMPOTENCY_EVENTS, type CacheEvent, type ClaimKind, type GatewayMetrics, type IdempotencyEvent, type UpstreamOutcome } from './gateway-metrics.js';

/** Route names that are not legacy methods; `other` stands for anything not known at start. */
export const FIXED_ROUTE_NAMES = ['passthrough', 'payment', 'healthz', 'readyz', 'rejected', 'other'] as const;

const UPSTREAM_OUTCOMES: readonly UpstreamOutcome[] = ['ok', 'client_error', 'rate_limited', 'server_error', 'timeout', 'unreachable', 'bad_reply'];
const CACHE_EVENTS: readonly CacheEvent[] = ['hit', 'miss', 'stale'];

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
}

const CLAIM_KINDS: readonly ClaimKind[] = ['key', 'keyless'];

/** The payment claims' events (keyed and keyless: a keyless `replayed`, `waited` or `outcome_unknown` is
 * a duplicate payment suppressed), and Redis's state when REDIS_URL is set. */
function sharedStateMetrics(registry: Registry, redis: boolean): Pick<GatewayMetrics, 'redisState' | 'idempotencyEvent'> {
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
  return {
    redisState: (up) => redisUp?.set(up ? 1 : 0),
    idempotencyEvent: (event: IdempotencyEvent, claim: ClaimKind) => {
      if ((IDEMPOTENCY_EVENTS as readonly string[]).includes(event) && CLAIM_KINDS.includes(claim)) idempotency.inc({ event, claim });
    },
  };
}

export function createPrometheusMetrics(options: PrometheusOptions): PrometheusMetrics {
  const registry = new Registry();
  if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry });
  const methods = new Set<string>([...options.legacyMethods, ...FIXED_ROUTE_NAMES]);
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
    help: 'Time from receiving a request to finishing its reply, by legacy method (or gateway route).',
    labelNames: ['method'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const upstream = new Counter({
    name: 'legacy_gateway_upstream_requests_total',
    help: 'Upstream GET attempts of translated calls (retries included), by outcome.',
    labelNames: ['outcome'],
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
  const inFlight = new Gauge({
    name: 'legacy_gateway_in_flight_requests',
    help: 'Requests received and not yet answered.',
    registers: [registry],
  });
  // Known label values start at 0, so a rate() over them exists before the first event.
  for (const outcome of UPSTREAM_OUTCOMES) upstream.inc({ outcome }, 0);
  for (const event of CACHE_EVENTS) cache.inc({ event }, 0);

  return {
    registry,
    requestStarted: () => inFlight.inc(),
    requestFinished(method, status, seconds) {
      inFlight.dec();
      const label = methodLabel(method);
      requests.inc({ method: label, status: statusLabel(status) });
      duration.observe({ method: label }, seconds);
    },
    upstreamCall: (outcome) => upstream.inc({ outcome: UPSTREAM_OUTCOMES.includes(outcome) ? outcome : 'unreachable' }),
    cacheEvent: (event) => {
      if (CACHE_EVENTS.includes(event)) cache.inc({ event });
    },
    retried: () => retries.inc(),
    paymentCompleted: (code) => payments.inc({ code: Number.isInteger(code) && code >= 0 && code <= 12 ? String(code) : 'other' }),
    ...sharedStateMetrics(registry, options.redis ?? false),
  };
}
