// The response cache: per-key isolation, TTLs (default, per request, 0 = bypass), bounds, large replies
// kept as their text, replies read as bytes kept as their bytes, one entry for both forms (a hit in the
// form asked for, from each kind of kept reply), and stale-if-error (which failures, how old a reply may
// be), with an injected clock instead of sleeps.
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../../src/shared/errors.js';
import type { V1GetRequest, V1Json } from '../../../../src/gateway/upstream/v1-client.js';
import type { CacheEvent } from '../../../../src/gateway/metrics/gateway-metrics.js';
import { requestKey } from '../../../../src/gateway/upstream/request-key.js';
import { approximateJsonBytes, withResponseCache, type ResponseCacheOptions } from '../../../../src/gateway/upstream/response-cache.js';
import { isCollected } from '../../../helpers/collect-garbage.js';
import { boxed, fakeTransport, jsonReply, plain, request, timeout, unreachable, upstreamError, valueOf, type PlainReply } from './fake-transport.js';

function setup(options: Partial<ResponseCacheOptions> = {}) {
  let clock = 1_000_000;
  const events: CacheEvent[] = [];
  let n = 0;
  const inner = fakeTransport(async (req) => boxed(jsonReply({ n: ++n, key: req.apiKey ?? null })));
  const cache = withResponseCache(inner, {
    defaultTtlMs: 30_000,
    maxEntries: 100,
    maxBytes: 1_000_000,
    staleWindowMs: 3_600_000,
    // Each rule below is tested on its own, with every miss stored; admission has its own tests.
    storeAfterMisses: 1,
    admissionMemory: 100,
    now: () => clock,
    onEvent: (e) => events.push(e),
    ...options,
  });
  return { inner, cache, events, advance: (ms: number) => (clock += ms) };
}

describe('cache isolation between keys', () => {
  it('a reply cached for one key is never served to another', async () => {
    const { inner, cache } = setup();
    const a1 = await cache.getJson(request({ apiKey: 'key-a' }));
    const b1 = await cache.getJson(request({ apiKey: 'key-b' }));
    const none = await cache.getJson(request({ apiKey: undefined }));
    expect(valueOf(a1)).toEqual({ n: 1, key: 'key-a' });
    expect(valueOf(b1)).toEqual({ n: 2, key: 'key-b' });
    expect(valueOf(none)).toEqual({ n: 3, key: null });
    expect(valueOf(await cache.getJson(request({ apiKey: 'key-a' })))).toEqual({ n: 1, key: 'key-a' });
    expect(valueOf(await cache.getJson(request({ apiKey: 'key-b' })))).toEqual({ n: 2, key: 'key-b' });
    expect(inner.calls).toHaveLength(3);
  });

  it('a stale reply is never served to another key either', async () => {
    const { inner, cache } = setup();
    await cache.getJson(request({ apiKey: 'key-a' }));
    inner.fallback = upstreamError(503);
    await expect(cache.getJson(request({ apiKey: 'key-b' }))).rejects.toMatchObject({ status: 503 });
  });

  it('keys entries by a hash: the API key is not in the cache key', () => {
    const key = requestKey(request({ apiKey: 'super-secret-key' }));
    expect(key).not.toContain('super-secret-key');
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(requestKey(request({ apiKey: 'a' }))).not.toBe(requestKey(request({ apiKey: 'b' })));
    // The separator keeps (key, URL) pairs apart even when their concatenations are equal.
    expect(requestKey({ apiKey: 'k/clients', path: '', query: {} })).not.toBe(requestKey({ apiKey: 'k', path: '/clients', query: {} }));
  });
});

describe('freshness', () => {
  it('serves a hit within the TTL, and asks the upstream again after it', async () => {
    const { inner, cache, events, advance } = setup();
    await cache.getJson(request());
    advance(29_999);
    const hit = await cache.getJson(request());
    expect(hit.servedFrom).toBe('fresh');
    advance(1);
    const again = await cache.getJson(request());
    expect(again.servedFrom).toBeUndefined();
    expect(valueOf(again)).toMatchObject({ n: 2 });
    expect(inner.calls).toHaveLength(2);
    expect(events).toEqual(['miss', 'hit', 'miss']);
  });

  it('gives each hit a box of its own over the one kept body', async () => {
    const { cache } = setup();
    await cache.getJson(request());
    const [a, b] = [await cache.getJson(request()), await cache.getJson(request())];
    expect(a.body).not.toBe(b.body);
    expect(valueOf(a)).toBe(valueOf(b));
  });

  it('uses the TTL the request names (a team listing keeps its reply longer)', async () => {
    const { inner, cache, advance } = setup();
    await cache.getJson(request({ cacheTtlMs: 300_000 }));
    advance(299_000);
    expect((await cache.getJson(request({ cacheTtlMs: 300_000 }))).servedFrom).toBe('fresh');
    expect(inner.calls).toHaveLength(1);
  });

  it('a TTL of 0 bypasses the cache both ways', async () => {
    const { inner, cache, events } = setup();
    await cache.getJson(request());
    const direct = await cache.getJson(request({ cacheTtlMs: 0 }));
    expect(direct.servedFrom).toBeUndefined();
    inner.fallback = upstreamError(503);
    await expect(cache.getJson(request({ cacheTtlMs: 0 }))).rejects.toMatchObject({ status: 503 });
    expect(events).toEqual(['miss']);
  });

  it('never caches an error', async () => {
    const { inner, cache } = setup();
    inner.script.push(upstreamError(404));
    await expect(cache.getJson(request())).rejects.toMatchObject({ status: 404 });
    expect(valueOf(await cache.getJson(request()))).toMatchObject({ n: 1 });
  });
});

describe('stale-if-error', () => {
  it.each([
    ['a 429', () => upstreamError(429, { 'retry-after': '60' })],
    ['a 500', () => upstreamError(500)],
    ['a 503', () => upstreamError(503)],
    ['a connect error', unreachable],
    ['a timeout', timeout],
    ['a bad reply', () => new GatewayError('LGW_UPSTREAM_BAD_REPLY', 'not JSON')],
  ])('serves the last good reply, marked stale, on %s', async (_name, failure) => {
    const { inner, cache, events, advance } = setup();
    await cache.getJson(request());
    advance(45 * 60_000);
    inner.fallback = failure();
    const reply = await cache.getJson(request());
    expect(reply.servedFrom).toBe('stale');
    expect(valueOf(reply)).toEqual({ n: 1, key: 'key-a' });
    expect(events).toEqual(['miss', 'miss', 'stale']);
  });

  it.each([
    ['a 404', 404],
    ['a 401', 401],
    ['a 403', 403],
  ])('answers %s as it is, even with a reply at hand', async (_name, status) => {
    const { inner, cache, advance } = setup();
    await cache.getJson(request());
    advance(31_000);
    inner.fallback = upstreamError(status);
    await expect(cache.getJson(request())).rejects.toMatchObject({ status });
  });

  it('does not serve a reply older than an hour; the error is answered', async () => {
    const { inner, cache, advance } = setup();
    await cache.getJson(request());
    advance(3_600_000);
    inner.fallback = upstreamError(429, { 'retry-after': '60' });
    await expect(cache.getJson(request())).rejects.toMatchObject({ status: 429, headers: { 'retry-after': '60' } });
  });

  it('passes the error on when nothing was ever cached', async () => {
    const { inner, cache } = setup();
    inner.fallback = upstreamError(429, { 'retry-after': '1800' });
    await expect(cache.getJson(request())).rejects.toMatchObject({ status: 429, headers: { 'retry-after': '1800' } });
  });
});

describe('bounds', () => {
  it('holds at most maxEntries replies, evicting the least recently used', async () => {
    const { inner, cache } = setup({ maxEntries: 3 });
    for (const offset of ['0', '1', '2', '3']) await cache.getJson(request({ query: { offset } }));
    expect(cache.size()).toBe(3);
    await cache.getJson(request({ query: { offset: '0' } }));
    expect(inner.calls).toHaveLength(5);
  });

  it('holds at most maxBytes of replies, and never one larger than the whole budget', async () => {
    const big = { data: 'x'.repeat(400) };
    const { inner, cache } = setup({ maxBytes: 1000 });
    inner.fallback = jsonReply(big);
    for (const offset of ['0', '1', '2']) await cache.getJson(request({ query: { offset } }));
    expect(cache.size()).toBe(2);
    inner.fallback = jsonReply({ data: 'x'.repeat(2000) });
    await cache.getJson(request({ query: { offset: 'huge' } }));
    expect(cache.size()).toBe(2);
  });

  it('sizes a reply by the length of the text v1 sent when the client gives it, without walking the body', async () => {
    const { inner, cache } = setup({ maxBytes: 1000 });
    // A small body whose text was long (as spaces in v1's JSON would make it): the text's length counts.
    inner.fallback = jsonReply({ data: 'x' }, { textLength: 400 });
    for (const offset of ['0', '1', '2']) await cache.getJson(request({ query: { offset } }));
    expect(cache.size()).toBe(2);
    inner.fallback = jsonReply({ data: 'x' }, { textLength: 1001 });
    await cache.getJson(request({ query: { offset: 'over' } }));
    await cache.getJson(request({ query: { offset: 'over' } }));
    expect(inner.calls.filter((c) => c.query.offset === 'over')).toHaveLength(2);
  });

  it('estimates JSON size close to the serialised size', () => {
    const body = { object: 'list', total: 2, has_more: false, data: [{ id: 1, name: 'Ann', active: true, note: null }, { id: 2, name: 'Bo' }] };
    const exact = JSON.stringify(body).length;
    expect(approximateJsonBytes(body)).toBeGreaterThan(exact * 0.8);
    expect(approximateJsonBytes(body)).toBeLessThan(exact * 1.5);
  });
});

/** A v1 reply as the client gives a large one: its body, and the text it was parsed from. */
function largeReply(n: number): PlainReply {
  const value = { object: 'list', data: [{ id: n, name: 'Zoë "quoted"' }] };
  const text = JSON.stringify(value);
  return { status: 200, body: { value, text }, textLength: text.length };
}

/** The body of a reply the test does not keep, taken and watched. */
const watchedBody = (reply: V1Json): WeakRef<object> => new WeakRef(valueOf(reply) as object);

describe('large replies, kept as their text', () => {
  it('keeps the text, not the parsed body, and gives each hit a body of its own parsed from it', async () => {
    const { inner, cache } = setup();
    inner.script = [largeReply(1)];
    const miss = watchedBody(await cache.getJson(request()));
    expect(await isCollected(miss)).toBe(true);
    const [first, second] = [plain(await cache.getJson(request())), plain(await cache.getJson(request()))];
    expect([first.status, first.body.value, first.servedFrom]).toEqual([200, { object: 'list', data: [{ id: 1, name: 'Zoë "quoted"' }] }, 'fresh']);
    expect(second.body.value).toEqual(first.body.value);
    expect(second.body.value).not.toBe(first.body.value);
    expect(inner.calls).toHaveLength(1);
    // What a hit gives never carries the text.
    expect(Object.keys(first)).toEqual(['status', 'servedFrom', 'freshUntil', 'body']);
    expect(Object.keys(first.body)).toEqual(['value']);
  });

  it('serves the text, parsed, when the upstream fails (stale-if-error)', async () => {
    const { inner, cache, advance } = setup();
    inner.script = [largeReply(2)];
    await cache.getJson(request());
    advance(60_000);
    inner.fallback = upstreamError(503);
    const stale = await cache.getJson(request());
    expect([valueOf(stale), stale.servedFrom]).toEqual([{ object: 'list', data: [{ id: 2, name: 'Zoë "quoted"' }] }, 'stale']);
  });

  it('keeps a reply that comes without its text as its body, which every hit shares', async () => {
    const { cache } = setup();
    const miss = await cache.getJson(request());
    expect(valueOf(await cache.getJson(request()))).toBe(valueOf(miss));
  });
});

/** An upstream that answers each form as v1 would: `bytes` as they are, or their parse (in form `json`). */
function formsUpstream(bytes: Buffer) {
  const { inner, cache, events, advance } = setup();
  inner.fallback = upstreamError(503);
  inner.script = [];
  const answer = async (req: V1GetRequest): Promise<V1Json> =>
    boxed(
      req.form === 'bytes'
        ? { status: 200, body: { bytes }, textLength: bytes.length }
        : { status: 200, body: { value: JSON.parse(bytes.toString('utf8')) as unknown }, textLength: bytes.toString('utf8').length },
    );
  return { inner, cache, events, advance, answer };
}

/** The bytes of a reply's body, taken. */
const bytesOf = (reply: V1Json): Buffer | undefined => reply.body.take().bytes;

describe('one entry for both forms', () => {
  // Spaces and characters of two and three bytes: a hit in form `bytes` gives exactly these bytes.
  const text = '{ "object": "list", "data": [ { "id": 1, "name": "Zoë €" } ] }';
  const bytes = Buffer.from(text);
  const value = { object: 'list', data: [{ id: 1, name: 'Zoë €' }] };

  it('asks for the bytes without the translation, which it keeps; a hit gives the bytes, for the engine to translate whole', async () => {
    const { inner, cache, answer } = formsUpstream(bytes);
    inner.script = [answer];
    const translation = { id: 'list-bytes-1', open: () => ({ write: () => undefined, end: () => undefined }) };
    expect(plain(await cache.getJson(request({ form: 'bytes', translation }))).body).toEqual({ bytes });
    expect(inner.calls.map((c) => [c.form, c.translation])).toEqual([['bytes', undefined]]);
    expect(plain(await cache.getJson(request({ form: 'bytes', translation }))).body).toEqual({ bytes });
    expect(inner.calls).toHaveLength(1);
  });

  it("keeps a reply read as bytes as its bytes: a 'bytes' hit is v1's own bytes, a 'json' hit their parse", async () => {
    const { inner, cache, events, answer } = formsUpstream(bytes);
    inner.script = [answer];
    const miss = plain(await cache.getJson(request({ form: 'bytes' })));
    expect(miss).toEqual({ status: 200, freshUntil: expect.any(Number), body: { bytes: Buffer.from(text) } });
    expect(plain(await cache.getJson(request()))).toEqual({ status: 200, servedFrom: 'fresh', freshUntil: miss.freshUntil, body: { value } });
    expect(plain(await cache.getJson(request({ form: 'bytes' })))).toEqual({ status: 200, servedFrom: 'fresh', freshUntil: miss.freshUntil, body: { bytes: Buffer.from(text) } });
    expect(inner.calls).toHaveLength(1);
    expect(events).toEqual(['miss', 'hit', 'hit']);
  });

  it("gives a 'bytes' hit the kept bytes as they are, bytes that are not UTF-8 included: nothing decodes them", async () => {
    const raw = Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0x80, 0xe2, 0x82, 0xc0, 0xaf, 0xff]), Buffer.from('"}')]);
    const { inner, cache, answer } = formsUpstream(raw);
    inner.script = [answer];
    expect(bytesOf(await cache.getJson(request({ form: 'bytes' })))).toEqual(Buffer.from(raw));
    const hit = bytesOf(await cache.getJson(request({ form: 'bytes' })));
    expect(hit).toEqual(Buffer.from(raw));
    expect(hit).toBe(raw);
    // A decode and encode would have replaced each byte that is not UTF-8.
    expect(Buffer.from(raw.toString('utf8')).equals(raw)).toBe(false);
  });

  it("gives a 'bytes' hit on a kept value the bytes of its JSON.stringify", async () => {
    const { inner, cache, answer } = formsUpstream(bytes);
    inner.script = [answer];
    expect(valueOf(await cache.getJson(request()))).toEqual(value);
    expect(plain(await cache.getJson(request({ form: 'bytes' })))).toEqual({
      status: 200,
      servedFrom: 'fresh',
      freshUntil: expect.any(Number),
      body: { bytes: Buffer.from('{"object":"list","data":[{"id":1,"name":"Zoë €"}]}') },
    });
    expect(inner.calls).toHaveLength(1);
  });

  it("gives a 'bytes' hit on a large reply kept as its text the bytes of v1's own text", async () => {
    const { inner, cache } = setup();
    const large = largeReply(3);
    inner.script = [large];
    await cache.getJson(request());
    expect(plain(await cache.getJson(request({ form: 'bytes' }))).body).toEqual({ bytes: Buffer.from(large.body.text!) });
    expect(valueOf(await cache.getJson(request()))).toEqual(large.body.value);
    expect(inner.calls).toHaveLength(1);
  });

  it("answers a 'json' hit on kept bytes that are not JSON as a bad reply, as V1Client does; a 'bytes' hit still gives them", async () => {
    const broken = Buffer.from('{"data": [1, 2');
    const { inner, cache, answer } = formsUpstream(broken);
    inner.script = [answer];
    expect(plain(await cache.getJson(request({ form: 'bytes' }))).body).toEqual({ bytes: Buffer.from('{"data": [1, 2') });
    const err = await cache.getJson(request()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayError);
    expect(err).toMatchObject({ code: 'LGW_UPSTREAM_BAD_REPLY', message: 'the upstream sent a reply that is not valid JSON' });
    expect(plain(await cache.getJson(request({ form: 'bytes' }))).body).toEqual({ bytes: Buffer.from('{"data": [1, 2') });
    expect(inner.calls).toHaveLength(1);
  });

  it('serves a stale copy in the form asked for', async () => {
    const { inner, cache, advance, answer } = formsUpstream(bytes);
    inner.script = [answer];
    await cache.getJson(request({ form: 'bytes' }));
    advance(45 * 60_000);
    expect(plain(await cache.getJson(request()))).toEqual({ status: 200, servedFrom: 'stale', body: { value } });
    expect(plain(await cache.getJson(request({ form: 'bytes' })))).toEqual({ status: 200, servedFrom: 'stale', body: { bytes: Buffer.from(text) } });
  });

  it('sizes kept bytes by their length in bytes, and keeps none larger than the whole budget', async () => {
    const { inner, cache } = setup({ maxBytes: 1000 });
    // Characters of two bytes each: sized by its characters, two such replies would fit in the budget; sized
    // by its bytes, one.
    const wide = Buffer.from(`"${'é'.repeat(399)}"`);
    inner.fallback = { status: 200, body: { bytes: wide } };
    for (const offset of ['0', '1']) await cache.getJson(request({ query: { offset }, form: 'bytes' }));
    expect(cache.size()).toBe(1);
    inner.fallback = { status: 200, body: { bytes: Buffer.alloc(1001, 0x20) } };
    expect(bytesOf(await cache.getJson(request({ query: { offset: 'over' }, form: 'bytes' })))).toEqual(Buffer.alloc(1001, 0x20));
    await cache.getJson(request({ query: { offset: 'over' }, form: 'bytes' }));
    expect(inner.calls.filter((c) => c.query.offset === 'over')).toHaveLength(2);
  });
});

describe('admission (store on the second miss)', () => {
  it('does not store a key+URL asked for once; stores it on its second miss, then hits', async () => {
    const { inner, cache, events } = setup({ storeAfterMisses: 2 });
    expect(valueOf(await cache.getJson(request()))).toEqual({ n: 1, key: 'key-a' });
    expect(cache.size()).toBe(0);
    expect(valueOf(await cache.getJson(request()))).toEqual({ n: 2, key: 'key-a' });
    expect(cache.size()).toBe(1);
    const third = await cache.getJson(request());
    expect(valueOf(third)).toEqual({ n: 2, key: 'key-a' });
    expect(third.servedFrom).toBe('fresh');
    expect(inner.calls).toHaveLength(2);
    expect(events).toEqual(['miss', 'miss', 'hit']);
  });

  it('counts misses per key and URL: another key or URL does not admit this one', async () => {
    const { cache } = setup({ storeAfterMisses: 2 });
    await cache.getJson(request({ apiKey: 'key-a' }));
    await cache.getJson(request({ apiKey: 'key-b' }));
    await cache.getJson(request({ query: { offset: '10', limit: '10' } }));
    expect(cache.size()).toBe(0);
  });

  it('a stored reply that expires is refreshed on its next miss without waiting to be admitted again', async () => {
    const { inner, cache, advance } = setup({ storeAfterMisses: 2 });
    await cache.getJson(request());
    await cache.getJson(request());
    advance(30_001);
    expect(valueOf(await cache.getJson(request()))).toEqual({ n: 3, key: 'key-a' });
    expect(valueOf(await cache.getJson(request()))).toEqual({ n: 3, key: 'key-a' });
    expect(inner.calls).toHaveLength(3);
  });

  it('forgets the oldest waiting key+URL past admissionMemory', async () => {
    const { cache } = setup({ storeAfterMisses: 2, admissionMemory: 2 });
    await cache.getJson(request({ query: { offset: '0' } }));
    await cache.getJson(request({ query: { offset: '1' } }));
    await cache.getJson(request({ query: { offset: '2' } }));
    // offset 0 was forgotten: this is its first miss again; offset 2 is remembered and is stored.
    await cache.getJson(request({ query: { offset: '0' } }));
    await cache.getJson(request({ query: { offset: '2' } }));
    expect(cache.size()).toBe(1);
    await cache.getJson(request({ query: { offset: '0' } }));
    expect(cache.size()).toBe(2);
  });

  it('has nothing stale for a key+URL seen only once: the error is answered', async () => {
    const { inner, cache } = setup({ storeAfterMisses: 2 });
    await cache.getJson(request());
    inner.fallback = upstreamError(503);
    await expect(cache.getJson(request())).rejects.toMatchObject({ status: 503 });
  });
});
