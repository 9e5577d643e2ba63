// The port of the read cache's second tier: v1 replies shared by every replica (REDIS_URL), so a reply one
// replica fetched is served by the others without spending the account's v1 budget again. Keys are the
// response cache's hashes of API key + v1 URL, never a key in clear. It holds only good replies, each
// with the facts its freshness is judged by; the cache layer, not the store, decides what is fresh.
export type StoredReply = StoredFacts & (StoredValue | StoredText);

interface StoredFacts {
  status: number;
  /** When the replica that fetched it stored it (ms since the epoch). */
  storedAt: number;
  /** The TTL it was stored under (the mapping's, else CACHE_TTL_MS). */
  ttlMs: number;
}

/** A reply read as JSON: its parsed body. */
interface StoredValue {
  body: unknown;
  /** On a reply being stored, when v1's JSON text of `body` is at hand (a large reply): a store that
   * serialises may write it as it is instead of serialising the body again. Never on a reply read back. */
  bodyText?: string;
}

/** A reply read as bytes (form `bytes`), as its text: v1's bytes decoded, which nobody parsed, so it is not
 * known to be JSON. A store keeps it as a string, and gives it back as one. */
interface StoredText {
  text: string;
}

export interface SharedResponseStore {
  /** The reply stored under `key`, fresh or not; undefined when there is none. Rejects when the store
   * cannot be reached: the caller treats that as a miss. */
  get(key: string): Promise<StoredReply | undefined>;
  /** Stores `reply` for `keepMs` (its TTL plus the stale-if-error window). A reply the store will not hold
   * (too large, too many writes pending, the store down) is skipped: it resolves either way, or rejects
   * on a failed write, which the caller ignores. */
  set(key: string, reply: StoredReply, keepMs: number): Promise<void>;
}
