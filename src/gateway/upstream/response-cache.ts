// Caches successful upstream GET replies (lru-cache), keyed by a hash of API key + v1 URL, so two keys
// never share an entry and no key is kept in clear. Each reply lives for its request's TTL (the mapping's
// `cacheTtlMs`, else the default), bounded by entry count and approximate bytes. Stale-if-error: when the
// upstream fails with a 429, a 5xx, a connect error or a timeout, a reply stored within the last hour is
// served instead, marked stale (`servedFrom`) so the route adds `Warning: 110`. It never caches an error, and it must
// never hand out a reply stored under another key. Replies are shared: callers treat them as read-only.
// Admission (CACHE_MIN_USES, `storeAfterMisses`): by default a reply is stored on its first miss, as
// nginx's proxy_cache_min_uses 1, so a call repeated within the TTL is a hit and stale-if-error covers a
// URL seen once. Set to 2 or more, a key+URL is stored from its Nth miss on, remembered in between by its
// hash alone: a call made once (a new key's first call, a scanner) then never evicts what is in use nor
// churns the heap, at the price of one more upstream call per key+URL and no stale copy of a one-off.
import { LRUCache } from 'lru-cache';
import { GatewayError } from '../../shared/errors.js';
import type { CacheEvent } from '../metrics/gateway-metrics.js';
import { requestKey } from './request-key.js';
import type { V1GetRequest, V1Json, V1Transport } from './v1-client.js';

export interface ResponseCacheOptions extends CacheLimits {
  /** TTL of a request that names none (CACHE_TTL_MS). */
  defaultTtlMs: number;
  now?: () => number;
  onEvent?: (event: CacheEvent) => void;
}

export interface CacheLimits {
  maxEntries: number;
  /** Upper bound of the cached replies' approximate JSON size. */
  maxBytes: number;
  /** How old a reply may be and still be served when the upstream fails. */
  staleWindowMs: number;
  /** A key+URL is stored on its Nth miss (1: at once; 2: when asked for a second time). */
  storeAfterMisses: number;
  /** How many key+URL hashes waiting for their next miss are remembered (oldest forgotten first). */
  admissionMemory: number;
}

export const DEFAULT_CACHE_LIMITS = {
  maxEntries: 5000,
  maxBytes: 16 * 1024 * 1024,
  staleWindowMs: 3600_000,
  storeAfterMisses: 1,
  admissionMemory: 50_000,
} as const;

const fromCache = (reply: V1Json, servedFrom: 'fresh' | 'stale', freshUntil?: number): V1Json =>
  freshUntil === undefined ? { status: reply.status, body: reply.body, servedFrom } : { status: reply.status, body: reply.body, servedFrom, freshUntil };

interface Entry {
  reply: V1Json;
  storedAt: number;
  ttlMs: number;
  bytes: number;
}

/** The JSON size of a value, near enough to bound memory; cheaper than serialising it again. */
export function approximateJsonBytes(value: unknown): number {
  switch (typeof value) {
    case 'string':
      return value.length + 2;
    case 'number':
      return 8;
    case 'boolean':
      return 5;
    case 'object': {
      if (value === null) return 4;
      let n = 2;
      if (Array.isArray(value)) {
        for (const item of value) n += approximateJsonBytes(item) + 1;
      } else {
        for (const [k, v] of Object.entries(value)) n += k.length + 4 + approximateJsonBytes(v);
      }
      return n;
    }
    default:
      return 0;
  }
}

/** The failures a stale reply may stand in for: what the gateway would answer as a 429 or a 5xx. */
export function allowsStale(err: unknown): boolean {
  return err instanceof GatewayError && err.code !== 'LGW_BAD_REQUEST' && (err.status === 429 || err.status >= 500);
}

export interface ResponseCacheTransport extends V1Transport {
  /** Entries held (fresh or kept for stale-if-error). */
  size(): number;
  clear(): void;
}

export function withResponseCache(inner: V1Transport, options: ResponseCacheOptions): ResponseCacheTransport {
  const now = options.now ?? Date.now;
  const onEvent = options.onEvent ?? (() => undefined);
  const entries = new LRUCache<string, Entry>({
    max: options.maxEntries,
    maxSize: options.maxBytes,
    sizeCalculation: (entry) => Math.max(1, entry.bytes),
    // Memory is reclaimed once an entry can serve neither fresh nor stale; freshness is checked below
    // against the injected clock.
    ttl: Math.max(options.staleWindowMs, options.defaultTtlMs),
    ttlAutopurge: false,
  });
  // Misses counted per key+URL not stored yet: a hash (43 characters) and a small number each.
  // Bounded by count through maxSize, so its arrays grow with use instead of being allocated in full at start.
  const misses = new LRUCache<string, number>({ maxSize: Math.max(1, options.admissionMemory), sizeCalculation: () => 1 });
  /** Whether this miss is the one on which the reply is stored. */
  const admits = (key: string): boolean => {
    if (options.storeAfterMisses <= 1) return true;
    const seen = (misses.get(key) ?? 0) + 1;
    if (seen < options.storeAfterMisses) {
      misses.set(key, seen);
      return false;
    }
    misses.delete(key);
    return true;
  };

  return {
    async getJson(request: V1GetRequest): Promise<V1Json> {
      const ttlMs = request.cacheTtlMs ?? options.defaultTtlMs;
      // A TTL of 0 asks for the upstream's answer now (payment checks): no fresh copy, no stale one.
      if (ttlMs <= 0) return inner.getJson(request);
      const key = requestKey(request);
      const held = entries.get(key);
      const heldUntil = held ? held.storedAt + Math.min(ttlMs, held.ttlMs) : 0;
      if (held && now() < heldUntil) {
        onEvent('hit');
        return fromCache(held.reply, 'fresh', heldUntil);
      }
      onEvent('miss');
      let reply: V1Json;
      try {
        reply = await inner.getJson(request);
      } catch (err) {
        // `held` is re-read: another caller may have stored a good reply while this one waited.
        const fallback = entries.get(key) ?? held;
        if (fallback && allowsStale(err) && now() - fallback.storedAt < options.staleWindowMs) {
          onEvent('stale');
          return fromCache(fallback.reply, 'stale');
        }
        throw err;
      }
      if (!held && !admits(key)) return reply;
      const bytes = approximateJsonBytes(reply.body);
      if (bytes > options.maxBytes) return reply;
      const storedAt = now();
      entries.set(key, { reply: { status: reply.status, body: reply.body }, storedAt, ttlMs, bytes });
      return { status: reply.status, body: reply.body, freshUntil: storedAt + ttlMs };
    },
    size: () => entries.size,
    clear: () => entries.clear(),
  };
}
