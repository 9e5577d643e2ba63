// Two replicas' response caches over one real redis-server: a reply one fetched is served by the other
// with no upstream call; with Redis stopped every read is still answered (the local copy, then the
// upstream), and the shared tier works again once Redis is back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisResponseStore } from '../../../../src/gateway/state/caches/response-store-redis.js';
import type { SharedResponseStore } from '../../../../src/gateway/state/caches/response-store.js';
import { requestKey } from '../../../../src/gateway/upstream/request-key.js';
import { DEFAULT_CACHE_LIMITS, withResponseCache } from '../../../../src/gateway/upstream/response-cache.js';
import type { V1GetRequest } from '../../../../src/gateway/upstream/v1-client.js';
import { startTestRedis, type TestRedis } from '../../../helpers/redis-server.js';
import { connectTestRedis, type TestRedisPort } from '../state/node-redis-port.js';
import { boxed, fakeTransport, jsonReply, plain, request, valueOf } from './fake-transport.js';

let server: TestRedis;
const ports: TestRedisPort[] = [];

beforeAll(async () => {
  server = await startTestRedis();
});

afterAll(async () => {
  await Promise.all(ports.map((port) => port.close()));
  await server?.close();
});

async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A replica: its own Redis connection, its own upstream (counting calls), its own response cache. */
async function replica(name: string, prefix: string, sharedWaitMs?: number) {
  const redis = await connectTestRedis(server.url);
  ports.push(redis);
  const store = createRedisResponseStore({ redis, prefix });
  let n = 0;
  const inner = fakeTransport(async () => boxed(jsonReply({ from: name, n: ++n })));
  const cache = withResponseCache(inner, { ...DEFAULT_CACHE_LIMITS, defaultTtlMs: 30_000, shared: store, l1TtlMs: 5000, sharedWaitMs });
  return { redis, store, inner, cache };
}

/** Waits until the shared tier holds `req` (writes are not awaited by the read that makes them). */
const shared = (store: SharedResponseStore, req: V1GetRequest) => until(async () => (await store.get(requestKey(req))) !== undefined);

describe('the response cache over Redis, two replicas', () => {
  it('a reply cached by one replica is served by the other with no upstream call', async () => {
    const a = await replica('a', 'two:');
    const b = await replica('b', 'two:');
    const first = await a.cache.getJson(request());
    await shared(a.store, request());
    const second = await b.cache.getJson(request());
    expect(plain(second)).toEqual({ status: 200, servedFrom: 'fresh', freshUntil: first.freshUntil, body: { value: { from: 'a', n: 1 } } });
    expect(b.inner.calls).toHaveLength(0);
    // Another key never gets it.
    expect(valueOf(await b.cache.getJson(request({ apiKey: 'key-b' })))).toEqual({ from: 'b', n: 1 });
  });

  it('a reply one replica read as bytes is served by the other in either form, from their text as Redis keeps it', async () => {
    const a = await replica('a', 'forms:');
    const b = await replica('b', 'forms:');
    const text = '{ "from": "a",  "n": 1, "name": "Zoë €" }';
    a.inner.script = [{ status: 200, body: { bytes: Buffer.from(text) }, textLength: Buffer.byteLength(text) }];
    expect(plain(await a.cache.getJson(request({ form: 'bytes' }))).body).toEqual({ bytes: Buffer.from(text) });
    await shared(a.store, request());
    // Redis holds their text, in the shape of any reply the shared tier keeps as text.
    const stored = JSON.parse((await a.redis.raw.get(`forms:cache:${requestKey(request())}`)) ?? 'null') as unknown;
    expect(stored).toEqual({ status: 200, text, storedAt: expect.any(Number), ttlMs: 30_000 });
    expect(plain(await b.cache.getJson(request({ form: 'bytes' }))).body).toEqual({ bytes: Buffer.from(text) });
    expect(valueOf(await b.cache.getJson(request()))).toEqual({ from: 'a', n: 1, name: 'Zoë €' });
    expect(b.inner.calls).toHaveLength(0);
  });

  it('bytes that are not JSON are shared as their text: a JSON reader on another replica gets a bad reply, as from v1', async () => {
    const a = await replica('a', 'broken:');
    const b = await replica('b', 'broken:');
    // Written into the value as it is, this text would read back as a reply whose body is 1.
    const text = '1, "x": 2';
    a.inner.script = [{ status: 200, body: { bytes: Buffer.from(text) }, textLength: text.length }];
    await a.cache.getJson(request({ form: 'bytes' }));
    await shared(a.store, request());
    await expect(b.cache.getJson(request())).rejects.toMatchObject({ code: 'LGW_UPSTREAM_BAD_REPLY' });
    expect(plain(await b.cache.getJson(request({ form: 'bytes' }))).body).toEqual({ bytes: Buffer.from(text) });
    expect(b.inner.calls).toHaveLength(0);
  });

  it('with Redis stopped reads are answered (the local copy, then the upstream); once it is back it is shared again', async () => {
    // The shared tier is waited for ten minutes at most: a read that waited for it while Redis is down would
    // end the test by its timeout, so no clock is read here.
    const a = await replica('a', 'outage:', 600_000);
    const b = await replica('b', 'outage:', 600_000);
    const seen = request({ query: { offset: '0' } });
    await a.cache.getJson(seen);
    await shared(a.store, seen);

    await server.stop();
    await until(() => !a.redis.isUp() && !b.redis.isUp());
    expect(valueOf(await a.cache.getJson(seen))).toEqual({ from: 'a', n: 1 });
    expect(a.inner.calls).toHaveLength(1);
    const unseen = request({ query: { offset: '10' } });
    expect(valueOf(await b.cache.getJson(unseen))).toEqual({ from: 'b', n: 1 });
    expect(valueOf(await b.cache.getJson(seen))).toEqual({ from: 'b', n: 2 });

    await server.start();
    await until(() => a.redis.isUp() && b.redis.isUp());
    const after = request({ query: { offset: '20' } });
    expect(valueOf(await a.cache.getJson(after))).toEqual({ from: 'a', n: 2 });
    await shared(a.store, after);
    expect(valueOf(await b.cache.getJson(after))).toEqual({ from: 'a', n: 2 });
    expect(b.inner.calls).toHaveLength(2);
  });
});
