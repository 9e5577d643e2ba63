// Notices to the integrations' owners, black box: real gateways on loopback ports in front of a recording
// fake v1, INTEGRATIONS_FILE naming one integration whose `notify` URL is a test receiver (node:http on
// loopback) that checks each notice's signature:
// - two replicas sharing one real redis-server, then two sharing one PostgreSQL (IDEMPOTENCY_URL): the
//   integration calls both on the same day, and its owner gets one `sunset-call`, signed; the PostgreSQL
//   store gives a notice to one claimant of two, and adds up the refusals;
// - the receiver answers 500 first: the notice is sent again after its backoff (the clock moved by the
//   test), the same body, and the failure is counted and logged without the URL's query;
// - after a brownout window that refused the integration's calls, a `brownout-hit` with their count.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usageFingerprint } from '../../src/gateway/state/usage/usage-tracker.js';
import { verifyNotice } from '../../src/gateway/notices/notice-signature.js';
import { get, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { startNoticeReceiver, type NoticeReceiver, type ReceivedNotice } from '../helpers/notice-receiver.js';
import { json, startRecordingUpstream, v1List, type RecordingUpstream } from '../helpers/recording-upstream.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';
import { startTestPostgres, type TestPostgres } from '../helpers/postgres-server.js';
import { createPostgresNoticeStore } from '../../src/gateway/notices/notice-store-postgres.js';

const SECRET = 'e2e-notices-gateway-secret-0123456789';
const KEY = 'crm-key-NOTICES-5e1f';
const MINUTE = 60_000;
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

let dir: string;
let v1: RecordingUpstream;
let receiver: NoticeReceiver;
const gateways: TestGateway[] = [];

function integrationsFile(name: string, notify: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, `integrations:\n  - name: crm-sync\n    owner: CRM team <crm@example.com>\n    notify: ${notify}\n    fingerprints: [${usageFingerprint(SECRET, KEY)}]\n`);
  return file;
}

async function gateway(env: Record<string, string>, now?: () => number): Promise<TestGateway> {
  const g = await startTestGateway({ UPSTREAM_URL: v1.url, GATEWAY_SECRET: SECRET, CACHE_TTL_MS: '0', METRICS_PORT: '0', ...env }, now ? { now } : {});
  gateways.push(g);
  return g;
}

/** The notice's body, once its signature is checked against the moment it was signed at. */
function checked(notice: ReceivedNotice, at: number): { id: string; type: string; integration: string; created: string; data: Record<string, unknown> } {
  expect(verifyNotice(SECRET, notice.body, notice.headers['legacy-gateway-signature'] as string, at)).toBe(true);
  expect(notice.headers['content-type']).toBe('application/json');
  expect(notice.body).not.toContain(KEY);
  return JSON.parse(notice.body) as ReturnType<typeof checked>;
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'lgw-notices-'));
  v1 = await startRecordingUpstream((_req, res) => json(res, 200, v1List([{ object: 'client', id: 1 }])));
  receiver = await startNoticeReceiver();
});
afterAll(async () => {
  for (const g of gateways) await g.close();
  await receiver.close();
  await v1.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('sunset-call across two replicas sharing Redis', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startTestRedis({ persistence: 'none' });
  });
  afterAll(async () => {
    for (const g of gateways.splice(0)) await g.close();
    await redis.close();
  });

  it('is sent once, signed, when the integration calls both replicas on the same day', async () => {
    const env = { REDIS_URL: redis.url, INTEGRATIONS_FILE: integrationsFile('replicas.yaml', `${receiver.url}/hooks/replicas?token=t0ken`), LEGACY_SUNSET: '2099-03-01', IDEMPOTENCY_ACCEPT_RISK: 'no-aof' };
    const [a, b] = [await gateway(env), await gateway(env)];
    expect((await get(a!.url, '/api/clients/0/1', { 'x-api-key': KEY })).status).toBe(200);
    expect((await get(b!.url, '/api/clients/0/1', { 'x-api-key': KEY })).status).toBe(200);
    const [first] = await receiver.arrived(1);
    // Every round either replica would run now: the notice is settled in Redis, neither sends it again.
    await Promise.all([a!.notices!.runOnce(), b!.notices!.runOnce()]);
    await Promise.all([a!.notices!.runOnce(), b!.notices!.runOnce()]);
    const sent = receiver.received.filter((n) => n.path === '/hooks/replicas?token=t0ken');
    expect(sent).toHaveLength(1);
    const body = checked(first!, Date.now());
    expect(body).toMatchObject({ type: 'sunset-call', integration: 'crm-sync', data: { day: new Date().toISOString().slice(0, 10), sunset: '2099-03-01T00:00:00.000Z' } });
    expect(body.id).toMatch(/^[0-9a-f]{32}$/);
    expect(first!.headers['legacy-gateway-notice-id']).toBe(body.id);
  });
});

describe('sunset-call across two replicas sharing PostgreSQL (IDEMPOTENCY_URL, no Redis)', () => {
  let postgres: TestPostgres;
  beforeAll(async () => {
    postgres = await startTestPostgres();
  });
  afterAll(async () => {
    for (const g of gateways.splice(0)) await g.close();
    await postgres.close();
  });

  it('is sent once when the integration calls both replicas', async () => {
    const env = { IDEMPOTENCY_URL: postgres.url, INTEGRATIONS_FILE: integrationsFile('postgres.yaml', `${receiver.url}/hooks/postgres`), LEGACY_SUNSET: '2099-03-01' };
    const [a, b] = [await gateway(env), await gateway(env)];
    const before = receiver.received.length;
    expect((await get(a!.url, '/api/clients/0/1', { 'x-api-key': KEY })).status).toBe(200);
    expect((await get(b!.url, '/api/clients/0/1', { 'x-api-key': KEY })).status).toBe(200);
    const [first] = (await receiver.arrived(before + 1)).slice(before);
    await Promise.all([a!.notices!.runOnce(), b!.notices!.runOnce()]);
    await Promise.all([a!.notices!.runOnce(), b!.notices!.runOnce()]);
    expect(receiver.received.filter((n) => n.path === '/hooks/postgres')).toHaveLength(1);
    expect(checked(first!, Date.now())).toMatchObject({ type: 'sunset-call', integration: 'crm-sync' });
  });

  it('the store: one claim of two, a settled notice done for both, the refusals added up', async () => {
    let now = Date.parse('2027-01-12T15:00:00Z');
    const [one, two] = [createPostgresNoticeStore({ url: postgres.url, now: () => now }), createPostgresNoticeStore({ url: postgres.url, now: () => now })];
    try {
      const answers = await Promise.all([one.claim('n1', 'replica-1', 60_000), two.claim('n1', 'replica-2', 60_000)]);
      expect([...answers].sort()).toEqual(['claimed', 'held']);
      const holder = answers[0] === 'claimed' ? 'replica-1' : 'replica-2';
      expect(await one.claim('n1', holder, 60_000)).toBe('claimed');
      now += 61_000;
      // The holder's lease ran out: the other takes it over.
      const other = holder === 'replica-1' ? 'replica-2' : 'replica-1';
      expect(await two.claim('n1', other, 60_000)).toBe('claimed');
      await one.settle('n1', 'delivered');
      expect(await one.claim('n1', 'replica-1', 60_000)).toBe('done');
      expect(await two.claim('n1', 'replica-2', 60_000)).toBe('done');
      await one.addRefused('first-warning@2027-01-12T14:00:00Z', new Map([['crm-sync', 2]]));
      await two.addRefused('first-warning@2027-01-12T14:00:00Z', new Map([['crm-sync', 3], ['shop-widget', 1]]));
      expect(await one.refused('first-warning@2027-01-12T14:00:00Z')).toEqual(new Map([['crm-sync', 5], ['shop-widget', 1]]));
    } finally {
      await one.close();
      await two.close();
    }
  });
});

describe('a notice the receiver first refuses', () => {
  it('is sent again after its backoff, the same body; the failure counted and logged without the query', async () => {
    let now = Date.parse('2027-01-05T10:00:00Z');
    const g = await gateway({ INTEGRATIONS_FILE: integrationsFile('retry.yaml', `${receiver.url}/hooks/retry?token=t0ken`), LEGACY_SUNSET: '2027-03-01' }, () => now);
    const before = receiver.received.length;
    receiver.answers.push(500);
    expect((await get(g.url, '/api/clients/0/1', { 'x-api-key': KEY })).status).toBe(200);
    const [failed] = (await receiver.arrived(before + 1)).slice(before);
    expect(failed!.answered).toBe(500);
    now += MINUTE;
    await g.notices!.runOnce();
    const [again] = (await receiver.arrived(before + 2)).slice(before + 1);
    expect(again!.answered).toBe(200);
    expect(again!.body).toBe(failed!.body);
    expect(checked(again!, now)).toMatchObject({ type: 'sunset-call', integration: 'crm-sync', created: '2027-01-05T10:00:00.000Z', data: { day: '2027-01-05' } });
    const metrics = await (await fetch(`${g.metricsUrl!}/metrics`)).text();
    expect(metrics).toContain('legacy_gateway_notice_failures_total{event="sunset-call"} 1');
    const warn = g.logs.map((l) => JSON.parse(l) as { level: number; msg: string }).find((l) => l.level === 40 && l.msg.startsWith('notice "sunset-call"'));
    expect(warn?.msg).toBe(`notice "sunset-call" to crm-sync could not be delivered to ${receiver.url}/hooks/retry (status 500): tried again in 60 s`);
    expect(g.logs.join('\n')).not.toContain('t0ken');
  });
});

describe('brownout-hit', () => {
  it('after a window, with the count of the calls it refused', async () => {
    const start = Date.parse('2027-01-12T14:00:00Z');
    let now = start + MINUTE;
    const brownouts = path.join(dir, 'brownouts.yaml');
    writeFileSync(brownouts, `brownouts:\n  - name: first-warning\n    start: ${iso(start)}\n    end: ${iso(start + 60 * MINUTE)}\n    all: true\n    methods: [clients]\n`);
    const g = await gateway({ INTEGRATIONS_FILE: integrationsFile('hit.yaml', `${receiver.url}/hooks/hit`), BROWNOUTS_FILE: brownouts }, () => now);
    expect((await get(g.url, '/api/clients/0/1', { 'x-api-key': KEY })).status).toBe(410);
    expect((await get(g.url, '/api/clients/0/2', { 'x-api-key': KEY })).status).toBe(410);
    expect((await get(g.url, '/api/clients/0/3', { 'x-api-key': 'another-key' })).status).toBe(410);
    await g.notices!.runOnce();
    expect(receiver.received.filter((n) => n.path === '/hooks/hit')).toEqual([]);
    now = start + 60 * MINUTE + 2 * MINUTE;
    const before = receiver.received.length;
    await g.notices!.runOnce();
    const [hit] = (await receiver.arrived(before + 1)).slice(before);
    expect(hit!.path).toBe('/hooks/hit');
    expect(checked(hit!, now)).toMatchObject({
      type: 'brownout-hit',
      integration: 'crm-sync',
      data: { window: 'first-warning', start: '2027-01-12T14:00:00Z', end: '2027-01-12T15:00:00Z', refusedCalls: 2 },
    });
  });
});
