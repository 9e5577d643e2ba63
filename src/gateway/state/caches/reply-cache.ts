// Keeps the serialised legacy reply of a translated GET for as long as every v1 reply it was built from
// stays fresh in the response cache, so a repeated call skips the reshaping and the JSON encoding. The
// engine is a pure function of the mapping, the call and the v1 replies, so the bytes are exactly what it
// would build again. Keyed by a hash of the API key, the legacy method, the call and the key's write
// generation of what it reads (a write of it makes a new key): never shared across keys, the key never
// kept in clear. It never holds an error, a stale reply or a reply whose v1 data was
// not cached; bounded by entries and bytes.
import { cacheKey } from './cache-key.js';
import { LRUCache } from 'lru-cache';
import type { LegacyCall } from '../../../mapping/run.js';

export interface ReplyCache {
  /** The stored reply bytes, while fresh. */
  get(key: string): Buffer | undefined;
  /** Stores `body` until `freshUntil` (same clock as the response cache). */
  set(key: string, body: Buffer, freshUntil: number): void;
  size(): number;
}

export interface ReplyCacheOptions {
  maxEntries: number;
  maxBytes: number;
  now?: () => number;
}

export const DEFAULT_REPLY_CACHE_LIMITS = { maxEntries: 2000, maxBytes: 8 * 1024 * 1024 } as const;

export function replyKey(apiKey: string | undefined, method: string, call: LegacyCall, generation = ''): string {
  // Query order matters to the lookup rule (the first exclusive key wins), so it is kept. The segments
  // are joined with `/`, which no raw segment contains; the NUL cannot occur in a header (the key).
  const query = call.query.length === 0 ? '' : new URLSearchParams(call.query).toString();
  return cacheKey(apiKey, `${method}/${call.segments.join('/')}?${query}`, generation);
}

export function createReplyCache(options: ReplyCacheOptions): ReplyCache {
  const now = options.now ?? Date.now;
  const entries = new LRUCache<string, { body: Buffer; freshUntil: number }>({
    max: options.maxEntries,
    maxSize: options.maxBytes,
    sizeCalculation: (entry) => Math.max(1, entry.body.length),
  });
  return {
    get(key) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (now() < entry.freshUntil) return entry.body;
      entries.delete(key);
      return undefined;
    },
    set(key, body, freshUntil) {
      if (freshUntil > now() && body.length <= options.maxBytes) entries.set(key, { body, freshUntil });
    },
    size: () => entries.size,
  };
}
