// Redis as a served gateway sees it (REDIS_URL): /readyz names its state and stays ready while it is down
// (reads go on, keyed payments are refused before any v1 call), the state comes back without a restart,
// `legacy_gateway_redis_up` follows it and `legacy_gateway_idempotency_events_total` counts the keyed
// payments; one log line per change; a gateway that starts while Redis is down starts anyway. Without
// REDIS_URL, /readyz names no Redis and the gauge is absent. REDIS_URL without GATEWAY_SECRET stops
// `serve` in one line, exit 2.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocumentFor } from '../../src/commands/openapi.js';
import { SHIPPED_MAPPINGS_DIR } from '../../src/gateway/config.js';
import { fetchReply, type Reply } from '../helpers/fetch-reply.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { openApiChecker, type OpenApiChecker } from '../helpers/openapi-check.js';
import { json, startRecordingUpstream, v1List, type RecordingUpstream } from '../helpers/recording-upstream.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(root, 'dist/cli.js');

const GATEWAY_SECRET = 'e2e-redis-state-gateway-secret-0123456789';
const REDIS_PASSWORD = 'e2e-REDIS-password-never-logged';
const CALLER_KEY = 'caller-key-REDIS-STATE';

let upstream: RecordingUpstream;
let surface: OpenApiChecker;
const opened: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  surface = openApiChecker(await openApiDocumentFor(SHIPPED_MAPPINGS_DIR));
  upstream = await startRecordingUpstream((req, res) => {
    if (req.method === 'POST' && req.url === '/api/v1/payments') return json(res, 201, { object: 'payment', id: 5, client_id: 1 });
    if (/^\/api\/v1\/clients\/\d+$/.test(req.url)) return json(res, 200, { object: 'client', id: 1, first_name: 'Ada' });
    if (req.url === '/api/v1') return json(res, 200, { object: 'api' });
    return json(res, 200, v1List([{ object: 'staff', id: 1, first_name: 'Ann' }]));
  });
});
afterAll(async () => {
  for (const o of opened.splice(0).reverse()) await o.close();
  await upstream.close();
});

async function gatewayWith(env: Record<string, string>): Promise<TestGateway> {
  const gateway = await startTestGateway({ UPSTREAM_URL: upstream.url, METRICS_PORT: '0', CACHE_TTL_MS: '0', ...env });
  opened.push(gateway);
  return gateway;
}

async function readyz(gateway: TestGateway): Promise<Reply> {
  const reply = await fetchReply(`${gateway.url}/readyz`);
  expect(surface.check({ method: 'GET', path: '/readyz', status: reply.status, contentType: reply.headers.get('content-type'), body: reply.body })).toEqual([]);
  return reply;
}

/** Resolves at the gateway's next Redis state change to `up` (at once when it is that already). */
function redisBecomes(gateway: TestGateway, up: boolean): Promise<void> {
  const redis = gateway.redis!;
  if (redis.isUp() === up) return Promise.resolve();
  return new Promise((resolve) => redis.onStateChange((now) => now === up && resolve()));
}

async function scrape(gateway: TestGateway): Promise<string> {
  const reply = await fetchReply(`${gateway.metricsUrl!}/metrics`);
  expect(reply.status).toBe(200);
  return reply.text;
}

function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const pay = (gateway: TestGateway, key: string) =>
  fetchReply(`${gateway.url}/api/payment`, {
    method: 'POST',
    body: new URLSearchParams({ client_id: '1', revenue_amount: '12.00', send_email: '0' }),
    headers: { 'x-api-key': CALLER_KEY, 'idempotency-key': key },
  });

const stateLines = (gateway: TestGateway) => gateway.logs.filter((l) => /"msg":"Redis (connected|reachable again|unreachable)/.test(l));

describe('with REDIS_URL', () => {
  let redis: TestRedis;
  let gateway: TestGateway;
  beforeAll(async () => {
    redis = await startTestRedis(['--requirepass', REDIS_PASSWORD]);
    opened.push(redis);
    gateway = await gatewayWith({ REDIS_URL: redis.url.replace('redis://', `redis://:${REDIS_PASSWORD}@`), GATEWAY_SECRET });
  });

  it('/readyz is 200 and says "redis":"up" and, Redis holding the payment claims, "claims":"up"; the gauges are 1', async () => {
    const reply = await readyz(gateway);
    expect(reply.status).toBe(200);
    expect(reply.text).toBe('{"status":"ready","mappings":' + String((reply.body as { mappings: number }).mappings) + ',"upstream":"reachable","redis":"up","claims":"up"}');
    const text = await scrape(gateway);
    expect(sample(text, 'legacy_gateway_redis_up')).toBe(1);
    expect(sample(text, 'legacy_gateway_claim_store_up')).toBe(1);
  });

  it('counts what became of keyed payments, by a closed set of events', async () => {
    expect((await pay(gateway, 'redis-state-key-0001')).status).toBe(200);
    expect((await pay(gateway, 'redis-state-key-0001')).status).toBe(200);
    const text = await scrape(gateway);
    expect(sample(text, 'legacy_gateway_idempotency_events_total{event="claimed",claim="key"}')).toBe(1);
    expect(sample(text, 'legacy_gateway_idempotency_events_total{event="replayed",claim="key"}')).toBe(1);
    const events = text.split('\n').filter((l) => l.startsWith('legacy_gateway_idempotency_events_total{')).map((l) => /event="([^"]+)",claim="([^"]+)"/.exec(l)!.slice(1).join(' '));
    const names = ['claimed', 'mismatch', 'outcome_unknown', 'refused_full', 'refused_not_durable', 'refused_unavailable', 'replayed', 'wait_expired', 'waited'];
    expect(events.sort()).toEqual([...names.map((e) => `${e} key`), ...names.map((e) => `${e} keyless`)].sort());
  });

  it('Redis stopped: /readyz stays 200 saying "redis":"down", reads go on, keyed payments are refused before v1; started: all back, one log line per change', async () => {
    const linesBefore = stateLines(gateway).length;
    const down = redisBecomes(gateway, false);
    await redis.stop();
    await down;
    const reply = await readyz(gateway);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ status: 'ready', upstream: 'reachable', redis: 'down' });
    expect(sample(await scrape(gateway), 'legacy_gateway_redis_up')).toBe(0);

    expect((await fetchReply(`${gateway.url}/api/staffs/0/1`, { headers: { 'x-api-key': CALLER_KEY } })).status).toBe(200);
    const posts = upstream.received.filter((r) => r.method === 'POST').length;
    const refused = await pay(gateway, 'redis-state-key-0002');
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ status: 'failure', code: 8 });
    expect(upstream.received.filter((r) => r.method === 'POST').length).toBe(posts);
    expect(sample(await scrape(gateway), 'legacy_gateway_idempotency_events_total{event="refused_unavailable",claim="key"}')).toBe(1);

    const up = redisBecomes(gateway, true);
    await redis.start();
    await up;
    expect((await readyz(gateway)).body).toMatchObject({ status: 'ready', redis: 'up' });
    expect(sample(await scrape(gateway), 'legacy_gateway_redis_up')).toBe(1);
    expect((await pay(gateway, 'redis-state-key-0003')).status).toBe(200);
    expect(stateLines(gateway).slice(linesBefore).map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual([
      'Redis unreachable: shared state unavailable, reconnecting in the background',
      'Redis reachable again: Idempotency-Keys and the read cache are shared again',
    ]);
  });

  it('never logs the Redis password or the shared secret; the URL only masked', () => {
    const text = gateway.logs.join('\n');
    expect(text).not.toContain(REDIS_PASSWORD);
    expect(text).not.toContain(GATEWAY_SECRET);
    expect(text).toContain(`"redis":"redis://:***@127.0.0.1:${redis.port}"`);
  });
});

describe('Redis down at start', () => {
  it('the gateway starts, says so once, is ready with "redis":"down", and shares once Redis comes', async () => {
    const redis = await startTestRedis();
    opened.push(redis);
    await redis.stop();
    const gateway = await gatewayWith({ REDIS_URL: redis.url, GATEWAY_SECRET });
    expect(stateLines(gateway).map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual(['Redis unreachable at start: serving anyway, reconnecting in the background']);
    const reply = await readyz(gateway);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ redis: 'down' });
    expect(sample(await scrape(gateway), 'legacy_gateway_redis_up')).toBe(0);
    const up = redisBecomes(gateway, true);
    await redis.start();
    await up;
    expect((await readyz(gateway)).body).toMatchObject({ redis: 'up' });
    expect(sample(await scrape(gateway), 'legacy_gateway_redis_up')).toBe(1);
  });
});

describe('without REDIS_URL', () => {
  it('/readyz names no Redis, the gauge is absent, and the in-process store\'s events are counted', async () => {
    const gateway = await gatewayWith({});
    expect(gateway.redis).toBeUndefined();
    const reply = await readyz(gateway);
    expect(reply.status).toBe(200);
    expect(reply.body).not.toHaveProperty('redis');
    expect((await pay(gateway, 'memory-state-key-0001')).status).toBe(200);
    const text = await scrape(gateway);
    expect(text).not.toContain('legacy_gateway_redis_up');
    expect(sample(text, 'legacy_gateway_idempotency_events_total{event="claimed",claim="key"}')).toBe(1);
    expect(sample(text, 'legacy_gateway_idempotency_events_total{event="refused_unavailable",claim="key"}')).toBe(0);
  });
});

describe('serve', () => {
  it('REDIS_URL without GATEWAY_SECRET: one line naming GATEWAY_SECRET, exit 2, the URL never printed', async () => {
    const outcome = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [cli, 'serve'],
        { env: { PATH: process.env.PATH ?? '', UPSTREAM_URL: upstream.url, REDIS_URL: `redis://:${REDIS_PASSWORD}@127.0.0.1:6379/0` }, timeout: 15_000 },
        (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? null) : 0, stdout, stderr }),
      );
    });
    expect(outcome.code).toBe(2);
    expect(outcome.stdout).toBe('');
    expect(outcome.stderr).toBe('legacy-gateway: GATEWAY_SECRET is required when REDIS_URL is set (the HMAC secret every replica shares, at least 32 characters)\n');
    expect(outcome.stderr).not.toContain(REDIS_PASSWORD);
  });
});
