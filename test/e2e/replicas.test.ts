// "A payment is never sent twice", black box, as an operator runs the gateway: `node dist/cli.js serve`
// processes in front of one recording fake v1, counting the payment POSTs it received.
// - Two replicas sharing one redis-server (REDIS_URL, the same GATEWAY_SECRET): concurrent repeats spread
//   over both pay once; a repeat after a replica's restart is replayed; a reused key with another payment
//   is a 409 on the other replica; a replica killed mid-payment leaves its key answering outcome-unknown,
//   never a second payment; Redis stopped refuses keyed payments before v1 (503) and Redis started again
//   on the same address serves them again, with no restart.
// - One replica with the in-process store: one API key's flood of keys past its bound is refused (503)
//   while every stored key still replays and other callers still pay; a local refusal takes no key.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openApiDocumentFor } from '../../src/commands/openapi.js';
import { SHIPPED_MAPPINGS_DIR } from '../../src/gateway/config.js';
import { DEFAULT_MAX_ENTRIES_PER_API_KEY } from '../../src/gateway/state/claims/claims-memory.js';
import { fetchReply, type Reply } from '../helpers/fetch-reply.js';
import { openApiChecker, type OpenApiChecker } from '../helpers/openapi-check.js';
import { json, startRecordingUpstream, type RecordingUpstream } from '../helpers/recording-upstream.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';
import { createClient } from '@redis/client';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(root, 'dist/cli.js');

const GATEWAY_SECRET = 'e2e-replicas-gateway-secret-0123456789';
const CALLER_KEY = 'caller-api-key-REPLICAS-1';
const TOKEN = 'tok_visa_REPLICAS_SECRET';
/** A payment whose POST the fake v1 never answers: its replica is killed mid-payment. */
const HANGING_AMOUNT = '77.77';

let v1: RecordingUpstream;
let surface: OpenApiChecker;
let paymentDelayMs = 0;
let paymentIds = 9000;
const allLines: string[] = [];

interface Replica {
  url: string;
  child: ChildProcess;
  lines: string[];
  /** SIGTERM (a drain), or SIGKILL (the process dies), and wait for it to exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

const running = new Set<Replica>();

async function startReplica(env: Record<string, string> = {}): Promise<Replica> {
  const child = spawn(process.execPath, [cli, 'serve'], {
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', HOST: '127.0.0.1', PORT: '0', UPSTREAM_URL: v1.url, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  createInterface({ input: child.stderr! }).on('line', (line) => lines.push(line));
  const port = await new Promise<number>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      lines.push(line);
      if (line.includes('"msg":"legacy-gateway listening"')) resolve((JSON.parse(line) as { port: number }).port);
    });
    child.once('exit', (code) => reject(new Error(`exited with ${String(code)} before listening:\n${lines.join('\n')}`)));
  });
  const replica: Replica = {
    url: `http://127.0.0.1:${port}`,
    child,
    lines,
    async stop(signal = 'SIGTERM') {
      running.delete(replica);
      allLines.push(...lines);
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill(signal);
      await exited;
    },
  };
  running.add(replica);
  return replica;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: string, condition: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** Whether /readyz says Redis is up (or down); the body names Redis only with REDIS_URL. */
async function redisIs(replica: Replica, state: 'up' | 'down'): Promise<boolean> {
  const ready = (await fetchReply(`${replica.url}/readyz`)).body as { redis?: string };
  if (ready.redis === undefined) throw new Error('/readyz does not name Redis: REDIS_URL is not wired');
  return ready.redis === state;
}

interface PaymentReply extends Reply {
  body: { status: string; code: number; response: string };
}

/** One payment call; its reply must be one the legacy surface's OpenAPI description allows. */
async function pay(replica: Replica, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<PaymentReply> {
  const reply = (await fetchReply(`${replica.url}/api/payment`, {
    method: 'POST',
    body: new URLSearchParams(fields),
    headers: { 'x-api-key': CALLER_KEY, ...headers },
  })) as PaymentReply;
  expect(surface.check({ method: 'POST', path: '/api/payment', status: reply.status, contentType: reply.headers.get('content-type'), body: reply.body })).toEqual([]);
  return reply;
}

const payment = (amount = '45.50') => ({ client_id: '1', revenue_amount: amount, send_email: '0', token: TOKEN });
const keyed = (key: string) => ({ 'idempotency-key': key });
const paymentPosts = () => v1.received.filter((r) => r.method === 'POST' && r.url === '/api/v1/payments').length;

beforeAll(async () => {
  surface = openApiChecker(await openApiDocumentFor(SHIPPED_MAPPINGS_DIR));
  v1 = await startRecordingUpstream((req, res) => {
    const url = new URL(req.url, 'http://v1');
    const client = /^\/api\/v1\/clients\/(\d+)$/.exec(url.pathname);
    if (req.method === 'GET' && client) return json(res, 200, { object: 'client', id: Number(client[1]), first_name: 'Ada', last_name: 'Lovelace' });
    if (req.method === 'POST' && url.pathname === '/api/v1/payments') {
      const body = JSON.parse(req.body.toString('utf8')) as { amount?: number };
      if (String(body.amount) === HANGING_AMOUNT) return; // never answered: the outcome the caller cannot know
      const id = ++paymentIds;
      setTimeout(() => json(res, 201, { object: 'payment', id, client_id: 1, amount: body.amount }), paymentDelayMs);
      return;
    }
    if (req.method === 'GET' && url.pathname === '/api/v1') return json(res, 200, { object: 'api' });
    if (req.method === 'GET' && url.pathname === '/api/v1/staff') {
      return json(res, 200, { object: 'list', total: 1, limit: 5, offset: 0, has_more: false, data: [{ object: 'staff', id: 1, first_name: 'Ann' }] });
    }
    json(res, 404, { error: { code: 'unknown_resource', message: 'no such resource' } });
  });
});
afterAll(async () => {
  await Promise.all([...running].map((r) => r.stop('SIGKILL')));
  await v1?.close();
  // No log line of any replica holds the shared secret, the caller's key or the card token.
  const text = allLines.join('\n');
  for (const secret of [GATEWAY_SECRET, CALLER_KEY, TOKEN]) expect(text).not.toContain(secret);
});
beforeEach(() => {
  v1.received.length = 0;
  paymentDelayMs = 0;
});

describe('two replicas sharing Redis', () => {
  let redis: TestRedis;
  let a: Replica;
  let b: Replica;
  const replicaEnv = () => ({ REDIS_URL: redis.url, GATEWAY_SECRET, UPSTREAM_TIMEOUT_MS: '3000' });

  beforeAll(async () => {
    redis = await startTestRedis();
    [a, b] = await Promise.all([startReplica(replicaEnv()), startReplica(replicaEnv())]);
    await until('Redis up on both replicas', async () => (await redisIs(a, 'up')) && (await redisIs(b, 'up')));
  }, 30_000);
  afterAll(async () => {
    await Promise.all([a, b].filter(Boolean).map((r) => r.stop()));
    await redis?.close();
  });

  it('concurrent repeats of one key spread over both replicas: one v1 payment, the same reply everywhere', async () => {
    paymentDelayMs = 400;
    const replies = await Promise.all(Array.from({ length: 10 }, (_, i) => pay(i % 2 === 0 ? a : b, payment(), keyed('order-concurrent'))));
    expect(paymentPosts()).toBe(1);
    expect(new Set(replies.map((r) => `${r.status} ${r.text}`)).size).toBe(1);
    expect(replies[0]!.status).toBe(200);
    expect(replies[0]!.body).toEqual({ status: 'success', code: 12, response: `payment added (payment id ${paymentIds})` });
    expect(replies.filter((r) => r.headers.get('idempotent-replayed') === 'true')).toHaveLength(9);
  });

  it('a list read on one replica, then on the other: one v1 call', async () => {
    const read = (replica: Replica) => fetchReply(`${replica.url}/api/staffs/0/5`, { headers: { 'x-api-key': CALLER_KEY } });
    const first = await read(a);
    expect(first.status).toBe(200);
    // The shared tier is written just after the reply goes out: wait until Redis holds it.
    const client = createClient({ url: redis.url });
    await client.connect();
    try {
      await until('the reply is in Redis', async () => (await client.keys('lgw:cache:*')).length > 0);
    } finally {
      await client.close();
    }
    const second = await read(b);
    expect(second.status).toBe(200);
    expect(second.text).toBe(first.text);
    expect(v1.received.map((r) => r.url)).toEqual(['/api/v1/staff?offset=0&limit=5']);
  });

  it('a repeat after one replica restarts is replayed, with no second payment', async () => {
    const first = await pay(a, payment(), keyed('order-restart'));
    expect(first.body.code).toBe(12);
    await a.stop();
    a = await startReplica(replicaEnv());
    await until('Redis up on the restarted replica', () => redisIs(a, 'up'));
    for (const replica of [a, b]) {
      const repeat = await pay(replica, payment(), keyed('order-restart'));
      expect(repeat.text).toBe(first.text);
      expect(repeat.headers.get('idempotent-replayed')).toBe('true');
    }
    expect(paymentPosts()).toBe(1);
  });

  it('a key reused with another payment is a 409 on the other replica', async () => {
    expect((await pay(a, payment(), keyed('order-reused'))).body.code).toBe(12);
    const other = await pay(b, payment('99.00'), keyed('order-reused'));
    expect(other.status).toBe(409);
    expect(other.body).toEqual({ status: 'failure', code: 0, response: 'this Idempotency-Key was already used for a different payment' });
    expect(paymentPosts()).toBe(1);
  });

  it('a local refusal (code 1) takes no key: the corrected payment under the same key is made', async () => {
    const refused = await pay(a, { revenue_amount: '45.50' }, keyed('order-corrected'));
    expect(refused.body.code).toBe(1);
    const corrected = await pay(b, payment(), keyed('order-corrected'));
    expect([corrected.status, corrected.body.code]).toEqual([200, 12]);
    expect(paymentPosts()).toBe(1);
  });

  it('a replica killed mid-payment: the repeat on the other answers outcome-unknown (502, code 8), never a second payment', async () => {
    const killed = await startReplica(replicaEnv());
    await until('Redis up on the replica to kill', () => redisIs(killed, 'up'));
    void pay(killed, payment(HANGING_AMOUNT), keyed('order-killed')).catch(() => undefined);
    await until('the payment POST', async () => paymentPosts() === 1);
    await killed.stop('SIGKILL');
    // The claim lives until its lease runs out; a repeat before then waits, or is told to retry later (503).
    let repeat: PaymentReply;
    for (;;) {
      repeat = await pay(b, payment(HANGING_AMOUNT), keyed('order-killed'));
      if (repeat.status !== 503) break;
      expect(repeat.body.response).toContain('has not answered yet');
    }
    expect(repeat.status).toBe(502);
    expect(repeat.body).toEqual({
      status: 'failure',
      code: 8,
      response:
        'payment error: the outcome of the payment made with this Idempotency-Key is unknown (the call that made it stopped before it answered); check the payments list before paying again with a new Idempotency-Key',
    });
    expect((await pay(a, payment(HANGING_AMOUNT), keyed('order-killed'))).status).toBe(502);
    expect(paymentPosts()).toBe(1);
  }, 40_000);

  // Last: the restarted Redis has lost every key (the test server keeps nothing on disk).
  it('Redis stopped: keyed payments are refused before v1 (503, code 8), both processes stay up; started again: served again, no restart', async () => {
    await redis.stop();
    try {
      await until('Redis down on both replicas', async () => (await redisIs(a, 'down')) && (await redisIs(b, 'down')));
      for (const replica of [a, b]) {
        const refused = await pay(replica, payment(), keyed('order-redis-down'));
        expect(refused.status).toBe(503);
        expect(refused.body).toEqual({
          status: 'failure',
          code: 8,
          response: 'payment error: the Idempotency-Key store cannot be reached; this call made no payment: retry later with the same Idempotency-Key',
        });
      }
      expect(paymentPosts()).toBe(0);
      for (const replica of [a, b]) {
        expect(replica.child.exitCode).toBeNull();
        expect((await fetchReply(`${replica.url}/healthz`)).status).toBe(200);
      }
    } finally {
      await redis.start();
    }
    await until('Redis up again on both replicas', async () => (await redisIs(a, 'up')) && (await redisIs(b, 'up')));
    const first = await pay(a, payment(), keyed('order-redis-down'));
    expect([first.status, first.body.code]).toEqual([200, 12]);
    const repeat = await pay(b, payment(), keyed('order-redis-down'));
    expect(repeat.text).toBe(first.text);
    expect(repeat.headers.get('idempotent-replayed')).toBe('true');
    expect(paymentPosts()).toBe(1);
  }, 40_000);
});

describe('one replica, in-process store: a flood of keys', () => {
  let gateway: Replica;
  beforeAll(async () => {
    gateway = await startReplica();
  });
  afterAll(async () => {
    await gateway?.stop();
  });

  it('a local refusal (code 0) takes no key: the corrected payment under the same key is made', async () => {
    const refused = await pay(gateway, payment('1,000.00'), keyed('order-fixed'));
    expect(refused.body).toEqual({ status: 'failure', code: 0, response: 'invalid fields: revenue_amount' });
    expect((await pay(gateway, payment('1,000.00'), keyed('order-fixed'))).headers.get('idempotent-replayed')).toBeNull();
    const corrected = await pay(gateway, payment('1000.00'), keyed('order-fixed'));
    expect([corrected.status, corrected.body.code]).toEqual([200, 12]);
    expect(paymentPosts()).toBe(1);
  });

  it('one API key past its bound is refused (503) before v1; every stored key still replays; other callers still pay', async () => {
    const victim = { 'x-api-key': 'victim-api-key' };
    const stored = await pay(gateway, payment(), { ...victim, ...keyed('victim-order-1') });
    expect(stored.body.code).toBe(12);
    // The flooder fills its own share of the store, then some.
    const bound = DEFAULT_MAX_ENTRIES_PER_API_KEY;
    const flood = { 'x-api-key': 'flooder-api-key' };
    const statuses: number[] = [];
    for (let start = 0; start < bound + 25; start += 25) {
      const batch = Array.from({ length: 25 }, (_, i) => pay(gateway, payment('1.00'), { ...flood, ...keyed(`junk-${start + i}`) }));
      statuses.push(...(await Promise.all(batch)).map((r) => r.status));
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(bound);
    expect(statuses.filter((s) => s === 503)).toHaveLength(25);
    const refused = await pay(gateway, payment('1.00'), { ...flood, ...keyed('junk-one-more') });
    expect(refused.status).toBe(503);
    expect(refused.body).toEqual({
      status: 'failure',
      code: 8,
      response: 'payment error: the Idempotency-Key store is full; this call made no payment: retry later with the same Idempotency-Key',
    });
    const posts = paymentPosts();
    expect(posts).toBe(bound + 1);
    // Nothing was forgotten: the victim's and the flooder's stored keys replay.
    const repeat = await pay(gateway, payment(), { ...victim, ...keyed('victim-order-1') });
    expect(repeat.text).toBe(stored.text);
    expect(repeat.headers.get('idempotent-replayed')).toBe('true');
    expect((await pay(gateway, payment('1.00'), { ...flood, ...keyed('junk-0') })).headers.get('idempotent-replayed')).toBe('true');
    // Another caller still pays.
    expect((await pay(gateway, payment(), { ...victim, ...keyed('victim-order-2') })).body.code).toBe(12);
    expect(paymentPosts()).toBe(posts + 1);
  }, 120_000);
});
