// Read-after-write across two replicas sharing a real redis-server (REDIS_URL, the same GATEWAY_SECRET),
// in front of one fake v1 that keeps clients and records every request. Both replicas run on one cache
// clock the test moves (no sleeping through the L1 lifetime):
// - a write on replica A is seen by A at once, and by replica B once B's own copy's L1 lifetime (5 s) has
//   passed, with no v1 call (B takes A's copy from Redis); within that window B still answers its copy;
// - the generation is stored in Redis under a hash (the API key never in clear), kept the longest TTL + 1 h;
// - Redis stopped: a write is not fatal; the writing replica stops serving its own copies of what it
//   changed at once, and says so in one log line however many writes follow.
import { Writable } from 'node:stream';
import { createClient } from '@redis/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServing } from '../../src/commands/serving.js';
import { loadConfig } from '../../src/gateway/config.js';
import { createLogger } from '../../src/gateway/logging.js';
import type { RunningGateway } from '../../src/gateway/start.js';
import { DEFAULT_L1_TTL_MS } from '../../src/gateway/upstream/response-cache.js';
import { startClientStore, type ClientStoreUpstream } from '../helpers/client-store-upstream.js';
import { fetchReply } from '../helpers/fetch-reply.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';

const GATEWAY_SECRET = 'e2e-read-after-write-gateway-secret-0123456789';
const CALLER_KEY = 'caller-key-REPLICAS-READ-AFTER-WRITE';
const PREFIX = 'raw:';
/** The longest TTL of the shipped read mappings (team listings, 5 minutes) plus the hour of stale-if-error. */
const GENERATION_KEEP_MS = 300_000 + 3_600_000;

let v1: ClientStoreUpstream;
let redis: TestRedis;
let raw: ReturnType<typeof createClient>;
let clock = Date.now();
const replicas: Array<RunningGateway & { logs: string[] }> = [];

async function startReplica(): Promise<RunningGateway & { logs: string[] }> {
  // The payments here are writes whose reads are checked, made while Redis is down too: the duplicate
  // check, which refuses keyless payments while its store cannot be reached, is off.
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', UPSTREAM_URL: v1.url, REDIS_URL: redis.url, GATEWAY_SECRET, REDIS_KEY_PREFIX: PREFIX, PAYMENT_DUPLICATE_WINDOW_S: '0' });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logs.push(...chunk.toString('utf8').split('\n').filter((l) => l !== ''));
      done();
    },
  });
  const replica = Object.assign(await startServing({ config, logger: createLogger(config.logLevel, sink), now: () => clock }), { logs });
  replicas.push(replica);
  return replica;
}

/** Resolves once the replica's Redis connection is `up` (at once when it is that already). */
function redisBecomes(replica: RunningGateway, up: boolean): Promise<void> {
  const connection = replica.redis!;
  if (connection.isUp() === up) return Promise.resolve();
  return new Promise((resolve) => connection.onStateChange((now) => now === up && resolve()));
}

beforeAll(async () => {
  v1 = await startClientStore([{ object: 'client', id: 1, first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com', status: 'active' }]);
  redis = await startTestRedis();
  raw = createClient({ url: redis.url });
  raw.on('error', () => undefined);
  await raw.connect();
});
afterAll(async () => {
  for (const replica of replicas) await replica.close();
  raw.destroy();
  await redis.close();
  await v1.close();
  const lines = replicas.flatMap((r) => r.logs).join('\n');
  for (const secret of [CALLER_KEY, GATEWAY_SECRET]) expect(lines).not.toContain(secret);
});

const read = (replica: RunningGateway, path: string) => fetchReply(`${replica.url}${path}`, { headers: { 'x-api-key': CALLER_KEY } });
const pay = (replica: RunningGateway, email: string) =>
  fetchReply(`${replica.url}/api/payment`, {
    method: 'POST',
    body: new URLSearchParams({ first_name: 'Grace', last_name: 'Hopper', state: 'VA', country: 'US', status: 'active', email, revenue_amount: '45.50', send_email: '0' }),
    headers: { 'x-api-key': CALLER_KEY },
  });
const lookupCall = (email: string) => `GET /api/v1/clients?email=${encodeURIComponent(email)}&offset=0&limit=1000`;
const NOT_FOUND = '{"status":"failure","response":"client not found"}';

describe('two replicas sharing Redis', () => {
  let a: RunningGateway & { logs: string[] };
  let b: RunningGateway & { logs: string[] };
  beforeAll(async () => {
    a = await startReplica();
    b = await startReplica();
    await Promise.all([redisBecomes(a, true), redisBecomes(b, true)]);
  });

  it('a write on one replica is seen by the other once its L1 lifetime has passed, from Redis, with no v1 call', async () => {
    const lookup = '/api/client?email=grace@example.com';
    const start = v1.received.length;
    expect((await read(b, lookup)).text).toBe(NOT_FOUND);
    // A takes B's copy from Redis: no v1 call.
    expect((await read(a, lookup)).text).toBe(NOT_FOUND);
    expect(v1.since(start)).toEqual([lookupCall('grace@example.com')]);

    expect((await pay(a, 'grace@example.com')).body).toMatchObject({ status: 'success', code: 12 });
    const afterPayment = v1.received.length;
    const found = await read(a, lookup);
    expect(found.body).toMatchObject({ status: 'success', response: { id: '2', email: 'grace@example.com' } });
    expect(v1.since(afterPayment)).toEqual([lookupCall('grace@example.com')]);

    // Within its L1 lifetime B still answers from its own copy (the documented window).
    expect((await read(b, lookup)).text).toBe(NOT_FOUND);
    clock += DEFAULT_L1_TTL_MS;
    const seen = await read(b, lookup);
    expect(seen.text).toBe(found.text);
    // B adopted A's generation and took A's copy from Redis.
    expect(v1.since(afterPayment)).toEqual([lookupCall('grace@example.com')]);
  });

  it('stores each generation in Redis under a hash, never the API key, for the longest TTL plus an hour', async () => {
    const keys = await raw.keys(`${PREFIX}gen:*`);
    // The payment wrote clients and payments for the one key.
    expect(keys).toHaveLength(2);
    for (const key of keys) {
      expect(key).toMatch(/^raw:gen:[A-Za-z0-9_-]{43}$/);
      const ttl = await raw.pTTL(key);
      expect(ttl).toBeGreaterThan(GENERATION_KEEP_MS - 60_000);
      expect(ttl).toBeLessThanOrEqual(GENERATION_KEEP_MS);
    }
    const everything = await raw.keys('*');
    expect(everything.join('\n')).not.toContain(CALLER_KEY);
  });

  it('Redis stopped: a write is not fatal, its own replica stops serving what it changed, one log line for many writes', async () => {
    const lookup = '/api/client?email=dorothy@example.com';
    expect((await read(a, lookup)).text).toBe(NOT_FOUND);
    const down = redisBecomes(a, false);
    await redis.stop();
    await down;

    expect((await pay(a, 'dorothy@example.com')).body).toMatchObject({ status: 'success', code: 12 });
    const afterPayment = v1.received.length;
    expect((await read(a, lookup)).body).toMatchObject({ status: 'success', response: { email: 'dorothy@example.com' } });
    expect(v1.since(afterPayment)).toEqual([lookupCall('dorothy@example.com')]);

    expect((await pay(a, 'dorothy.two@example.com')).body).toMatchObject({ status: 'success', code: 12 });
    expect(a.logs.filter((l) => l.includes('a write could not be told to Redis'))).toHaveLength(1);
  });
});
