// Keyless duplicate protection, black box: `serve` processes in front of one recording fake v1, counting
// the payment POSTs it received, with callers that send no Idempotency-Key (the retired API had none).
// A repeat is not paid again when the first's reply never reached its caller (its connection closed
// first), when the first's outcome is unknown (v1 timed out), or while the first is in flight; two
// identical payments each answered normally are both paid; a documented refusal (v1's 503) paid nothing,
// so a repeat goes to v1; across two replicas sharing Redis the same holds. PAYMENT_DUPLICATE_WINDOW_S=0
// turns it off.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fetchReply, type Reply } from '../helpers/fetch-reply.js';
import { metricSum, payAndHangUp as hangUp, startGatewayProcess, until, type GatewayProcess } from '../helpers/gateway-process.js';
import { json, startRecordingUpstream, type RecordingUpstream } from '../helpers/recording-upstream.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';

const CALLER_KEY = 'caller-api-key-DUPLICATES-1';
const TOKEN = 'tok_visa_DUPLICATES_SECRET';
const GATEWAY_SECRET = 'e2e-duplicates-gateway-secret-0123456789';
/** Amounts the fake v1 treats specially. */
const HANGING = '77.77';
const MAINTENANCE = '50.25';

let v1: RecordingUpstream;
let paymentIds = 500;
/** Payment POSTs held until released (the caller gives up meanwhile). */
let holdPayments = false;
const held: Array<() => void> = [];
const started: GatewayProcess[] = [];

interface PaymentReply extends Reply {
  body: { status: string; code: number; response: string };
}

const payment = (amount = '45.50') => ({ client_id: '1', revenue_amount: amount, send_email: '0', token: TOKEN });
const paymentPosts = () => v1.received.filter((r) => r.method === 'POST' && r.url === '/api/v1/payments').length;

async function pay(gateway: GatewayProcess, fields: Record<string, string>): Promise<PaymentReply> {
  return (await fetchReply(`${gateway.url}/api/payment`, { method: 'POST', body: new URLSearchParams(fields), headers: { 'x-api-key': CALLER_KEY } })) as PaymentReply;
}


/** The fake v1's payments, held and released. */
const heldPayments = {
  posts: paymentPosts,
  hold: () => void (holdPayments = true),
  release: () => {
    holdPayments = false;
    for (const release of held.splice(0)) release();
  },
};

async function payAndHangUp(gateway: GatewayProcess, fields: Record<string, string>): Promise<void> {
  await hangUp(gateway, fields, { 'x-api-key': CALLER_KEY }, heldPayments);
}

async function serve(env: Record<string, string> = {}): Promise<GatewayProcess> {
  // A timeout the never-answered payment reaches soon, and that an answered call on loopback never nears.
  const gateway = await startGatewayProcess(v1.url, { UPSTREAM_TIMEOUT_MS: '2000', METRICS_PORT: '0', ...env });
  started.push(gateway);
  return gateway;
}

beforeAll(async () => {
  v1 = await startRecordingUpstream((req, res) => {
    const url = new URL(req.url, 'http://v1');
    if (req.method === 'GET' && url.pathname === '/api/v1/clients/1') return json(res, 200, { object: 'client', id: 1, first_name: 'Ada', last_name: 'Lovelace' });
    if (req.method === 'POST' && url.pathname === '/api/v1/payments') {
      const body = JSON.parse(req.body.toString('utf8')) as { amount?: number };
      if (String(body.amount) === HANGING) return; // never answered: the gateway times out
      if (String(body.amount) === MAINTENANCE) return json(res, 503, { error: { code: 'maintenance', message: 'down for maintenance' } });
      const answer = () => json(res, 201, { object: 'payment', id: ++paymentIds, client_id: 1, amount: body.amount });
      if (holdPayments) held.push(answer);
      else answer();
      return;
    }
    json(res, 404, { error: { code: 'unknown_resource', message: 'no such resource' } });
  });
});
afterAll(async () => {
  await Promise.all(started.map((g) => g.stop('SIGKILL')));
  await v1?.close();
  // No log line holds the caller's key or the card token.
  const text = started.flatMap((g) => g.lines).join('\n');
  for (const secret of [CALLER_KEY, TOKEN]) expect(text).not.toContain(secret);
});
beforeEach(() => {
  v1.received.length = 0;
  holdPayments = false;
});

describe('one replica, claims in process (the default window)', () => {
  let gateway: GatewayProcess;
  beforeAll(async () => {
    gateway = await serve();
  });
  afterEach(() => {
    gateway.lines.length = 0;
  });

  it('the caller hung up before the reply, then repeats: one POST, the repeat gets the first reply', async () => {
    await payAndHangUp(gateway, payment());
    const repeat = await pay(gateway, payment());
    expect([repeat.status, repeat.headers.get('idempotent-replayed')]).toEqual([200, 'true']);
    expect(repeat.body).toEqual({ status: 'success', code: 12, response: `payment added (payment id ${paymentIds})` });
    expect(paymentPosts()).toBe(1);
    await until('the duplicate logged', () => gateway.lines.some((l) => l.includes("it was answered the first one's reply")));
    expect(gateway.lines.filter((l) => l.includes("it was answered the first one's reply"))).toHaveLength(1);
  });

  it('v1 times out, the caller repeats twice: one POST; each repeat gets the first reply (code 8, 504)', async () => {
    const first = await pay(gateway, payment(HANGING));
    expect([first.status, first.body.code]).toEqual([504, 8]);
    for (let i = 0; i < 2; i++) {
      const repeat = await pay(gateway, payment(HANGING));
      expect(repeat.text).toBe(first.text);
      expect([repeat.status, repeat.headers.get('idempotent-replayed')]).toEqual([504, 'true']);
    }
    expect(paymentPosts()).toBe(1);
    // The first call's fault logs at error; its repeats, answered without v1, at warn.
    await until('the repeats logged', () => gateway.lines.filter((l) => l.includes('"paymentCode":8')).length === 3);
    expect(gateway.lines.filter((l) => l.includes('"paymentCode":8')).map((l) => (JSON.parse(l) as { level: number }).level)).toEqual([50, 40, 40]);
  });

  it('a repeat while the first is in flight waits for it: one POST, both answered alike', async () => {
    holdPayments = true;
    const first = pay(gateway, payment('12.00'));
    await until('the payment POST at v1', () => paymentPosts() === 1);
    const second = pay(gateway, payment('12.00'));
    // Both calls are in the gateway (the repeat waiting on the first's claim) before v1 answers the first.
    await until('both calls in flight', async () => (await metricSum(gateway, 'legacy_gateway_in_flight_requests')) === 2);
    for (const release of held.splice(0)) release();
    const [a, b] = await Promise.all([first, second]);
    expect(b.text).toBe(a.text);
    expect([a.headers.get('idempotent-replayed'), b.headers.get('idempotent-replayed')]).toEqual([null, 'true']);
    expect(paymentPosts()).toBe(1);
  });

  it('two identical payments each answered normally: two POSTs (the second is meant)', async () => {
    const first = await pay(gateway, payment('20.00'));
    const second = await pay(gateway, payment('20.00'));
    expect([first.body.code, second.body.code]).toEqual([12, 12]);
    expect(second.body.response).not.toBe(first.body.response);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    expect(paymentPosts()).toBe(2);
  });

  it("v1's documented refusal (503 maintenance) paid nothing: the repeat goes to v1", async () => {
    const first = await pay(gateway, payment(MAINTENANCE));
    expect([first.status, first.body.code]).toEqual([503, 8]);
    const repeat = await pay(gateway, payment(MAINTENANCE));
    expect(repeat.headers.get('idempotent-replayed')).toBeNull();
    expect(paymentPosts()).toBe(2);
  });
});

describe('PAYMENT_DUPLICATE_WINDOW_S=0', () => {
  it('turns the check off: the hung-up payment is paid again', async () => {
    const gateway = await serve({ PAYMENT_DUPLICATE_WINDOW_S: '0' });
    await payAndHangUp(gateway, payment('31.00'));
    const repeat = await pay(gateway, payment('31.00'));
    expect([repeat.body.code, repeat.headers.get('idempotent-replayed')]).toEqual([12, null]);
    expect(paymentPosts()).toBe(2);
  });
});

describe('two replicas sharing Redis', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startTestRedis();
  });
  afterAll(async () => {
    await redis?.close();
  });

  it('the caller hung up on one replica and repeats on the other: one POST, the first reply', async () => {
    const env = { REDIS_URL: redis.url, GATEWAY_SECRET };
    const [a, b] = await Promise.all([serve(env), serve(env)]);
    await payAndHangUp(a, payment('64.00'));
    const repeat = await pay(b, payment('64.00'));
    expect([repeat.status, repeat.body.code, repeat.headers.get('idempotent-replayed')]).toEqual([200, 12, 'true']);
    expect(paymentPosts()).toBe(1);
  });
});
