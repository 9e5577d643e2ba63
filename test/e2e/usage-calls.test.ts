// How each integration calls, black box: two replicas of `serve` over the embedded v1 sandbox, sharing one
// real redis-server (REDIS_URL, the same GATEWAY_SECRET), their clock handed in and moved by the test,
// INTEGRATIONS_FILE naming the sandbox's primary key. Legacy calls spread over both replicas and over two UTC
// days; once both replicas have flushed (awaited), both GET /usage replies are the same bytes, and give per
// integration its name, the HTTP statuses (a 404 lookup, a 403 of the key not allowed, a 400 of bad paging),
// the payment codes (12 paid, 11 the card refused), the call shapes (method and query parameter names, never
// values, never api_key) and the calls per day; 90 days on, the oldest day is dropped, in Redis too.
// `legacy-gateway usage` prints them, and `--json` gives them.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { createClient } from '@redis/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runUsage, type UsageIo } from '../../src/commands/usage.js';
import { startServing } from '../../src/commands/serving.js';
import { loadConfig } from '../../src/gateway/config.js';
import { createLogger } from '../../src/gateway/logging.js';
import type { RunningGateway } from '../../src/gateway/start.js';
import { usageFingerprint, type IntegrationUsage, type UsageReport } from '../../src/gateway/state/usage/usage-tracker.js';
import { SANDBOX_KEYS } from '../../src/sandbox/index.js';
import { fetchReply } from '../helpers/fetch-reply.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';

const SECRET = 'e2e-usage-calls-gateway-secret-0123456789';
const PREFIX = 'calls:';
const FP_PRIMARY = usageFingerprint(SECRET, SANDBOX_KEYS.primary);
const FP_SECONDARY = usageFingerprint(SECRET, SANDBOX_KEYS.secondary);
const FP_NONE = usageFingerprint(SECRET, '');

let clock = Date.parse('2027-01-11T23:59:00Z');
let dir: string;
let redis: TestRedis;
let raw: ReturnType<typeof createClient>;
type Replica = RunningGateway & { logs: string[] };
const replicas: Replica[] = [];

async function startReplica(integrationsFile: string): Promise<Replica> {
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    METRICS_PORT: '0',
    REDIS_URL: redis.url,
    REDIS_KEY_PREFIX: PREFIX,
    GATEWAY_SECRET: SECRET,
    INTEGRATIONS_FILE: integrationsFile,
    PAYMENT_DUPLICATE_WINDOW_S: '0',
  });
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

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'lgw-usage-calls-'));
  const file = path.join(dir, 'integrations.yaml');
  writeFileSync(file, `integrations:\n  - name: crm-sync\n    owner: CRM team <crm@example.com>\n    fingerprints: ["${FP_PRIMARY}"]\n`);
  redis = await startTestRedis();
  raw = createClient({ url: redis.url });
  raw.on('error', () => undefined);
  await raw.connect();
  await startReplica(file);
  await startReplica(file);
});

afterAll(async () => {
  for (const replica of replicas) await replica.close();
  raw?.destroy();
  await redis?.close();
  rmSync(dir, { recursive: true, force: true });
  const lines = replicas.flatMap((r) => r.logs).join('\n');
  for (const secret of [SANDBOX_KEYS.primary, SANDBOX_KEYS.secondary, SECRET]) expect(lines).not.toContain(secret);
});

const read = (replica: RunningGateway, target: string, key?: string) => fetchReply(`${replica.url}${target}`, { headers: key === undefined ? {} : { 'x-api-key': key } });
const pay = (replica: RunningGateway, fields: Record<string, string>) =>
  fetchReply(`${replica.url}/api/payment`, { method: 'POST', body: new URLSearchParams(fields), headers: { 'x-api-key': SANDBOX_KEYS.primary } });

/** Both replicas' counts handed to Redis (awaited, not waited for), then each one's GET /usage. */
async function flushedUsage(): Promise<Array<{ text: string; report: UsageReport }>> {
  await Promise.all(replicas.map((r) => r.usage.flush()));
  return Promise.all(
    replicas.map(async (r) => {
      const reply = await fetchReply(`${r.metricsUrl!}/usage`);
      expect(reply.status).toBe(200);
      return { text: reply.text, report: reply.body as UsageReport };
    }),
  );
}

const entry = (report: UsageReport, fingerprint: string): IntegrationUsage | undefined => report.integrations.find((i) => i.fingerprint === fingerprint);

describe('how each integration calls, across two replicas sharing Redis', () => {
  it('counts statuses, payment codes, call shapes and days, named; both replicas agree once flushed', async () => {
    const [a, b] = replicas as [Replica, Replica];
    // 2027-01-11, 23:59 UTC.
    expect((await read(a, '/api/clients/0/5', SANDBOX_KEYS.primary)).status).toBe(200);
    expect((await read(b, '/api/client?id=1', SANDBOX_KEYS.primary)).status).toBe(200);
    expect((await read(b, '/api/client?email=nobody%40example.com&id=', SANDBOX_KEYS.primary)).status).toBe(404);
    // 2027-01-12, 00:01 UTC.
    clock += 2 * 60_000;
    const paid = await pay(a, { client_id: '1', revenue_amount: '45.50', send_email: '0' });
    expect(paid.body).toMatchObject({ status: 'success', code: 12 });
    const refused = await pay(b, { client_id: '1', revenue_amount: '45.50', send_email: '0', token: 'tok_declined' });
    expect(refused.body).toMatchObject({ status: 'failure', code: 11 });
    expect((await read(a, '/api/staffs/0/1', SANDBOX_KEYS.secondary)).status).toBe(403);
    expect((await read(a, `/api/clients/0/2?api_key=${SANDBOX_KEYS.secondary}`)).status).toBe(200);
    expect((await read(b, '/api/clients/x/5', SANDBOX_KEYS.secondary)).status).toBe(400);
    // No key of its own: the sandbox's key is lent to it.
    expect((await read(b, '/api/staffs/0/1')).status).toBe(200);

    const [fromA, fromB] = (await flushedUsage()) as [{ text: string; report: UsageReport }, { text: string; report: UsageReport }];
    expect(fromB.text).toBe(fromA.text);
    expect(fromA.report.shared).toBe(true);
    expect(entry(fromA.report, FP_PRIMARY)).toEqual({
      name: 'crm-sync',
      fingerprint: FP_PRIMARY,
      calls: 5,
      methods: { client: 2, clients: 1, payment: 2 },
      statuses: { '200': 4, '404': 1 },
      paymentCodes: { '11': 1, '12': 1 },
      shapes: { 'client?email&id': 1, 'client?id': 1, clients: 1, payment: 2 },
      daily: { '2027-01-11': 3, '2027-01-12': 2 },
      firstSeen: '2027-01-11T23:59:00.000Z',
      lastSeen: '2027-01-12T00:01:00.000Z',
      userAgents: ['node'],
    });
    expect(entry(fromA.report, FP_SECONDARY)).toMatchObject({
      name: null,
      calls: 3,
      statuses: { '200': 1, '400': 1, '403': 1 },
      paymentCodes: {},
      shapes: { clients: 2, staffs: 1 },
      daily: { '2027-01-12': 3 },
    });
    expect(entry(fromA.report, FP_NONE)).toMatchObject({ name: null, calls: 1, statuses: { '200': 1 }, shapes: { staffs: 1 } });
    // No key and no value in the report or in Redis: only the names of the parameters.
    for (const text of [fromA.text, JSON.stringify(await raw.hGetAll(`${PREFIX}usage:${FP_PRIMARY}:shapes`))]) {
      for (const value of [SANDBOX_KEYS.primary, SANDBOX_KEYS.secondary, 'nobody', 'api_key']) expect(text).not.toContain(value);
    }
  });

  it('prints them with legacy-gateway usage, and --json gives them as they came', async () => {
    const [a] = replicas as [Replica];
    const out: string[] = [];
    const io: UsageIo = { out: (t) => out.push(t), err: (t) => out.push(t), fetch: (...args) => fetch(...args), readStdin: () => Promise.resolve('') };
    await runUsage({ url: a.metricsUrl! }, {}, io);
    const text = out.join('');
    expect(text).toContain(
      [
        `crm-sync (${FP_PRIMARY})`,
        '  statuses        200 4, 404 1',
        '  payment codes   11 1, 12 1',
        '  call shapes     payment 2, client?email&id 1, client?id 1, clients 1',
        '  daily (UTC)     2027-01-11 3, 2027-01-12 2',
        '',
      ].join('\n'),
    );
    expect(text).toContain([FP_SECONDARY, '  statuses        200 1, 400 1, 403 1', '  call shapes     clients 2, staffs 1', '  daily (UTC)     2027-01-12 3', ''].join('\n'));

    out.length = 0;
    await runUsage({ url: a.metricsUrl!, json: true }, {}, io);
    const json = JSON.parse(out.join('')) as UsageReport;
    expect(entry(json, FP_PRIMARY)).toMatchObject({ statuses: { '200': 4, '404': 1 }, paymentCodes: { '11': 1, '12': 1 }, daily: { '2027-01-11': 3, '2027-01-12': 2 } });
    expect(process.exitCode ?? 0).toBe(0);
  });

  it('keeps 90 days: a call 89 days after the second day drops the first, in the report and in Redis', async () => {
    const [, b] = replicas as [Replica, Replica];
    clock = Date.parse('2027-04-11T08:00:00Z');
    expect((await read(b, '/api/clients/0/5', SANDBOX_KEYS.primary)).status).toBe(200);
    const [fromA, fromB] = (await flushedUsage()) as [{ text: string; report: UsageReport }, { text: string; report: UsageReport }];
    expect(fromB.text).toBe(fromA.text);
    expect(entry(fromA.report, FP_PRIMARY)).toMatchObject({ calls: 6, daily: { '2027-01-12': 2, '2027-04-11': 1 } });
    expect(Object.keys(entry(fromA.report, FP_PRIMARY)!.daily)).toEqual(['2027-01-12', '2027-04-11']);
    expect((await raw.hKeys(`${PREFIX}usage:${FP_PRIMARY}:days`)).sort()).toEqual(['2027-01-12', '2027-04-11']);
    // The secondary key's days are only reported from those kept: its day is still within the 90.
    expect(entry(fromA.report, FP_SECONDARY)?.daily).toEqual({ '2027-01-12': 3 });
  });
});
