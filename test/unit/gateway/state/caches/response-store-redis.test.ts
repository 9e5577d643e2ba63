// The read cache's Redis tier against a real redis-server: the key and value it writes, the time Redis
// keeps them, what it refuses to store, what it refuses to read back, and Redis going down and up.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SharedRedis } from '../../../../../src/gateway/state/shared-redis.js';
import { createRedisResponseStore } from '../../../../../src/gateway/state/caches/response-store-redis.js';
import type { StoredReply } from '../../../../../src/gateway/state/caches/response-store.js';
import { startTestRedis, type TestRedis } from '../../../../helpers/redis-server.js';
import { connectTestRedis, type TestRedisPort } from '../node-redis-port.js';
import { settlesAtOnce } from '../../../../helpers/settles-at-once.js';

const reply: StoredReply = { status: 200, body: { object: 'list', data: [{ id: 1, name: 'Ann' }] }, storedAt: 1_700_000_000_000, ttlMs: 30_000 };

let server: TestRedis;
let redis: TestRedisPort;

beforeAll(async () => {
  server = await startTestRedis({ persistence: 'none' });
  redis = await connectTestRedis(server.url);
});

afterAll(async () => {
  await redis?.close();
  await server?.close();
});

async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('the Redis response store', () => {
  it('writes the reply as JSON under <prefix>cache:<hash>, kept for the time it is given (PX), and reads it back', async () => {
    const store = createRedisResponseStore({ redis, prefix: 'lgw:' });
    await store.set('hash-1', reply, 3_630_000);
    expect(JSON.parse((await redis.raw.get('lgw:cache:hash-1')) ?? 'null')).toEqual(reply);
    expect(Object.keys(JSON.parse((await redis.raw.get('lgw:cache:hash-1')) ?? '{}'))).toEqual(['status', 'body', 'storedAt', 'ttlMs']);
    const ttl = await redis.raw.pTTL('lgw:cache:hash-1');
    expect(ttl).toBeGreaterThan(3_620_000);
    expect(ttl).toBeLessThanOrEqual(3_630_000);
    expect(await store.get('hash-1')).toEqual(reply);
  });

  it("writes v1's own text of the body as it is when given, and reads the reply back without it", async () => {
    const store = createRedisResponseStore({ redis, prefix: 'lgw:' });
    const bodyText = '{ "object": "list",  "data": [ {"id": 1, "name": "Ann"} ] }';
    await store.set('hash-text', { ...reply, bodyText }, 60_000);
    expect(await redis.raw.get('lgw:cache:hash-text')).toBe(`{"status":200,"body":${bodyText},"storedAt":1700000000000,"ttlMs":30000}`);
    expect(await store.get('hash-text')).toEqual(reply);
  });

  it('writes a reply kept as text (one read as bytes) with its text as a JSON string, and reads it back as that text', async () => {
    const store = createRedisResponseStore({ redis, prefix: 'lgw:' });
    // Not JSON: written as it is, it would make the value a reply whose body is 1.
    const texts = ['{ "object": "list",  "data": [] }', '1, "x": 2'];
    for (const [n, text] of texts.entries()) {
      const stored: StoredReply = { status: 200, text, storedAt: 1_700_000_000_000, ttlMs: 30_000 };
      await store.set(`hash-as-text-${n}`, stored, 60_000);
      expect(await redis.raw.get(`lgw:cache:hash-as-text-${n}`)).toBe(`{"status":200,"text":${JSON.stringify(text)},"storedAt":1700000000000,"ttlMs":30000}`);
      expect(await store.get(`hash-as-text-${n}`)).toEqual(stored);
    }
  });

  it("bounds a value written from v1's text as any other", async () => {
    const store = createRedisResponseStore({ redis, prefix: 'lgw:', maxValueBytes: 1000 });
    await store.set('big-text', { ...reply, bodyText: JSON.stringify({ data: 'é'.repeat(600) }) }, 60_000);
    expect(await redis.raw.exists('lgw:cache:big-text')).toBe(0);
  });

  it('answers undefined for a key it never stored, and keeps prefixes apart', async () => {
    const one = createRedisResponseStore({ redis, prefix: 'one:' });
    const two = createRedisResponseStore({ redis, prefix: 'two:' });
    await one.set('hash-2', reply, 60_000);
    expect(await two.get('hash-2')).toBeUndefined();
    expect(await one.get('never-stored')).toBeUndefined();
  });

  it('does not store a value over its byte bound (counted in UTF-8)', async () => {
    const store = createRedisResponseStore({ redis, prefix: 'lgw:', maxValueBytes: 1000 });
    await store.set('big', { ...reply, body: { data: 'x'.repeat(1000) } }, 60_000);
    await store.set('wide', { ...reply, body: { data: 'é'.repeat(600) } }, 60_000);
    await store.set('small', { ...reply, body: { data: 'é'.repeat(300) } }, 60_000);
    expect(await redis.raw.exists(['lgw:cache:big', 'lgw:cache:wide'])).toBe(0);
    expect(await store.get('small')).toMatchObject({ body: { data: 'é'.repeat(300) } });
  });

  it.each([
    ['not JSON', '{"status":200,'],
    ['not a reply', '{"hello":"world"}'],
    ['an error status', JSON.stringify({ ...reply, status: 503 })],
    ['no body', JSON.stringify({ status: 200, storedAt: 1, ttlMs: 1 })],
    ['a text that is not a string', JSON.stringify({ status: 200, text: { a: 1 }, storedAt: 1, ttlMs: 1 })],
  ])('reads a value that is %s as no reply', async (_name, text) => {
    const store = createRedisResponseStore({ redis, prefix: 'lgw:' });
    await redis.raw.set('lgw:cache:odd', text);
    expect(await store.get('odd')).toBeUndefined();
  });

  it('keeps a body of null, which is a reply', async () => {
    const store = createRedisResponseStore({ redis, prefix: 'lgw:' });
    await store.set('null-body', { ...reply, body: null }, 60_000);
    expect(await store.get('null-body')).toEqual({ ...reply, body: null });
  });

  it('bounds the writes waiting for Redis: past the bound a reply is not stored', async () => {
    const waiting: Array<() => void> = [];
    const written: string[] = [];
    const slow: SharedRedis = {
      isUp: () => true,
      get: async () => null,
      set: (key) => new Promise((resolve) => waiting.push(() => resolve(written.push(key) > 0))),
      publish: async () => undefined,
      subscribe: async () => undefined,
      onStateChange: () => undefined,
      close: async () => undefined,
    };
    const store = createRedisResponseStore({ redis: slow, prefix: 'p:', maxPendingWrites: 2 });
    const writes = ['a', 'b', 'c'].map((key) => store.set(key, reply, 1000));
    await writes[2];
    expect(waiting).toHaveLength(2);
    waiting.forEach((release) => release());
    await Promise.all(writes);
    expect(written).toEqual(['p:cache:a', 'p:cache:b']);
    // Once they are answered there is room again.
    const later = store.set('d', reply, 1000);
    expect(waiting).toHaveLength(3);
    waiting[2]!();
    await later;
    expect(written).toEqual(['p:cache:a', 'p:cache:b', 'p:cache:d']);
  });

  it('while Redis is down: a read rejects at once, a write is skipped; both work again once it is back', async () => {
    const store = createRedisResponseStore({ redis, prefix: 'lgw:' });
    await store.set('before', reply, 60_000);
    await server.stop();
    await until(() => !redis.isUp());
    // Neither waits on a socket or a timer: both have settled by the event loop's next turn.
    expect(await settlesAtOnce(store.get('before'))).toMatchObject({ state: 'rejected' });
    expect(await settlesAtOnce(store.set('during', reply, 60_000))).toEqual({ state: 'fulfilled', value: undefined });
    await server.start();
    await until(() => redis.isUp());
    // No persistence: what was stored before the outage is gone, as after a real restart without it.
    expect(await store.get('before')).toBeUndefined();
    await store.set('after', reply, 60_000);
    expect(await store.get('after')).toEqual(reply);
  });
});
