// Puts the hardening layers around the v1 client, in the one order that makes sense:
//   cache -> single-flight -> retry -> metrics -> client
// A cache hit makes no call; concurrent misses share one call; that call retries on its own; each
// attempt is counted, and so is each POST the client makes. With CACHE_TTL_MS=0 the cache layer is left
// out entirely (single-flight stays).
// With a shared store (REDIS_URL) the cache has a second tier every replica reads; single-flight stays
// per process.
import type { GatewayMetrics } from '../metrics/gateway-metrics.js';
import type { SharedResponseStore } from '../state/caches/response-store.js';
import type { WriteGenerations } from '../state/caches/write-generations.js';
import { postMetrics, withUpstreamMetrics, type UpstreamRecorder } from './metered.js';
import { DEFAULT_CACHE_LIMITS, withResponseCache, type CacheLimits } from './response-cache.js';
import { DEFAULT_RETRY_POLICY, withRetry, type RetryPolicy } from './retry.js';
import { withSingleFlight } from './single-flight.js';
import { V1Client, type V1Transport } from './v1-client.js';

export interface HardeningOptions {
  /** CACHE_TTL_MS: the TTL of requests that name none; 0 turns the cache off. */
  cacheTtlMs: number;
  metrics: GatewayMetrics;
  retryPolicy?: RetryPolicy;
  cacheLimits?: CacheLimits;
  /** CACHE_MIN_USES: a reply is stored from its Nth miss (default 1: the first). */
  cacheMinUses?: number;
  /** The cache's second tier, shared by every replica (REDIS_URL); unset: the cache is this process's alone. */
  shared?: SharedResponseStore;
  /** With `shared`: how long a replica answers from its own copy before asking the shared tier again (5 s). */
  l1TtlMs?: number;
  /** With `shared`: the write generations, confirmed whenever the shared tier is asked. */
  generations?: Pick<WriteGenerations, 'confirm'>;
  now?: () => number;
  random?: () => number;
}

export function hardenTransport(client: V1Transport, options: HardeningOptions): V1Transport {
  const record: UpstreamRecorder = (outcome, call) => options.metrics.upstreamCall(outcome, call);
  const metered = withUpstreamMetrics(client, record);
  // The payment flow is handed the client itself as its writer (create-gateway.ts): its POSTs, which no
  // layer here wraps, are counted by the client.
  if (client instanceof V1Client) client.observePosts(postMetrics(record));
  const retried = withRetry(metered, {
    policy: options.retryPolicy ?? DEFAULT_RETRY_POLICY,
    onRetry: () => options.metrics.retried(),
    ...(options.random ? { random: options.random } : {}),
  });
  const shared = withSingleFlight(retried);
  if (options.cacheTtlMs <= 0) return shared;
  return withResponseCache(shared, {
    defaultTtlMs: options.cacheTtlMs,
    ...(options.cacheLimits ?? DEFAULT_CACHE_LIMITS),
    ...(options.cacheMinUses !== undefined ? { storeAfterMisses: options.cacheMinUses } : {}),
    ...(options.shared ? { shared: options.shared } : {}),
    ...(options.l1TtlMs !== undefined ? { l1TtlMs: options.l1TtlMs } : {}),
    ...(options.generations ? { generations: options.generations } : {}),
    onEvent: (event) => options.metrics.cacheEvent(event),
    ...(options.now ? { now: options.now } : {}),
  });
}
