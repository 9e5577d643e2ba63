// v1's hourly rate limit: a count per bucket (key + verb + URL), in a window that starts with the bucket's
// first call and resets one hour later (v1's API reference, Limits). Reads time only from the injected clock; it
// must never be handed the API key itself, only a name for it.

export const RATE_WINDOW_MS = 3_600_000;

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export interface RateLimiter {
  /** Counts one call in the bucket, or refuses it (a refused call is not counted). */
  take(bucket: string): RateDecision;
}

/** Beyond this many buckets, expired windows are swept so a long-running sandbox stays small. */
const SWEEP_AT = 10_000;

export function createRateLimiter(options: { limitPerWindow: number; now: () => number; windowMs?: number }): RateLimiter {
  const windowMs = options.windowMs ?? RATE_WINDOW_MS;
  const windows = new Map<string, { resetAt: number; count: number }>();

  return {
    take(bucket) {
      const now = options.now();
      if (windows.size >= SWEEP_AT) {
        for (const [name, w] of windows) if (w.resetAt <= now) windows.delete(name);
      }
      let window = windows.get(bucket);
      if (window === undefined || window.resetAt <= now) {
        window = { resetAt: now + windowMs, count: 0 };
        windows.set(bucket, window);
      }
      if (window.count >= options.limitPerWindow) {
        return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((window.resetAt - now) / 1000)) };
      }
      window.count += 1;
      return { allowed: true };
    },
  };
}
