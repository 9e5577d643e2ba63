// Caches successful upstream GET replies (lru-cache), keyed by a hash of API key + v1 URL, so two keys
// never share an entry and no key is kept in clear. Each reply lives for its request's TTL (the mapping's
// `cacheTtlMs`, else the default), bounded by entry count and approximate bytes. Stale-if-error: when the
// upstream fails with a 429, a 5xx, a connect error or a timeout, a reply stored within the last hour is
// served instead, marked stale (`servedFrom`) so the route adds `Warning: 110`. It never caches an error, and it must
// never hand out a reply stored under another key. A kept body is shared: it is never changed, and each
// caller gets it in a box of its own.
// One entry serves both forms of a request (v1-client.ts's `form`): a hit gives the form asked for. In form
// `json` it is parsed from kept bytes or a kept text (one that is not JSON is then a bad reply, as from v1);
// in form `bytes` it is the kept bytes as they are, or a kept text or value encoded. A reply read as bytes
// is kept as its bytes, never decoded just to be kept; the shared tier is given its text, so that the
// shared store keeps one format whatever the form. A large reply (v1's text KEEPS_TEXT_FROM characters or
// more, a page of hundreds of records) is kept as its text and parsed again on each hit in form `json`, which
// then gives its caller a body of its own: a kept parsed page is thousands of objects the collector copies
// twice while young and marks at every full collection, while its text is one string it never copies. So
// cold 10,000-member team listings, which store ten such pages each, cost less CPU this way than with the
// pages kept parsed, for about the same peak memory.
// Admission (CACHE_MIN_USES, `storeAfterMisses`): by default a reply is stored on its first miss, as
// nginx's proxy_cache_min_uses 1, so a call repeated within the TTL is a hit and stale-if-error covers a
// URL seen once. Set to 2 or more, a key+URL is stored from its Nth miss on, remembered in between by its
// hash alone: a call made once (a new key's first call, a scanner) then never evicts what is in use nor
// churns the heap, at the price of one more upstream call per key+URL and no stale copy of a one-off.
// Two tiers (REDIS_URL, `shared`): the lru-cache stays the first, and keeps a copy only `l1TtlMs` before
// asking the shared tier again, so replicas do not answer from their own copies for long after another
// one stored a newer reply; the shared tier spares every other replica the v1 call (and the account's v1
// budget). The shared tier may fail, lag or vanish at any time: that is a miss, never an error or a long
// wait, and this process's own copies then serve as they would without it.
// Write generations (`generations`, state/caches/write-generations.ts) are part of the key of a read that names
// one (request-key.ts): such a read, when it asks the shared tier, also asks whether another replica's
// write moved its generation on, in the same wait, and is then served under the new one. Its reply's
// `freshUntil` also ends when this process would ask the shared tier again, so that what is kept from it
// (the reply and roster caches) learns of another replica's write no later than its own copy does.
import { LRUCache } from 'lru-cache';
import { GatewayError } from '../../shared/errors.js';
import { handOff } from '../../shared/hand-off.js';
import type { CacheEvent } from '../metrics/gateway-metrics.js';
import type { SharedResponseStore, StoredReply } from '../state/caches/response-store.js';
import type { WriteGenerations } from '../state/caches/write-generations.js';
import { requestKey } from './request-key.js';
import { parseV1Text } from '../../mapping/v1-reply.js';
import type { V1Form, V1GetRequest, V1Json, V1Payload, V1Transport } from './v1-client.js';

export interface ResponseCacheOptions extends CacheLimits {
  /** TTL of a request that names none (CACHE_TTL_MS). */
  defaultTtlMs: number;
  now?: () => number;
  onEvent?: (event: CacheEvent) => void;
  /** The second tier, shared by every replica; without it the cache is this process's alone. */
  shared?: SharedResponseStore;
  /** With `shared`: how long this process answers from its own copy before asking the shared tier again. */
  l1TtlMs?: number;
  /** With `shared`: how long a read waits for the shared tier before it counts as a miss. */
  sharedWaitMs?: number;
  /** With `shared`: the write generations, asked alongside the shared tier. */
  generations?: Pick<WriteGenerations, 'confirm'>;
}

export const DEFAULT_L1_TTL_MS = 5000;
export const DEFAULT_SHARED_WAIT_MS = 250;

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

/** A kept reply: its parsed body, v1's text (a large reply, or a copy from the shared tier), or v1's bytes
 * (a reply read as bytes). Never written to: every hit shares it. */
type KeptReply = { status: number; value: unknown } | { status: number; text: string } | { status: number; bytes: Buffer };

/** What is kept of a reply's payload: its bytes when it has them, else its text when it has one. */
const kept = (status: number, payload: V1Payload): KeptReply => {
  if (payload.bytes !== undefined) return { status, bytes: payload.bytes };
  return payload.text !== undefined ? { status, text: payload.text } : { status, value: payload.value };
};

/** A shared tier's copy, kept as this process keeps its own. */
const keptFromShared = (copy: StoredReply): KeptReply => ('text' in copy ? { status: copy.status, text: copy.text } : { status: copy.status, value: copy.body });

/** What the shared tier is given of a reply: its value (with v1's text of it, when at hand), or, for a reply
 * read as bytes, their text alone, decoded but not parsed: the shared store's format is the same whatever
 * the form. */
const toShare = (keeping: KeptReply, payload: V1Payload, storedAt: number, ttlMs: number): StoredReply => {
  const { status } = keeping;
  if ('bytes' in keeping) return { status, text: keeping.bytes.toString('utf8'), storedAt, ttlMs };
  return payload.text === undefined ? { status, body: payload.value, storedAt, ttlMs } : { status, body: payload.value, storedAt, ttlMs, bodyText: payload.text };
};

/** The payload a kept reply gives in `form`; kept bytes or a kept text that is not JSON, asked for as JSON,
 * is a bad reply. */
const payloadOf = (reply: KeptReply, form: V1Form): V1Payload => {
  if (form === 'bytes') {
    if ('bytes' in reply) return { bytes: reply.bytes };
    return { bytes: Buffer.from('text' in reply ? reply.text : JSON.stringify(reply.value)) };
  }
  if ('bytes' in reply) return { value: parseV1Text(reply.bytes.toString('utf8')) };
  return { value: 'text' in reply ? parseV1Text(reply.text) : reply.value };
};

const fromCache = (reply: KeptReply, form: V1Form, servedFrom: 'fresh' | 'stale', freshUntil?: number): V1Json => {
  const body = handOff(payloadOf(reply, form));
  return freshUntil === undefined ? { status: reply.status, servedFrom, body } : { status: reply.status, servedFrom, freshUntil, body };
};

/** A reply's size for the byte bound: v1's bytes' or text's length when known, else its body's approximate
 * JSON size. */
const sizeOf = (reply: KeptReply): number => {
  if ('bytes' in reply) return reply.bytes.length;
  return 'text' in reply ? reply.text.length : approximateJsonBytes(reply.value);
};

interface Entry {
  reply: KeptReply;
  /** When the reply was fetched from v1 (by this replica or, through the shared tier, another one). */
  storedAt: number;
  ttlMs: number;
  bytes: number;
  /** Until when this process may answer with it without asking the shared tier (no end without one). */
  localUntil: number;
}

/** Until when a reply may be kept from: its copy's end, and for a read that follows writes (it names a
 * generation) no later than this process asks the shared tier again. */
const keptUntil = (followsWrites: boolean, until: number, localUntil: number): number => (followsWrites ? Math.min(until, localUntil) : until);

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

/** Whether a miss is the one on which the reply is stored (CACHE_MIN_USES). */
function admission(options: CacheLimits): (key: string) => boolean {
  if (options.storeAfterMisses <= 1) return () => true;
  // Misses counted per key+URL not stored yet: a hash (43 characters) and a small number each.
  // Bounded by count through maxSize, so its arrays grow with use instead of being allocated in full at start.
  const misses = new LRUCache<string, number>({ maxSize: Math.max(1, options.admissionMemory), sizeCalculation: () => 1 });
  return (key) => {
    const seen = (misses.get(key) ?? 0) + 1;
    if (seen < options.storeAfterMisses) {
      misses.set(key, seen);
      return false;
    }
    misses.delete(key);
    return true;
  };
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
  const admits = admission(options);
  const shared = options.shared ? sharedTier(options.shared, options.sharedWaitMs ?? DEFAULT_SHARED_WAIT_MS, options.generations) : undefined;
  const l1TtlMs = shared ? (options.l1TtlMs ?? DEFAULT_L1_TTL_MS) : Number.POSITIVE_INFINITY;
  const keep = (key: string, reply: KeptReply, storedAt: number, ttlMs: number, bytes: number): void => {
    entries.set(key, { reply, storedAt, ttlMs, bytes, localUntil: now() + l1TtlMs });
  };

  const transport: ResponseCacheTransport = {
    async getJson(request: V1GetRequest): Promise<V1Json> {
      const ttlMs = request.cacheTtlMs ?? options.defaultTtlMs;
      // A TTL of 0 asks for the upstream's answer now (payment checks): no fresh copy, no stale one.
      if (ttlMs <= 0) return inner.getJson(request);
      const form = request.form ?? 'json';
      const key = requestKey(request);
      const held = entries.get(key);
      // `freshUntil` is the copy's own (fetched + TTL), whichever tier it came from; `localUntil` only
      // decides when this process asks the shared tier again.
      const heldUntil = held ? held.storedAt + Math.min(ttlMs, held.ttlMs) : 0;
      const follows = request.generation !== undefined;
      const asked = now();
      if (held && asked < heldUntil && asked < held.localUntil) {
        onEvent('hit');
        return fromCache(held.reply, form, 'fresh', keptUntil(follows, heldUntil, held.localUntil));
      }
      let sharedCopy: StoredReply | undefined;
      if (shared) {
        const found = await shared.lookUp(request, key, asked);
        if (found.moved) return transport.getJson(found.moved);
        sharedCopy = found.copy;
        const sharedUntil = sharedCopy ? sharedCopy.storedAt + Math.min(ttlMs, sharedCopy.ttlMs) : 0;
        if (sharedCopy && now() < sharedUntil) {
          // Concurrent readers share one lookup: the first of them puts the copy in this process.
          const copy = keptFromShared(sharedCopy);
          if (entries.peek(key)?.storedAt !== sharedCopy.storedAt) {
            const bytes = sizeOf(copy);
            if (bytes <= options.maxBytes) keep(key, copy, sharedCopy.storedAt, sharedCopy.ttlMs, bytes);
          }
          onEvent('hit');
          return fromCache(copy, form, 'fresh', keptUntil(follows, sharedUntil, now() + l1TtlMs));
        }
        // The shared tier has nothing newer (or cannot say: down, slow, the reply too large for it): this
        // process's own copy serves for its whole TTL, as with no shared tier, asking again in l1TtlMs.
        if (held && now() < heldUntil) {
          held.localUntil = now() + l1TtlMs;
          onEvent('hit');
          return fromCache(held.reply, form, 'fresh', keptUntil(follows, heldUntil, held.localUntil));
        }
      }
      onEvent('miss');
      let reply: V1Json;
      try {
        // v1's bytes are what is kept: a page is not translated as it comes when this cache is on.
        reply = await inner.getJson(request.translation === undefined ? request : { ...request, translation: undefined });
      } catch (err) {
        // `held` is re-read: another caller may have stored a good reply while this one waited. Of the two
        // tiers' copies, the newer is served.
        const local = entries.get(key) ?? held;
        const fallback = sharedCopy && (!local || sharedCopy.storedAt > local.storedAt) ? { reply: keptFromShared(sharedCopy), storedAt: sharedCopy.storedAt } : local;
        if (fallback && allowsStale(err) && now() - fallback.storedAt < options.staleWindowMs) {
          onEvent('stale');
          return fromCache(fallback.reply, form, 'stale');
        }
        throw err;
      }
      // A key+URL either tier holds was admitted before: its refresh is stored at once.
      if (!held && !sharedCopy && !admits(key)) return reply;
      // Taken to be kept: the caller is given the same payload in a box of its own.
      const payload = reply.body.take();
      const keeping = kept(reply.status, payload);
      const bytes = reply.textLength ?? sizeOf(keeping);
      if (bytes > options.maxBytes) return { ...reply, body: handOff(payload) };
      const storedAt = now();
      keep(key, keeping, storedAt, ttlMs, bytes);
      shared?.store(key, () => toShare(keeping, payload, storedAt, ttlMs), ttlMs + options.staleWindowMs);
      return { status: reply.status, freshUntil: keptUntil(follows, storedAt + ttlMs, storedAt + l1TtlMs), body: handOff(payload) };
    },
    size: () => entries.size,
    clear: () => entries.clear(),
  };
  return transport;
}

interface SharedLookUp {
  copy: StoredReply | undefined;
  /** Another replica's write moved the request's generation on: the request under the new one, to be
   * served instead (no copy is given). */
  moved?: V1GetRequest;
}

interface SharedTier {
  /** The shared copy, if the store answers within `waitMs` (a failure is none); concurrent lookups of one
   * key share one read. Never rejects. A copy stored "later" than `asked` (a replica whose clock runs
   * ahead) is dated `asked`, so that no clock makes a copy fresh for longer than its TTL from now. With
   * write generations, the request's generation is confirmed in the same wait; no copy is given when it
   * cannot be. */
  lookUp(request: V1GetRequest, key: string, asked: number): Promise<SharedLookUp>;
  /** Makes a copy and stores it after the current reply is on its way; never awaited, its failure ignored. */
  store(key: string, copy: () => StoredReply, keepMs: number): void;
}

/** `work`'s outcome if it settles within `waitMs`, else undefined; never rejects. */
function within<T>(work: Promise<T | undefined>, waitMs: number): Promise<T | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), waitMs);
    timer.unref();
    work.then(resolve, () => resolve(undefined)).finally(() => clearTimeout(timer));
  });
}

function sharedTier(store: SharedResponseStore, waitMs: number, generations?: Pick<WriteGenerations, 'confirm'>): SharedTier {
  const pending = new Map<string, Promise<StoredReply | undefined>>();
  // Requests this tier moved to a newer generation: confirmed once, not asked about again.
  const moved = new WeakSet<V1GetRequest>();
  const read = (key: string, asked: number): Promise<StoredReply | undefined> =>
    new Promise((resolve) => {
      const timer = setTimeout(() => resolve(undefined), waitMs);
      timer.unref();
      const settle = (found: StoredReply | undefined) => {
        clearTimeout(timer);
        resolve(found && found.storedAt > asked ? { ...found, storedAt: asked } : found);
      };
      try {
        store.get(key).then(settle, () => settle(undefined));
      } catch {
        settle(undefined);
      }
    });
  const lookUpCopy = (key: string, asked: number): Promise<StoredReply | undefined> => {
    const waiting = pending.get(key);
    if (waiting) return waiting;
    const lookup = read(key, asked).finally(() => pending.delete(key));
    pending.set(key, lookup);
    return lookup;
  };
  return {
    async lookUp(request, key, asked) {
      const { generation } = request;
      if (!generations || !generation || moved.has(request)) return { copy: await lookUpCopy(key, asked) };
      const [token, copy] = await Promise.all([within(generations.confirm(request.apiKey, generation.resource), waitMs), lookUpCopy(key, asked)]);
      if (token === undefined) return { copy: undefined };
      if (token === generation.token) return { copy };
      const next: V1GetRequest = { ...request, generation: { resource: generation.resource, token } };
      moved.add(next);
      return { copy: undefined, moved: next };
    },
    store(key, copy, keepMs) {
      // Decoding and serialising a large reply take milliseconds: both are done once this reply has been
      // handed on.
      setImmediate(() => {
        try {
          store.set(key, copy(), keepMs).catch(() => undefined);
        } catch {
          // A store that throws instead of rejecting, or a copy that cannot be made, is ignored the same way.
        }
      });
    },
  };
}
