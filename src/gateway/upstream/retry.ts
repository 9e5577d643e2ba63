// Retries an upstream GET that failed in a way a repeat can fix: the connection failed (refused, reset,
// closed mid-reply) or v1 answered 502/503. At most `maxRetries` more attempts, each after a jittered
// backoff. It never retries a timeout (the upstream may be busy: more load will not help), a 4xx, a 429
// or a 500, and it only ever wraps GETs: payment POSTs go through V1Writer, which has no retry layer.
import { GatewayError } from '../../shared/errors.js';
import type { V1GetRequest, V1Json, V1Transport } from './v1-client.js';

export interface RetryPolicy {
  maxRetries: number;
  /** Backoff before retry n (0-based) is uniform in [0, min(maxDelayMs, baseDelayMs * 2^n)] ("full jitter"). */
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 2, baseDelayMs: 50, maxDelayMs: 400 };

export interface RetryOptions {
  policy?: RetryPolicy;
  /** Source of jitter in [0, 1); injected so tests are deterministic. */
  random?: () => number;
  sleep?: (ms: number) => Promise<void>;
  onRetry?: () => void;
}

/** Seconds of a `Retry-After` header given as a number (HTTP dates are read as "long"). */
function retryAfterMs(err: GatewayError): number | undefined {
  const value = err.headers['retry-after'];
  if (value === undefined) return undefined;
  return /^\d+$/.test(value) ? Number(value) * 1000 : Number.POSITIVE_INFINITY;
}

/** Whether this failure of a GET is worth another attempt under `policy`. Pure. */
export function isRetryable(err: unknown, policy: RetryPolicy = DEFAULT_RETRY_POLICY): boolean {
  if (!(err instanceof GatewayError)) return false;
  if (err.code === 'LGW_UPSTREAM_UNREACHABLE') return true;
  if (err.code !== 'LGW_UPSTREAM_ERROR' || (err.status !== 502 && err.status !== 503)) return false;
  // A 503 that asks for more patience than our backoff would give is answered, not hammered: each
  // attempt spends the key's hourly budget for this URL.
  const wait = retryAfterMs(err);
  return wait === undefined || wait <= policy.maxDelayMs;
}

export function backoffMs(retry: number, policy: RetryPolicy, random: () => number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
  return Math.floor(random() * ceiling);
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function withRetry(inner: V1Transport, options: RetryOptions = {}): V1Transport {
  const policy = options.policy ?? DEFAULT_RETRY_POLICY;
  const random = options.random ?? Math.random;
  const sleep = options.sleep ?? defaultSleep;
  return {
    // A chain of promises rather than an async loop: the frame would be kept, and copied by the collector,
    // for as long as v1 takes to answer, on every call, for the rare call that is retried.
    getJson(request: V1GetRequest): Promise<V1Json> {
      const attempt = (retry: number): Promise<V1Json> =>
        inner.getJson(request).catch((err: unknown) => {
          if (retry >= policy.maxRetries || !isRetryable(err, policy)) throw err;
          options.onRetry?.();
          return sleep(backoffMs(retry, policy, random)).then(() => attempt(retry + 1));
        });
      return attempt(0);
    },
  };
}
