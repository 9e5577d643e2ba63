// Payment claims in a durable store, black box: `node dist/cli.js serve` processes in front of one
// recording fake v1, counting the payment POSTs it received, with the claims kept in a real PostgreSQL
// (IDEMPOTENCY_URL) or a real redis-server (REDIS_URL).
// - PostgreSQL, two replicas: one Idempotency-Key sent concurrently to both pays once; a repeat after
//   PostgreSQL crashed (SIGKILL) and came back replays the first reply; PostgreSQL killed while the POST
//   is at v1 never leads to a second payment; PostgreSQL stopped: reads go on, payments (keyed and
//   keyless) are refused before any v1 call, and work again once it is back, without a restart; a keyless
//   payment whose caller hung up is replayed on the other replica.
// - Redis: one without its append-only file stops the start (exit 2, one line naming the settings) unless
//   IDEMPOTENCY_ACCEPT_RISK=no-aof; one that came back empty refuses the repeat of a payment it forgot
//   (never paid again); a replica that does not acknowledge refuses a keyed payment before v1.
// Every gateway stays alive; no log line holds the shared secret, the caller's API key or the card token.
import { createClient } from '@redis/client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fetchReply, type Reply } from '../helpers/fetch-reply.js';
import { payAndHangUp as hangUp, runGatewayProcess, startGatewayProcess, until, type GatewayProcess } from '../helpers/gateway-process.js';
import { startTestPostgres, type TestPostgres } from '../helpers/postgres-server.js';
import { json, startRecordingUpstream, type RecordingUpstream } from '../helpers/recording-upstream.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';

const GATEWAY_SECRET = 'e2e-durable-claims-gateway-secret-0123456789';
const CALLER_KEY = 'caller-api-key-DURABLE-CLAIMS-1';
const TOKEN = 'tok_visa_DURABLE_CLAIMS_SECRET';

const KEYED_UNREACHABLE = 'payment error: the Idempotency-Key store cannot be reached; this call made no payment: retry later with the same Idempotency-Key';
const KEYLESS_UNREACHABLE = 'payment error: the payment duplicate check cannot be reached; this call made no payment: retry later';
const REDIS_LOST =
  'payment error: Redis lost the payment claims it held (it came back empty, or another server took its place); this call made no payment: retry later with the same Idempotency-Key';
const REPLICAS_UNACKNOWLEDGED =
  'payment error: Redis replicas did not acknowledge the payment claim, so a failover could lose it; this call made no payment: retry later with the same Idempotency-Key';

let v1: RecordingUpstream;
let paymentIds = 7000;
/** How long the fake v1 takes to answer a payment POST. */
let paymentDelayMs = 0;
/** Payment POSTs held until released by the test. */
let holdPayments = false;
const held: Array<() => void> = [];
const started: GatewayProcess[] = [];
/** What the refused starts printed. */
const refusedOutput: string[] = [];

interface PaymentReply extends Reply {
  body: { status: string; code: number; response: string };
}

const payment = (amount = '45.50') => ({ client_id: '1', revenue_amount: amount, send_email: '0', token: TOKEN });
const keyed = (key: string) => ({ 'idempotency-key': key });
const paymentPosts = () => v1.received.filter((r) => r.method === 'POST' && r.url === '/api/v1/payments').length;
const paidReply = (id: number) => ({ status: 'success', code: 12, response: `payment added (payment id ${id})` });
const refusal = (response: string) => ({ status: 'failure', code: 8, response });

async function pay(gateway: GatewayProcess, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<PaymentReply> {
  return (await fetchReply(`${gateway.url}/api/payment`, {
    method: 'POST',
    body: new URLSearchParams(fields),
    headers: { 'x-api-key': CALLER_KEY, ...headers },
  })) as PaymentReply;
}

const releaseHeld = () => {
  holdPayments = false;
  for (const release of held.splice(0)) release();
};

/** A keyless payment whose caller gives up once v1 has its POST (see the helper). */
async function payAndHangUp(gateway: GatewayProcess, fields: Record<string, string>): Promise<void> {
  await hangUp(gateway, fields, { 'x-api-key': CALLER_KEY }, { posts: paymentPosts, hold: () => void (holdPayments = true), release: releaseHeld });
}

async function serve(env: Record<string, string>): Promise<GatewayProcess> {
  const gateway = await startGatewayProcess(v1.url, { UPSTREAM_TIMEOUT_MS: '5000', METRICS_PORT: '0', ...env });
  started.push(gateway);
  return gateway;
}

/** The process runs and answers /healthz. */
async function expectAlive(...gateways: GatewayProcess[]): Promise<void> {
  for (const gateway of gateways) {
    expect([gateway.child.exitCode, gateway.child.signalCode]).toEqual([null, null]);
    expect((await fetchReply(`${gateway.url}/healthz`)).status).toBe(200);
  }
}

/** /readyz's status and what it says of the claims store. */
async function readyz(gateway: GatewayProcess): Promise<{ status: number; claims: unknown }> {
  const reply = await fetchReply(`${gateway.url}/readyz`);
  return { status: reply.status, claims: (reply.body as { claims?: unknown }).claims };
}

/** legacy_gateway_claim_store_up's value on the gateway's metrics port. */
async function claimStoreUp(gateway: GatewayProcess): Promise<string | undefined> {
  const text = await (await fetch(gateway.metricsUrl!)).text();
  return /^legacy_gateway_claim_store_up (\S+)$/m.exec(text)?.[1];
}

/** Whether /readyz says Redis is up (or down). */
async function redisIs(gateway: GatewayProcess, state: 'up' | 'down'): Promise<boolean> {
  const ready = (await fetchReply(`${gateway.url}/readyz`)).body as { redis?: string };
  if (ready.redis === undefined) throw new Error('/readyz does not name Redis: REDIS_URL is not wired');
  return ready.redis === state;
}

beforeAll(async () => {
  v1 = await startRecordingUpstream((req, res) => {
    const url = new URL(req.url, 'http://v1');
    if (req.method === 'GET' && url.pathname === '/api/v1/clients/1') return json(res, 200, { object: 'client', id: 1, first_name: 'Ada', last_name: 'Lovelace' });
    if (req.method === 'POST' && url.pathname === '/api/v1/payments') {
      const body = JSON.parse(req.body.toString('utf8')) as { amount?: number };
      const id = ++paymentIds;
      const answer = () => json(res, 201, { object: 'payment', id, client_id: 1, amount: body.amount });
      if (holdPayments) held.push(answer);
      else setTimeout(answer, paymentDelayMs);
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
  releaseHeld();
  await Promise.all(started.map((g) => g.stop('SIGKILL')));
  await v1?.close();
  // No log line of any gateway (nor what a refused start printed) holds the shared secret, the caller's
  // key or the card token.
  const text = [...started.flatMap((g) => g.lines), ...refusedOutput].join('\n');
  for (const secret of [GATEWAY_SECRET, CALLER_KEY, TOKEN]) expect(text).not.toContain(secret);
});
beforeEach(() => {
  v1.received.length = 0;
  paymentDelayMs = 0;
  holdPayments = false;
});

describe('claims in PostgreSQL (IDEMPOTENCY_URL), two replicas', () => {
  let pg: TestPostgres;
  let a: GatewayProcess;
  let b: GatewayProcess;

  beforeAll(async () => {
    pg = await startTestPostgres();
    const env = { IDEMPOTENCY_URL: pg.url, GATEWAY_SECRET };
    [a, b] = await Promise.all([serve(env), serve(env)]);
    for (const gateway of [a, b]) {
      const listening = gateway.lines.find((l) => l.includes('"msg":"legacy-gateway listening"'));
      expect(listening).toContain('"paymentClaims":"postgres"');
      expect(listening).toContain(`"paymentClaimsAt":"${pg.url}"`);
    }
  }, 60_000);
  afterAll(async () => {
    releaseHeld();
    await Promise.all([a, b].filter(Boolean).map((g) => g.stop()));
    await pg?.close();
  }, 30_000);

  it('one Idempotency-Key sent concurrently to both replicas: one v1 payment, the same reply everywhere', async () => {
    paymentDelayMs = 400;
    const replies = await Promise.all(Array.from({ length: 10 }, (_, i) => pay(i % 2 === 0 ? a : b, payment(), keyed('pg-order-concurrent'))));
    expect(paymentPosts()).toBe(1);
    expect(new Set(replies.map((r) => `${r.status} ${r.text}`)).size).toBe(1);
    expect(replies[0]!.status).toBe(200);
    expect(replies[0]!.body).toEqual(paidReply(paymentIds));
    expect(replies.filter((r) => r.headers.get('idempotent-replayed') === 'true')).toHaveLength(9);
    expect(replies.filter((r) => r.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    await expectAlive(a, b);
  }, 30_000);

  it('PostgreSQL killed (SIGKILL) and started again between a payment and its repeat: the repeat replays the first reply', async () => {
    const first = await pay(a, payment('46.00'), keyed('pg-order-crash'));
    expect([first.status, first.body, first.headers.get('idempotent-replayed')]).toEqual([200, paidReply(paymentIds), null]);
    // The other replica replays it: the reply is committed in PostgreSQL before the crash.
    const before = await pay(b, payment('46.00'), keyed('pg-order-crash'));
    expect([before.status, before.text, before.headers.get('idempotent-replayed')]).toEqual([200, first.text, 'true']);
    await pg.kill();
    await pg.start();
    for (const gateway of [b, a]) {
      const repeat = await pay(gateway, payment('46.00'), keyed('pg-order-crash'));
      expect([repeat.status, repeat.text, repeat.headers.get('idempotent-replayed')]).toEqual([200, first.text, 'true']);
    }
    expect(paymentPosts()).toBe(1);
    await expectAlive(a, b);
  }, 60_000);

  it('PostgreSQL killed while the POST is at v1: the first caller gets its reply, the repeat replays it once PostgreSQL is back, never a second payment', async () => {
    holdPayments = true;
    const pending = pay(a, payment('47.00'), keyed('pg-order-held'));
    await until('the payment POST at v1', () => paymentPosts() === 1);
    await pg.kill();
    releaseHeld();
    const first = await pending;
    expect([first.status, first.body, first.headers.get('idempotent-replayed')]).toEqual([200, paidReply(paymentIds), null]);
    await pg.start();
    // Which reply the repeat gets is decided by the claim's lease: the owner's last write before the crash
    // (the move to `sent`) gave it 10 s, and the owner keeps trying to store its reply (pauses of 2 s at
    // most) once PostgreSQL is back, which here takes a second or two. So while PostgreSQL is unreachable
    // to it the repeat is refused (503, nothing claimed); once it reads the claim, the claim is either
    // answered (replayed at once) or still `sent` within its lease (the repeat waits for the reply, then
    // replays it). Outcome-unknown (502) would come only if the owner had not stored its reply within the
    // lease: PostgreSQL down for longer than that.
    let repeat: PaymentReply | undefined;
    await until(
      'a repeat that is not refused',
      async () => {
        repeat = await pay(b, payment('47.00'), keyed('pg-order-held'));
        if (repeat.status !== 503) return true;
        expect(repeat.body).toEqual(refusal(KEYED_UNREACHABLE));
        return false;
      },
      30_000,
    );
    expect([repeat!.status, repeat!.text, repeat!.headers.get('idempotent-replayed')]).toEqual([200, first.text, 'true']);
    const onOwner = await pay(a, payment('47.00'), keyed('pg-order-held'));
    expect([onOwner.status, onOwner.text, onOwner.headers.get('idempotent-replayed')]).toEqual([200, first.text, 'true']);
    expect(paymentPosts()).toBe(1);
    await expectAlive(a, b);
  }, 60_000);

  it('PostgreSQL stopped: reads go on, payments are refused before any v1 call (503, code 8); started again: payments work, no restart', async () => {
    for (const gateway of [a, b]) {
      expect(await readyz(gateway)).toEqual({ status: 200, claims: 'up' });
      expect(await claimStoreUp(gateway)).toBe('1');
    }
    await pg.stop();
    try {
      // Seen without a payment: /readyz stays 200 (reads go on) and says the claims store is down.
      for (const gateway of [a, b]) {
        await until('the claims store seen down', async () => (await readyz(gateway)).claims === 'down', 15_000);
        expect(await readyz(gateway)).toEqual({ status: 200, claims: 'down' });
        expect(await claimStoreUp(gateway)).toBe('0');
      }
      for (const gateway of [a, b]) {
        const read = await fetchReply(`${gateway.url}/api/staffs/0/5`, { headers: { 'x-api-key': CALLER_KEY } });
        expect(read.status).toBe(200);
      }
      v1.received.length = 0;
      for (const gateway of [a, b]) {
        const refusedKeyed = await pay(gateway, payment('48.00'), keyed('pg-order-down'));
        expect([refusedKeyed.status, refusedKeyed.body, refusedKeyed.headers.get('idempotent-replayed')]).toEqual([503, refusal(KEYED_UNREACHABLE), null]);
        const refusedKeyless = await pay(gateway, payment('48.50'));
        expect([refusedKeyless.status, refusedKeyless.body, refusedKeyless.headers.get('idempotent-replayed')]).toEqual([503, refusal(KEYLESS_UNREACHABLE), null]);
      }
      // Refused before any v1 call: not even the client was looked up.
      expect(v1.received).toEqual([]);
      await expectAlive(a, b);
    } finally {
      await pg.start();
    }
    for (const gateway of [a, b]) {
      await until('the claims store seen up again', async () => (await readyz(gateway)).claims === 'up', 15_000);
      expect(await claimStoreUp(gateway)).toBe('1');
    }
    // The same Idempotency-Key, as the refusal said: it took no claim, so it pays now.
    const paid = await pay(a, payment('48.00'), keyed('pg-order-down'));
    expect([paid.status, paid.body, paid.headers.get('idempotent-replayed')]).toEqual([200, paidReply(paymentIds), null]);
    const repeat = await pay(b, payment('48.00'), keyed('pg-order-down'));
    expect([repeat.status, repeat.text, repeat.headers.get('idempotent-replayed')]).toEqual([200, paid.text, 'true']);
    const keyless = await pay(b, payment('48.50'));
    expect([keyless.status, keyless.body, keyless.headers.get('idempotent-replayed')]).toEqual([200, paidReply(paymentIds), null]);
    expect(paymentPosts()).toBe(2);
    await expectAlive(a, b);
  }, 60_000);

  it('a keyless payment whose caller hung up before the reply, repeated on the other replica: one v1 payment, the first reply', async () => {
    await payAndHangUp(a, payment('64.00'));
    const repeat = await pay(b, payment('64.00'));
    expect([repeat.status, repeat.body, repeat.headers.get('idempotent-replayed')]).toEqual([200, paidReply(paymentIds), 'true']);
    expect(paymentPosts()).toBe(1);
    await until('the duplicate logged', () => b.lines.some((l) => l.includes("it was answered the first one's reply")));
    await expectAlive(a, b);
  }, 30_000);
});

describe('claims in a Redis without its append-only file (REDIS_URL)', () => {
  let redis: TestRedis;

  beforeAll(async () => {
    redis = await startTestRedis({ persistence: 'none' });
  });
  afterAll(async () => {
    await redis?.close();
  });

  it('stops the start (exit 2, one line naming REDIS_URL and IDEMPOTENCY_ACCEPT_RISK=no-aof); with the risk accepted it starts', async () => {
    const refused = await runGatewayProcess(v1.url, { REDIS_URL: redis.url, GATEWAY_SECRET });
    refusedOutput.push(refused.output);
    expect(refused.code).toBe(2);
    const said = refused.output.split('\n').filter((l) => l.startsWith('legacy-gateway:'));
    expect(said).toEqual([
      'legacy-gateway: cannot start: REDIS_URL: this Redis keeps no append-only file, so a restart would forget payment claims and a repeated payment could be paid twice; turn on appendonly, keep the claims in PostgreSQL (IDEMPOTENCY_URL=postgres://...), or accept the risk with IDEMPOTENCY_ACCEPT_RISK=no-aof',
    ]);
    expect(refused.output).not.toContain('"msg":"legacy-gateway listening"');

    const accepting = await serve({ REDIS_URL: redis.url, GATEWAY_SECRET, IDEMPOTENCY_ACCEPT_RISK: 'no-aof' });
    try {
      expect(accepting.lines.some((l) => l.includes('"msg":"legacy-gateway listening"') && l.includes('"paymentClaims":"redis"'))).toBe(true);
      expect(accepting.lines.some((l) => l.includes('accepted: IDEMPOTENCY_ACCEPT_RISK=no-aof'))).toBe(true);
      const paid = await pay(accepting, payment('51.00'), keyed('redis-order-accepted'));
      expect([paid.status, paid.body]).toEqual([200, paidReply(paymentIds)]);
      expect(paymentPosts()).toBe(1);
      await expectAlive(accepting);
    } finally {
      await accepting.stop();
    }
  }, 30_000);

  it('Redis restarted empty: the repeat on the other replica is refused (503, code 8: Redis lost the claims) before v1, never paid again', async () => {
    const env = { REDIS_URL: redis.url, GATEWAY_SECRET, IDEMPOTENCY_ACCEPT_RISK: 'no-aof' };
    const [a, b] = await Promise.all([serve(env), serve(env)]);
    try {
      await until('Redis up on both replicas', async () => (await redisIs(a, 'up')) && (await redisIs(b, 'up')));
      const first = await pay(a, payment('52.00'), keyed('redis-order-lost'));
      expect([first.status, first.body, first.headers.get('idempotent-replayed')]).toEqual([200, paidReply(paymentIds), null]);
      const shared = await pay(b, payment('52.00'), keyed('redis-order-lost'));
      expect([shared.status, shared.text, shared.headers.get('idempotent-replayed')]).toEqual([200, first.text, 'true']);

      await redis.stop();
      await until('Redis down on both replicas', async () => (await redisIs(a, 'down')) && (await redisIs(b, 'down')));
      await redis.start();
      // Each replica reads Redis's epoch again when it reconnects; a claim taken before that read is still
      // refused, by the epoch check in the claim itself.
      await until('Redis up again on both replicas', async () => (await redisIs(a, 'up')) && (await redisIs(b, 'up')), 20_000);
      v1.received.length = 0;
      for (const gateway of [b, a]) {
        const repeat = await pay(gateway, payment('52.00'), keyed('redis-order-lost'));
        expect([repeat.status, repeat.body, repeat.headers.get('idempotent-replayed')]).toEqual([503, refusal(REDIS_LOST), null]);
      }
      expect(v1.received).toEqual([]);
      for (const gateway of [a, b]) {
        expect(gateway.lines.some((l) => l.includes('Redis lost the payment claims it held: payments are refused for 24 hours'))).toBe(true);
      }
      await expectAlive(a, b);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  }, 60_000);
});

describe('claims in a Redis with a replica that does not acknowledge (REDIS_URL)', () => {
  let primary: TestRedis;
  let replica: TestRedis;

  beforeAll(async () => {
    primary = await startTestRedis();
    replica = await startTestRedis({ persistence: 'none', extra: ['--replicaof', '127.0.0.1', String(primary.port)] });
    const client = createClient({ url: primary.url });
    await client.connect();
    try {
      await until(
        'the replica connected to the primary',
        async () => {
          const info = await client.info('replication');
          return /^connected_slaves:1\r?$/m.test(info) && /^slave0:.*state=online/m.test(info);
        },
        20_000,
      );
    } finally {
      await client.close();
    }
  }, 30_000);
  afterAll(async () => {
    replica?.resume();
    await replica?.close();
    await primary?.close();
  });

  it('the replica paused: a keyed payment is refused (503, code 8, naming the acknowledgement) before any POST; resumed, the retry under the same key pays once', async () => {
    // Started once the replica is connected: its first read of Redis counts it.
    const gateway = await serve({ REDIS_URL: primary.url, GATEWAY_SECRET });
    try {
      replica.pause();
      try {
        const refused = await pay(gateway, payment('53.00'), keyed('redis-order-unacked'));
        expect([refused.status, refused.body, refused.headers.get('idempotent-replayed')]).toEqual([503, refusal(REPLICAS_UNACKNOWLEDGED), null]);
        expect(paymentPosts()).toBe(0);
        await until('the refusal logged', () => gateway.lines.some((l) => l.includes('the payment was refused before it was sent')));
      } finally {
        replica.resume();
      }
      // Nothing was sent, so the refusal is not the key's answer: the retry the reply asks for pays, once.
      const retried = await pay(gateway, payment('53.00'), keyed('redis-order-unacked'));
      expect([retried.status, retried.body.code, retried.headers.get('idempotent-replayed')]).toEqual([200, 12, null]);
      expect((await pay(gateway, payment('53.00'), keyed('redis-order-unacked'))).headers.get('idempotent-replayed')).toBe('true');
      expect(paymentPosts()).toBe(1);
      await expectAlive(gateway);
    } finally {
      await gateway.stop();
    }
  }, 30_000);
});
