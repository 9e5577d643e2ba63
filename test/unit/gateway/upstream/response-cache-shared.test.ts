// The response cache's two tiers: this process's lru-cache (L1, a short local TTL) and a store every
// replica shares (L2, faked here): what each tier answers, what is stored where, stale-if-error across
// both, the freshness facts of a reply from either, and a shared store that fails, hangs or throws.
import { describe, expect, it, vi } from 'vitest';
import type { CacheEvent } from '../../../../src/gateway/metrics/gateway-metrics.js';
import type { SharedResponseStore, StoredReply } from '../../../../src/gateway/state/caches/response-store.js';
import { requestKey } from '../../../../src/gateway/upstream/request-key.js';
import { withResponseCache, type ResponseCacheOptions } from '../../../../src/gateway/upstream/response-cache.js';
import { boxed, fakeTransport, jsonReply, plain, request, upstreamError, valueOf } from './fake-transport.js';

const TTL = 30_000;
const STALE_WINDOW = 3_600_000;
const KEY = requestKey(request());

interface FakeStore extends SharedResponseStore {
  values: Map<string, { reply: StoredReply; keepMs: number }>;
  gets: number;
  /** `fail`: get and set reject; `hang`: get never answers; `throw`: get and set throw before any promise. */
  mode: 'ok' | 'fail' | 'hang' | 'throw';
}

function fakeStore(): FakeStore {
  const store: FakeStore = {
    values: new Map(),
    gets: 0,
    mode: 'ok',
    get(key) {
      store.gets += 1;
      if (store.mode === 'throw') throw new Error('broken');
      if (store.mode === 'hang') return new Promise(() => undefined);
      if (store.mode === 'fail') return Promise.reject(new Error('down'));
      return Promise.resolve(store.values.get(key)?.reply);
    },
    set(key, reply, keepMs) {
      if (store.mode === 'throw') throw new Error('broken');
      if (store.mode === 'fail') return Promise.reject(new Error('down'));
      store.values.set(key, { reply, keepMs });
      return Promise.resolve();
    },
  };
  return store;
}

/** Lets the deferred writes to the shared store run. */
const writesSent = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Replicas sharing one store and one clock; each has its own upstream (a fake counting its calls). */
function cluster(options: Partial<ResponseCacheOptions> = {}) {
  let clock = 1_000_000;
  const store = fakeStore();
  const replica = (name: string) => {
    const events: CacheEvent[] = [];
    let n = 0;
    const inner = fakeTransport(async () => boxed(jsonReply({ from: name, n: ++n })));
    const cache = withResponseCache(inner, {
      defaultTtlMs: TTL,
      maxEntries: 100,
      maxBytes: 1_000_000,
      staleWindowMs: STALE_WINDOW,
      storeAfterMisses: 1,
      admissionMemory: 100,
      shared: store,
      now: () => clock,
      onEvent: (e) => events.push(e),
      ...options,
    });
    return { inner, cache, events };
  };
  return { store, replica, now: () => clock, advance: (ms: number) => (clock += ms) };
}

describe('a reply cached by one replica', () => {
  it('is stored in both tiers on a miss in both: the serialised facts, kept for the TTL plus the stale window', async () => {
    const { store, replica, now } = cluster();
    const a = replica('a');
    const first = await a.cache.getJson(request());
    await writesSent();
    expect(plain(first)).toEqual({ status: 200, freshUntil: now() + TTL, body: { value: { from: 'a', n: 1 } } });
    expect(a.cache.size()).toBe(1);
    expect(store.values.get(KEY)).toEqual({ reply: { status: 200, body: { from: 'a', n: 1 }, storedAt: now(), ttlMs: TTL }, keepMs: TTL + STALE_WINDOW });
    expect(a.events).toEqual(['miss']);
  });

  it("is given to the shared tier with v1's own text of its body when the client gave it (a large reply)", async () => {
    const { store, replica, now } = cluster();
    const a = replica('a');
    const text = '{ "from": "a", "n": 1 }';
    a.inner.script = [{ status: 200, body: { value: { from: 'a', n: 1 }, text }, textLength: text.length }];
    await a.cache.getJson(request());
    await writesSent();
    expect(store.values.get(KEY)).toEqual({
      reply: { status: 200, body: { from: 'a', n: 1 }, storedAt: now(), ttlMs: TTL, bodyText: text },
      keepMs: TTL + STALE_WINDOW,
    });
  });

  it('is given to the shared tier as its text when read as bytes, and another replica serves it in either form', async () => {
    const { store, replica, now } = cluster();
    const a = replica('a');
    const text = '{ "from": "a",  "n": 1, "name": "Zoë €" }';
    const bytes = Buffer.from(text);
    a.inner.script = [{ status: 200, body: { bytes }, textLength: bytes.length }];
    expect(plain(await a.cache.getJson(request({ form: 'bytes' }))).body).toEqual({ bytes: Buffer.from(text) });
    // Decoded for the shared tier only once the reply is on its way.
    expect(store.values.size).toBe(0);
    await writesSent();
    expect(store.values.get(KEY)).toEqual({ reply: { status: 200, text, storedAt: now(), ttlMs: TTL }, keepMs: TTL + STALE_WINDOW });
    const b = replica('b');
    expect(plain(await b.cache.getJson(request()))).toEqual({ status: 200, servedFrom: 'fresh', freshUntil: now() + TTL, body: { value: { from: 'a', n: 1, name: 'Zoë €' } } });
    expect(plain(await b.cache.getJson(request({ form: 'bytes' }))).body).toEqual({ bytes: Buffer.from(text) });
    const c = replica('c');
    expect(plain(await c.cache.getJson(request({ form: 'bytes' }))).body).toEqual({ bytes: Buffer.from(text) });
    expect([b.inner.calls.length, c.inner.calls.length]).toEqual([0, 0]);
  });

  it('is given to the shared tier as the text of its bytes when they are not UTF-8: each such byte decoded as U+FFFD', async () => {
    const { store, replica, now } = cluster();
    const a = replica('a');
    const bytes = Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xff]), Buffer.from('é"}')]);
    a.inner.script = [{ status: 200, body: { bytes }, textLength: bytes.length }];
    expect(plain(await a.cache.getJson(request({ form: 'bytes' }))).body).toEqual({ bytes: Buffer.from(bytes) });
    await writesSent();
    expect(store.values.get(KEY)?.reply).toEqual({ status: 200, text: '{"name":"\ufffdé"}', storedAt: now(), ttlMs: TTL });
    // This replica's own copy is still the bytes as they came.
    expect(plain(await a.cache.getJson(request({ form: 'bytes' }))).body).toEqual({ bytes: Buffer.from(bytes) });
  });

  it('read as JSON, is served by another replica in form bytes as the bytes of its JSON.stringify', async () => {
    const { replica } = cluster();
    const a = replica('a');
    await a.cache.getJson(request());
    await writesSent();
    const b = replica('b');
    expect(plain(await b.cache.getJson(request({ form: 'bytes' }))).body).toEqual({ bytes: Buffer.from('{"from":"a","n":1}') });
    expect(b.inner.calls).toHaveLength(0);
  });

  it('is served by another replica from the shared tier with no v1 call, and then from its own copy', async () => {
    const { store, replica, now, advance } = cluster();
    const a = replica('a');
    const b = replica('b');
    const storedAt = now();
    await a.cache.getJson(request());
    await writesSent();
    advance(10_000);
    const fromShared = await b.cache.getJson(request());
    // Fresh until the copy's own end (stored by a + TTL), not 30 s from now.
    expect(plain(fromShared)).toEqual({ status: 200, servedFrom: 'fresh', freshUntil: storedAt + TTL, body: { value: { from: 'a', n: 1 } } });
    expect(b.inner.calls).toHaveLength(0);
    expect(b.cache.size()).toBe(1);
    const gets = store.gets;
    expect(valueOf(await b.cache.getJson(request()))).toEqual({ from: 'a', n: 1 });
    expect(store.gets).toBe(gets);
    expect(b.events).toEqual(['hit', 'hit']);
  });

  it('is not served past its TTL by any replica: the next read asks v1 and shares the new reply', async () => {
    const { store, replica, now, advance } = cluster();
    const a = replica('a');
    const b = replica('b');
    await a.cache.getJson(request());
    await writesSent();
    advance(TTL);
    expect(valueOf(await b.cache.getJson(request()))).toEqual({ from: 'b', n: 1 });
    await writesSent();
    expect(store.values.get(KEY)?.reply).toMatchObject({ body: { from: 'b', n: 1 }, storedAt: now() });
    expect(valueOf(await a.cache.getJson(request()))).toEqual({ from: 'b', n: 1 });
    expect(a.inner.calls).toHaveLength(1);
    expect(b.events).toEqual(['miss']);
  });

  it('judges a shared copy by the shorter of its TTL and the TTL the request names', async () => {
    const { replica, now, advance } = cluster();
    const a = replica('a');
    const b = replica('b');
    await a.cache.getJson(request({ cacheTtlMs: 300_000 }));
    await writesSent();
    advance(20_000);
    expect(valueOf(await b.cache.getJson(request({ cacheTtlMs: 10_000 })))).toEqual({ from: 'b', n: 1 });
    await writesSent();
    const refreshedAt = now();
    advance(1);
    // The copy b shared was stored under 10 s: a 300 s request does not stretch it.
    const c = replica('c');
    expect(plain(await c.cache.getJson(request({ cacheTtlMs: 300_000 })))).toMatchObject({ body: { value: { from: 'b', n: 1 } }, freshUntil: refreshedAt + 10_000 });
  });

  it('a TTL of 0 neither reads nor writes the shared tier', async () => {
    const { store, replica } = cluster();
    const a = replica('a');
    await a.cache.getJson(request({ cacheTtlMs: 0 }));
    await writesSent();
    expect(store.gets).toBe(0);
    expect(store.values.size).toBe(0);
  });

  it('concurrent reads on one replica share one lookup in the shared tier', async () => {
    const { store, replica } = cluster();
    const a = replica('a');
    const b = replica('b');
    await a.cache.getJson(request());
    await writesSent();
    const gets = store.gets;
    const replies = await Promise.all([1, 2, 3, 4, 5].map(() => b.cache.getJson(request())));
    expect(replies.map(valueOf)).toEqual(Array(5).fill({ from: 'a', n: 1 }));
    expect(store.gets).toBe(gets + 1);
    expect(b.inner.calls).toHaveLength(0);
  });

  it('a copy dated ahead of this clock (another replica clock runs fast) is fresh for at most its TTL from now', async () => {
    const { store, replica, now } = cluster();
    store.values.set(KEY, { reply: { status: 200, body: { from: 'ahead' }, storedAt: now() + 60_000, ttlMs: TTL }, keepMs: TTL + STALE_WINDOW });
    const b = replica('b');
    expect(plain(await b.cache.getJson(request()))).toMatchObject({ body: { value: { from: 'ahead' } }, freshUntil: now() + TTL });
  });

  it('admission applies to both tiers: a key+URL is shared from its Nth miss on', async () => {
    const { store, replica } = cluster({ storeAfterMisses: 2 });
    const a = replica('a');
    await a.cache.getJson(request());
    await writesSent();
    expect(store.values.size).toBe(0);
    expect(a.cache.size()).toBe(0);
    await a.cache.getJson(request());
    await writesSent();
    expect(store.values.size).toBe(1);
    expect(a.cache.size()).toBe(1);
  });

  it('a refresh of a key+URL the shared tier holds is stored at once, without waiting to be admitted again', async () => {
    const { store, replica, now, advance } = cluster({ storeAfterMisses: 2 });
    const a = replica('a');
    await a.cache.getJson(request());
    await a.cache.getJson(request());
    await writesSent();
    advance(TTL);
    const b = replica('b');
    await b.cache.getJson(request());
    await writesSent();
    expect(store.values.get(KEY)?.reply).toMatchObject({ body: { from: 'b', n: 1 }, storedAt: now() });
  });

  it('a shared reply larger than the local byte bound is served but not kept locally', async () => {
    const { store, replica, now } = cluster({ maxBytes: 1000 });
    store.values.set(KEY, { reply: { status: 200, body: { data: 'x'.repeat(2000) }, storedAt: now(), ttlMs: TTL }, keepMs: TTL });
    const b = replica('b');
    expect((await b.cache.getJson(request())).servedFrom).toBe('fresh');
    expect(b.cache.size()).toBe(0);
  });
});

describe('the local tier keeps a copy only l1TtlMs', () => {
  it('answers from its own copy for l1TtlMs, then takes a newer copy another replica shared', async () => {
    const { store, replica, now, advance } = cluster();
    const a = replica('a');
    const t0 = now();
    await a.cache.getJson(request());
    await writesSent();
    // Another replica stored a newer reply meanwhile (it fetched one while its shared write of the first failed).
    advance(1000);
    store.values.set(KEY, { reply: { status: 200, body: { from: 'b', n: 1 }, storedAt: now(), ttlMs: TTL }, keepMs: TTL + STALE_WINDOW });
    advance(3999);
    const gets = store.gets;
    expect(plain(await a.cache.getJson(request()))).toMatchObject({ body: { value: { from: 'a', n: 1 } }, freshUntil: t0 + TTL });
    expect(store.gets).toBe(gets);
    advance(1);
    expect(plain(await a.cache.getJson(request()))).toMatchObject({ body: { value: { from: 'b', n: 1 } }, servedFrom: 'fresh', freshUntil: t0 + 1000 + TTL });
    expect(a.inner.calls).toHaveLength(1);
  });

  it('l1TtlMs is an option', async () => {
    const { store, replica, now, advance } = cluster({ l1TtlMs: 1000 });
    const a = replica('a');
    await a.cache.getJson(request());
    await writesSent();
    store.values.set(KEY, { reply: { status: 200, body: { from: 'b', n: 1 }, storedAt: now(), ttlMs: TTL }, keepMs: TTL });
    advance(1000);
    expect(valueOf(await a.cache.getJson(request()))).toEqual({ from: 'b', n: 1 });
  });

  it('when the shared tier has nothing newer, its own copy serves for its whole TTL, and asks again l1TtlMs later', async () => {
    const { store, replica, now, advance } = cluster();
    const a = replica('a');
    const t0 = now();
    await a.cache.getJson(request());
    await writesSent();
    store.values.clear(); // Redis restarted empty, or evicted it
    advance(6000);
    const gets = store.gets;
    expect(plain(await a.cache.getJson(request()))).toMatchObject({ body: { value: { from: 'a', n: 1 } }, servedFrom: 'fresh', freshUntil: t0 + TTL });
    expect(plain(await a.cache.getJson(request()))).toMatchObject({ body: { value: { from: 'a', n: 1 } } });
    expect(store.gets).toBe(gets + 1);
    advance(5000);
    await a.cache.getJson(request());
    expect(store.gets).toBe(gets + 2);
    expect(a.inner.calls).toHaveLength(1);
    expect(a.events).toEqual(['miss', 'hit', 'hit', 'hit']);
  });

  it('without a shared tier, a copy serves for its whole TTL with no local limit (as before)', async () => {
    const { replica, advance } = cluster({ shared: undefined, l1TtlMs: 1000 });
    const a = replica('a');
    await a.cache.getJson(request());
    advance(TTL - 1);
    expect((await a.cache.getJson(request())).servedFrom).toBe('fresh');
    expect(a.inner.calls).toHaveLength(1);
  });
});

describe('stale-if-error across the tiers', () => {
  it('serves the shared copy, marked stale, when v1 fails and this replica holds none', async () => {
    const { replica, advance } = cluster();
    const a = replica('a');
    const b = replica('b');
    await a.cache.getJson(request());
    await writesSent();
    advance(45 * 60_000);
    b.inner.fallback = upstreamError(503);
    const reply = await b.cache.getJson(request());
    expect(plain(reply)).toEqual({ status: 200, servedFrom: 'stale', body: { value: { from: 'a', n: 1 } } });
    expect(b.events).toEqual(['miss', 'stale']);
  });

  it('serves the newer of the two tiers copies', async () => {
    const { replica, advance } = cluster();
    const a = replica('a');
    const b = replica('b');
    await b.cache.getJson(request());
    await writesSent();
    advance(10 * 60_000);
    await a.cache.getJson(request());
    await writesSent();
    advance(40 * 60_000);
    b.inner.fallback = upstreamError(429, { 'retry-after': '60' });
    expect(valueOf(await b.cache.getJson(request()))).toEqual({ from: 'a', n: 1 });
    a.inner.fallback = upstreamError(500);
    expect(valueOf(await a.cache.getJson(request()))).toEqual({ from: 'a', n: 1 });
  });

  it('serves its own copy when the shared tier is down', async () => {
    const { store, replica, advance } = cluster();
    const a = replica('a');
    await a.cache.getJson(request());
    store.mode = 'fail';
    advance(45 * 60_000);
    a.inner.fallback = upstreamError(503);
    expect(plain(await a.cache.getJson(request()))).toMatchObject({ body: { value: { from: 'a', n: 1 } }, servedFrom: 'stale' });
  });

  it('never serves a copy older than the stale window from either tier', async () => {
    const { replica, advance } = cluster();
    const a = replica('a');
    const b = replica('b');
    await a.cache.getJson(request());
    await writesSent();
    advance(STALE_WINDOW);
    a.inner.fallback = upstreamError(503);
    b.inner.fallback = upstreamError(503);
    await expect(a.cache.getJson(request())).rejects.toMatchObject({ status: 503 });
    await expect(b.cache.getJson(request())).rejects.toMatchObject({ status: 503 });
  });

  it('answers a 404 as it is, even with a shared copy at hand', async () => {
    const { replica, advance } = cluster();
    const a = replica('a');
    const b = replica('b');
    await a.cache.getJson(request());
    await writesSent();
    advance(TTL);
    b.inner.fallback = upstreamError(404);
    await expect(b.cache.getJson(request())).rejects.toMatchObject({ status: 404 });
  });
});

describe('a shared tier that fails', () => {
  it.each([
    ['rejects', 'fail'],
    ['throws', 'throw'],
  ] as const)('one that %s is a miss: reads answer from v1, then from the local copy for its whole TTL', async (_name, mode) => {
    const { store, replica, advance } = cluster();
    store.mode = mode;
    const a = replica('a');
    expect(valueOf(await a.cache.getJson(request()))).toEqual({ from: 'a', n: 1 });
    await writesSent();
    advance(TTL - 1);
    expect(plain(await a.cache.getJson(request()))).toMatchObject({ body: { value: { from: 'a', n: 1 } }, servedFrom: 'fresh' });
    advance(1);
    expect(valueOf(await a.cache.getJson(request()))).toEqual({ from: 'a', n: 2 });
    expect(a.events).toEqual(['miss', 'hit', 'miss']);
  });

  it('one that never answers delays a read by sharedWaitMs at most', async () => {
    const { store, replica } = cluster({ sharedWaitMs: 30 });
    store.mode = 'hang';
    const a = replica('a');
    // The wait is a timer: faked, so the read is seen still waiting at 29 ms and answered at 30.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let answered = false;
    const reading = a.cache.getJson(request()).finally(() => (answered = true));
    try {
      await vi.advanceTimersByTimeAsync(29);
      expect(answered).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(answered).toBe(true);
    } finally {
      vi.useRealTimers();
    }
    expect(valueOf(await reading)).toEqual({ from: 'a', n: 1 });
    // The next read on another URL is not held up by the first lookup.
    expect(valueOf(await a.cache.getJson(request({ query: { offset: '10' } })))).toEqual({ from: 'a', n: 2 });
  });

  it('a write to the shared tier is never awaited by the read', async () => {
    const { replica } = cluster();
    const a = replica('a');
    const slow: SharedResponseStore = { get: async () => undefined, set: () => new Promise(() => undefined) };
    const cache = withResponseCache(a.inner, { defaultTtlMs: TTL, maxEntries: 10, maxBytes: 10_000, staleWindowMs: STALE_WINDOW, storeAfterMisses: 1, admissionMemory: 10, shared: slow });
    expect(valueOf(await cache.getJson(request()))).toEqual({ from: 'a', n: 1 });
  });
});

describe('a read that follows writes (it names a write generation)', () => {
  /** Generations kept in one map every replica shares; `confirm` answers undefined while `down`. */
  function sharedGenerations() {
    const tokens = new Map<string, string>();
    const state = { down: false, confirms: 0 };
    const of = () => ({
      confirm: async (apiKey: string | undefined, resource: string) => {
        state.confirms++;
        return state.down ? undefined : (tokens.get(`${apiKey}/${resource}`) ?? '');
      },
    });
    return Object.assign(state, { tokens, of });
  }
  const following = (token: string) => request({ generation: { resource: 'clients', token } });

  it('is kept from no longer than its copy is answered without asking the shared tier', async () => {
    const generations = sharedGenerations();
    const { replica, now } = cluster({ generations: generations.of() });
    const a = replica('a');
    expect((await a.cache.getJson(following(''))).freshUntil).toBe(now() + 5000);
    expect((await a.cache.getJson(following(''))).freshUntil).toBe(now() + 5000);
    expect((await a.cache.getJson(request())).freshUntil).toBe(now() + TTL);
  });

  it("is served under another replica's newer generation, from the shared tier, with no v1 call", async () => {
    const generations = sharedGenerations();
    const { replica } = cluster({ generations: generations.of() });
    const a = replica('a');
    const b = replica('b');
    expect(valueOf(await b.cache.getJson(following('')))).toEqual({ from: 'b', n: 1 });
    // A writes (token t1), then reads under it: its copy goes to the shared tier.
    generations.tokens.set('key-a/clients', 't1');
    expect(valueOf(await a.cache.getJson(following('t1')))).toEqual({ from: 'a', n: 1 });
    await writesSent();
    // B's read started under '' and its L1 copy is still fresh: only an L1 miss asks (none here).
    expect(valueOf(await b.cache.getJson(following('')))).toEqual({ from: 'b', n: 1 });
    const asked = generations.confirms;
    const c = replica('c');
    expect(plain(await c.cache.getJson(following('')))).toMatchObject({ body: { value: { from: 'a', n: 1 } }, servedFrom: 'fresh' });
    expect([c.inner.calls.length, generations.confirms - asked]).toEqual([0, 1]);
  });

  it('gets no shared copy when its generation cannot be confirmed', async () => {
    const generations = sharedGenerations();
    const { replica } = cluster({ generations: generations.of() });
    const a = replica('a');
    expect(valueOf(await a.cache.getJson(following('')))).toEqual({ from: 'a', n: 1 });
    await writesSent();
    generations.down = true;
    const b = replica('b');
    expect(valueOf(await b.cache.getJson(following('')))).toEqual({ from: 'b', n: 1 });
  });
});
