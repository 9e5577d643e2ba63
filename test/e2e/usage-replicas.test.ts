// "Who still calls the old API" across two replicas sharing one real redis-server (REDIS_URL, the same
// GATEWAY_SECRET), each with its metrics listener (METRICS_PORT), in front of one fake v1:
// - legacy calls with two API keys (and one without a key), spread over both replicas, are counted per
//   key fingerprint; once both have flushed, both replicas' GET /usage agree, with the exact counts and
//   methods; the passthrough and health are not counted; /usage is not on the public port;
// - no API key appears in /usage, in Redis's keys or in any log line; the Redis hashes carry a TTL;
// - the CLI's table (run in process) shows both integrations; --fingerprint-of finds one by its key;
// - Redis stopped: calls are still answered and counted in process, and reach Redis once it is back;
// - the Redis store applies a batch once (a retry of an applied batch changes nothing), and counts the
//   fingerprints past its bound under `other`.
import net from 'node:net';
import { Writable } from 'node:stream';
import { createClient } from '@redis/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runUsage, type UsageIo } from '../../src/commands/usage.js';
import { startServing } from '../../src/commands/serving.js';
import { loadConfig } from '../../src/gateway/config.js';
import { createLogger } from '../../src/gateway/logging.js';
import type { RunningGateway } from '../../src/gateway/start.js';
import { createRedisConnection, type RedisConnection } from '../../src/gateway/state/redis-connection.js';
import { createRedisUsageStore } from '../../src/gateway/state/usage/usage-redis.js';
import { usageFingerprint, type IntegrationUsage, type UsageReport } from '../../src/gateway/state/usage/usage-tracker.js';
import { startClientStore, type ClientStoreUpstream } from '../helpers/client-store-upstream.js';
import { fetchReply } from '../helpers/fetch-reply.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';

const GATEWAY_SECRET = 'e2e-usage-gateway-secret-0123456789';
const KEY_A = 'caller-key-USAGE-ALPHA-7f3a';
const KEY_B = 'caller-key-USAGE-BRAVO-91cd';
const PREFIX = 'use:';
const FP_A = usageFingerprint(GATEWAY_SECRET, KEY_A);
const FP_B = usageFingerprint(GATEWAY_SECRET, KEY_B);
const FP_NONE = usageFingerprint(GATEWAY_SECRET, '');

type Replica = RunningGateway & { logs: string[] };

let v1: ClientStoreUpstream;
let redis: TestRedis;
let raw: ReturnType<typeof createClient>;
const replicas: Replica[] = [];

async function startReplica(): Promise<Replica> {
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    METRICS_PORT: '0',
    UPSTREAM_URL: v1.url,
    REDIS_URL: redis.url,
    GATEWAY_SECRET,
    REDIS_KEY_PREFIX: PREFIX,
    PAYMENT_DUPLICATE_WINDOW_S: '0',
  });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logs.push(...chunk.toString('utf8').split('\n').filter((l) => l !== ''));
      done();
    },
  });
  const replica = Object.assign(await startServing({ config, logger: createLogger(config.logLevel, sink) }), { logs });
  replicas.push(replica);
  return replica;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `condition` holds (the replicas flush every few seconds), bounded. */
async function until<T>(what: string, read: () => Promise<T>, condition: (value: T) => boolean, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (condition(value)) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await sleep(100);
  }
}

async function usageOf(replica: Replica): Promise<{ status: number; text: string; report: UsageReport }> {
  const reply = await fetchReply(`${replica.metricsUrl!}/usage`);
  return { status: reply.status, text: reply.text, report: reply.body as UsageReport };
}

/** A fingerprint's calls in a report (0 when it is not there, or the reply was a 503's error). */
const callsOf = (report: UsageReport, fingerprint: string): number => (report.integrations ?? []).find((i) => i.fingerprint === fingerprint)?.calls ?? 0;

const read = (replica: Replica, path: string, key: string | undefined, agent: string) =>
  fetchReply(`${replica.url}${path}`, { headers: { ...(key ? { 'x-api-key': key } : {}), 'user-agent': agent } });
const pay = (replica: Replica, key: string, email: string) =>
  fetchReply(`${replica.url}/api/payment`, {
    method: 'POST',
    body: new URLSearchParams({ first_name: 'Grace', last_name: 'Hopper', state: 'VA', country: 'US', status: 'active', email, revenue_amount: '45.50', send_email: '0' }),
    headers: { 'x-api-key': key, 'user-agent': 'billing-cron/2.1' },
  });

beforeAll(async () => {
  v1 = await startClientStore([{ object: 'client', id: 1, first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com', status: 'active' }]);
  redis = await startTestRedis();
  raw = createClient({ url: redis.url });
  raw.on('error', () => undefined);
  await raw.connect();
  await startReplica();
  await startReplica();
});

afterAll(async () => {
  for (const replica of replicas) await replica.close();
  raw.destroy();
  await redis?.close();
  await v1?.close();
  const lines = replicas.flatMap((r) => r.logs).join('\n');
  expect(lines.length).toBeGreaterThan(0);
  for (const secret of [KEY_A, KEY_B, GATEWAY_SECRET]) expect(lines).not.toContain(secret);
});

describe('GET /usage across two replicas sharing Redis', () => {
  it('counts each key\'s legacy calls on both replicas, and both agree once flushed', async () => {
    const [a, b] = replicas as [Replica, Replica];
    // KEY_A: 3 clients pages (2 on A, 1 on B), 1 client lookup on B, 1 payment on A.
    // KEY_B: 2 clients pages on B, in the query string once; one call without any key on A.
    const replies = await Promise.all([
      read(a, '/api/clients/0/50', KEY_A, 'crm-sync/1.0'),
      read(a, '/api/clients/0/10', KEY_A, 'crm-sync/1.0'),
      read(b, '/api/clients/0/50', KEY_A, 'crm-sync/\t1.1'),
      read(b, '/api/client?id=1', KEY_A, 'crm-sync/1.0'),
      pay(a, KEY_A, 'grace@example.com'),
      read(b, '/api/clients/0/5', KEY_B, 'shop-widget/3'),
      read(b, `/api/clients/0/5?api_key=${KEY_B}`, undefined, 'shop-widget/3'),
      read(a, '/api/clients/0/1', undefined, 'anonymous/0'),
    ]);
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200, 200, 200]);
    // Not legacy calls: the passthrough and health; never counted.
    await read(a, '/api/v1/clients', KEY_A, 'crm-sync/1.0');
    await read(b, '/healthz', KEY_B, 'probe/1');
    // /usage is the metrics listener's alone.
    expect((await fetchReply(`${a.url}/usage`, { headers: { 'x-api-key': KEY_A } })).status).not.toBe(200);

    const expected = (report: UsageReport) => callsOf(report, FP_A) === 5 && callsOf(report, FP_B) === 2 && callsOf(report, FP_NONE) === 1;
    const fromA = await until('replica A to see every call', () => usageOf(a).then((u) => u.report), expected);
    const fromB = await until('replica B to see every call', () => usageOf(b).then((u) => u.report), expected);
    expect(fromB).toEqual(fromA);
    expect(fromA.shared).toBe(true);
    expect(fromA.integrations).toHaveLength(3);
    const by = new Map<string, IntegrationUsage>(fromA.integrations.map((i) => [i.fingerprint, i]));
    expect(by.get(FP_A)).toMatchObject({ calls: 5, methods: { clients: 3, client: 1, payment: 1 } });
    expect([...(by.get(FP_A)?.userAgents ?? [])].sort()).toEqual(['billing-cron/2.1', 'crm-sync/1.0', 'crm-sync/1.1']);
    expect(by.get(FP_B)).toMatchObject({ calls: 2, methods: { clients: 2 }, userAgents: ['shop-widget/3'] });
    expect(by.get(FP_NONE)).toMatchObject({ calls: 1, methods: { clients: 1 }, userAgents: ['anonymous/0'] });
    for (const i of fromA.integrations) {
      expect(Date.parse(i.firstSeen)).toBeLessThanOrEqual(Date.parse(i.lastSeen));
      expect(new Date(i.lastSeen).toISOString()).toBe(i.lastSeen);
    }
    // Most recently seen first.
    const seen = fromA.integrations.map((i) => i.lastSeen);
    expect([...seen].sort().reverse()).toEqual(seen);

    // No key anywhere: not in /usage, not in Redis's key names or values.
    const { text } = await usageOf(a);
    for (const key of [KEY_A, KEY_B]) expect(text).not.toContain(key);
    const names = await raw.keys(`${PREFIX}usage:*`);
    expect(names).toContain(`${PREFIX}usage:${FP_A}`);
    expect(names).toContain(`${PREFIX}usage:index`);
    const dump = JSON.stringify([names, await raw.hGetAll(`${PREFIX}usage:${FP_A}`), await raw.sMembers(`${PREFIX}usage:index`)]);
    for (const key of [KEY_A, KEY_B]) expect(dump).not.toContain(key);
    // Kept 90 days after the last call.
    const ttl = await raw.pTTL(`${PREFIX}usage:${FP_A}`);
    expect(ttl).toBeGreaterThan(89 * 24 * 3_600_000);
    expect(ttl).toBeLessThanOrEqual(90 * 24 * 3_600_000);
  });

  it('prints the table with the CLI, and finds an integration by its key', async () => {
    const [a] = replicas as [Replica, Replica];
    const out: string[] = [];
    const err: string[] = [];
    const io: UsageIo = { out: (t) => out.push(t), err: (t) => err.push(t), fetch: (...args) => fetch(...args), readStdin: () => Promise.resolve(`${KEY_B}\n`) };
    await runUsage({ url: `${a.metricsUrl!}/metrics` }, {}, io);
    expect(process.exitCode ?? 0).toBe(0);
    expect(err).toEqual([]);
    const table = out.join('');
    // The table, then how each integration calls, after a blank line.
    const lines = (table.split('\n\n')[0] ?? '').trimEnd().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+FINGERPRINT\s+CALLS\s+LAST SEEN\s+TOP METHODS\s+USER AGENTS$/);
    expect(lines).toHaveLength(4);
    const rowA = lines.find((l) => new RegExp(`^-\\s+${FP_A}\\s`).test(l));
    expect(rowA).toMatch(/\s5\s/);
    expect(rowA).toContain('clients 3, client 1, payment 1');
    expect(rowA).toContain('crm-sync/1.0');
    for (const key of [KEY_A, KEY_B]) expect(table).not.toContain(key);

    out.length = 0;
    await runUsage({ url: a.metricsUrl!, fingerprintOf: '-', json: true }, { GATEWAY_SECRET }, io);
    expect(JSON.parse(out.join(''))).toMatchObject({ integrations: [{ fingerprint: FP_B, calls: 2 }] });

    out.length = 0;
    await runUsage({ fingerprintOf: KEY_A }, { GATEWAY_SECRET }, io);
    expect(out.join('')).toBe(`${FP_A}\n`);

    // A listener that cannot be reached (a port that was free a moment ago): exit 1.
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as net.AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    await runUsage({ url: `http://127.0.0.1:${port}` }, {}, io);
    expect(process.exitCode).toBe(1);
    expect(err.join('')).toContain(`cannot fetch http://127.0.0.1:${port}/usage: ECONNREFUSED`);
    // The public port is no metrics listener: exit 1 too.
    await runUsage({ url: a.url }, {}, io);
    expect(err.join('')).toMatch(/cannot fetch .*\/usage: HTTP \d+/);
    expect(process.exitCode).toBe(1);
    process.exitCode = 0;
  });

  it('keeps counting while Redis is down, answers every call, and writes the counts once Redis is back', async () => {
    const [a, b] = replicas as [Replica, Replica];
    const before = callsOf((await usageOf(a)).report, FP_B);
    await redis.stop();
    await until('replica A to see Redis down', () => Promise.resolve(a.redis!.isUp()), (up) => !up);
    // Served while Redis is down; the shared counts cannot be read: 503, never a partial answer.
    for (let i = 0; i < 4; i += 1) expect((await read(a, '/api/clients/0/5', KEY_B, 'shop-widget/3')).status).toBe(200);
    expect((await usageOf(a)).status).toBe(503);
    await redis.start();
    const report = await until('replica A to write its counts to Redis again', () => usageOf(b).then((u) => u.report), (r) => callsOf(r, FP_B) === before + 4, 20_000);
    expect(callsOf(report, FP_B)).toBe(before + 4);
    expect(a.logs.filter((l) => l.includes('cannot be written to Redis')).length).toBeLessThanOrEqual(1);
  });
});

describe('the Redis usage store', () => {
  let connection: RedisConnection;
  beforeAll(async () => {
    connection = createRedisConnection({ url: redis.url, logger: createLogger('silent') });
    await connection.started;
  });
  afterAll(async () => {
    await connection.close();
  });

  it('applies a batch once: a retry of an applied batch (same source and sequence number) changes nothing', async () => {
    const store = createRedisUsageStore({ redis: connection, prefix: 'once:' });
    const days = { '2023-11-14': 3 };
    const tally = { fingerprint: 'f'.repeat(64), calls: 3, methods: { clients: 3 }, statuses: { '200': 3 }, paymentCodes: {}, shapes: { clients: 3 }, daily: days, first: 1_700_000_000_000, last: 1_700_000_005_000, agents: ['x/1'] };
    const oldestDay = '2023-08-17';
    await store.apply({ source: 'p1', seq: 1, oldestDay, tallies: [tally] });
    await store.apply({ source: 'p1', seq: 1, oldestDay, tallies: [tally] });
    const payment = { calls: 1, methods: { payment: 1 }, statuses: { '200': 1 }, paymentCodes: { '12': 1 }, shapes: { payment: 1 }, daily: { '2023-11-14': 1 } };
    await store.apply({ source: 'p1', seq: 2, oldestDay, tallies: [{ ...tally, ...payment, first: 1_600_000_000_000, last: 1_650_000_000_000 }] });
    await store.apply({ source: 'p2', seq: 1, oldestDay, tallies: [{ ...tally, calls: 2, methods: { clients: 2 }, statuses: { '200': 1, '400': 1 }, shapes: { 'clients?x': 2 }, daily: { '2023-11-15': 2 }, agents: ['y/2'] }] });
    expect(await store.read()).toEqual([
      {
        fingerprint: 'f'.repeat(64),
        calls: 6,
        methods: { clients: 5, payment: 1 },
        statuses: { '200': 5, '400': 1 },
        paymentCodes: { '12': 1 },
        shapes: { clients: 3, 'clients?x': 2, payment: 1 },
        daily: { '2023-11-14': 4, '2023-11-15': 2 },
        firstSeen: new Date(1_600_000_000_000).toISOString(),
        lastSeen: new Date(1_700_000_005_000).toISOString(),
        userAgents: ['x/1', 'y/2'],
      },
    ]);
  });

  it('counts fingerprints past its bound under `other`, keeps a few agents, and forgets expired ones', async () => {
    const store = createRedisUsageStore({ redis: connection, prefix: 'bound:', limits: { maxFingerprints: 2, maxAgentsPerKey: 2 } });
    const tally = (n: number) => ({
      fingerprint: String(n).repeat(64).slice(0, 64),
      calls: 1,
      methods: { clients: 1 },
      statuses: {},
      paymentCodes: {},
      shapes: { clients: 1 },
      daily: { '2023-11-14': 1 },
      first: 1_700_000_000_000,
      last: 1_700_000_000_000 + n,
      agents: [`a/${n}`, `b/${n}`, `c/${n}`],
    });
    await store.apply({ source: 'p', seq: 1, oldestDay: '2023-08-17', tallies: [1, 2, 3, 4].map(tally) });
    const list = await store.read();
    expect(list.map((i) => i.fingerprint).sort()).toEqual(['1'.repeat(64), '2'.repeat(64), 'other']);
    expect(list.find((i) => i.fingerprint === 'other')).toMatchObject({ calls: 2, userAgents: ['a/3', 'b/3'] });
    await raw.del(`bound:usage:${'1'.repeat(64)}`);
    expect((await store.read()).map((i) => i.fingerprint).sort()).toEqual(['2'.repeat(64), 'other']);
    expect(await raw.sMembers('bound:usage:index')).not.toContain('1'.repeat(64));
  });

  it('keeps a few shapes per fingerprint, then (other); drops the days before the oldest kept; every key expires', async () => {
    const store = createRedisUsageStore({ redis: connection, prefix: 'shapes:', limits: { maxShapesPerKey: 2 } });
    const fp = 'e'.repeat(64);
    const tally = (shapes: Record<string, number>, daily: Record<string, number>) => ({ fingerprint: fp, calls: 1, methods: {}, statuses: {}, paymentCodes: {}, shapes, daily, first: 1, last: 1, agents: [] });
    await store.apply({ source: 'p', seq: 1, oldestDay: '2027-01-01', tallies: [tally({ 'client?id': 1, 'client?email': 2 }, { '2027-01-01': 3, '2027-01-02': 1 })] });
    await store.apply({ source: 'p', seq: 2, oldestDay: '2027-01-02', tallies: [tally({ 'client?id': 1, 'client?username': 4 }, { '2026-12-31': 7, '2027-01-03': 2 })] });
    const [entry] = await store.read();
    expect(entry?.shapes).toEqual({ '(other)': 4, 'client?email': 2, 'client?id': 2 });
    expect(entry?.daily).toEqual({ '2027-01-02': 1, '2027-01-03': 2 });
    for (const key of ['', ':shapes', ':days']) expect(await raw.pTTL(`shapes:usage:${fp}${key}`)).toBeGreaterThan(89 * 24 * 3_600_000);
  });
});
