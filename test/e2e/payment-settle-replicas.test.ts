// Unknown outcomes settled across replicas, black box: two `serve` processes sharing their payment claims in
// one real redis-server (REDIS_URL, the same GATEWAY_SECRET), in front of a fake v1 that keeps a ledger and
// can charge a payment and then lose its answer (test/helpers/ledger-upstream.ts).
// - The POST's reply is lost on replica A; the repeat on replica B gets the settled answer: code 12 with the
//   ledger's id, replayed; or "not paid", and then the next call, on A, pays once (for a payment that created
//   its client: for that client, created once).
// - A claim nobody repeats is settled by the background settlers of both replicas, exactly once: one
//   settlement counted across the two, one log line, under the claim's settle lease.
// Every test counts the client and payment POSTs that reached v1.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fetchReply, type Reply } from '../helpers/fetch-reply.js';
import { metricSum, startGatewayProcess, until, type GatewayProcess } from '../helpers/gateway-process.js';
import { startLedgerUpstream, type LedgerUpstream } from '../helpers/ledger-upstream.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';

const GATEWAY_SECRET = 'e2e-settle-replicas-secret-0123456789abcdef';
const CALLER_KEY = 'caller-api-key-SETTLE-REPLICAS-1';
const TOKEN = 'tok_visa_SETTLE_REPLICAS_SECRET';

let v1: LedgerUpstream;
let redis: TestRedis;
let a: GatewayProcess;
let b: GatewayProcess;

interface PaymentReply extends Reply {
  body: { status: string; code: number; response: string };
}

const payment = (amount: string) => ({ client_id: '1', revenue_amount: amount, send_email: '0', token: TOKEN });
const newClientPayment = (who: string, amount: string) => ({
  first_name: 'Nia',
  last_name: `Okafor-${who}`,
  state: 'IL',
  country: 'US',
  status: 'active',
  revenue_amount: amount,
  send_email: '0',
  token: TOKEN,
});

async function pay(replica: GatewayProcess, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<PaymentReply> {
  return (await fetchReply(`${replica.url}/api/payment`, { method: 'POST', body: new URLSearchParams(fields), headers: { 'x-api-key': CALLER_KEY, ...headers } })) as PaymentReply;
}

/** Across both replicas. */
const settled = async (): Promise<number> => (await metricSum(a, 'legacy_gateway_payments_settled_total')) + (await metricSum(b, 'legacy_gateway_payments_settled_total'));
const settledLines = (): number => [...a.lines, ...b.lines].filter((l) => l.includes("was settled from v1's payments list")).length;

/** Once each replica's background settler has begun a scan that found no unknown claim, every attempt it
 * made before (its scans run one after the other) is over: nothing more can be settled or counted. */
async function settlersIdle(): Promise<void> {
  for (const replica of [a, b]) await until('a scan with no unknown claim', async () => (await metricSum(replica, 'legacy_gateway_payments_unknown')) === 0);
}

const notPaid = "payment error: the payment's outcome was unknown, and v1's payments list shows that no payment was made; it can be sent again";

beforeAll(async () => {
  v1 = await startLedgerUpstream();
  redis = await startTestRedis();
  // The repeat's patience: 3 x 600 ms + 2 s; a settle window of 1 s and its second read fit in it.
  const env = { REDIS_URL: redis.url, GATEWAY_SECRET, UPSTREAM_TIMEOUT_MS: '600', METRICS_PORT: '0', PAYMENT_SETTLE_AFTER_S: '1' };
  [a, b] = await Promise.all([startGatewayProcess(v1.url, env), startGatewayProcess(v1.url, env)]);
});
afterAll(async () => {
  await Promise.all([a?.stop('SIGKILL'), b?.stop('SIGKILL')]);
  await redis?.close();
  await v1?.close();
  const text = [...(a?.lines ?? []), ...(b?.lines ?? [])].join('\n');
  for (const secret of [GATEWAY_SECRET, CALLER_KEY, TOKEN]) expect(text).not.toContain(secret);
});
beforeEach(() => {
  v1.received.length = 0;
});

describe('the reply lost on replica A, the repeat on replica B', () => {
  it('charged: B answers code 12 with the ledger id, replayed; one POST', async () => {
    v1.next('charge-then-drop');
    const headers = { 'idempotency-key': 'order-replicas-paid' };
    const first = await pay(a, payment('31.10'), headers);
    expect([first.status, first.body.code]).toEqual([502, 8]);
    const charged = v1.ledger.at(-1)!;
    const repeat = await pay(b, payment('31.10'), headers);
    expect([repeat.status, repeat.headers.get('idempotent-replayed'), repeat.headers.get('retry-after')]).toEqual([200, 'true', null]);
    expect(repeat.body).toEqual({ status: 'success', code: 12, response: `payment added (payment id ${charged.id})` });
    const again = await pay(a, payment('31.10'), headers);
    expect([again.headers.get('idempotent-replayed'), again.body.response]).toEqual(['true', `payment added (payment id ${charged.id})`]);
    expect(v1.posts()).toBe(1);
  });

  it('never reached the ledger, a payment that created its client: B answers "not paid"; the next call, on A, pays once for that client', async () => {
    v1.next('drop');
    const first = await pay(a, newClientPayment('r', '32.20'));
    expect([first.status, first.body.code]).toEqual([502, 8]);
    const client = v1.createdClients.at(-1)!;
    const repeat = await pay(b, newClientPayment('r', '32.20'));
    expect([repeat.status, repeat.headers.get('idempotent-replayed')]).toEqual([200, null]);
    expect(repeat.body).toEqual({ status: 'failure', code: 8, response: notPaid });
    const next = await pay(a, newClientPayment('r', '32.20'));
    expect([next.status, next.body.code]).toEqual([200, 12]);
    const paid = v1.ledger.at(-1)!;
    expect([paid.client_id, next.body.response]).toEqual([client, `payment added (payment id ${paid.id})`]);
    const writes = v1.received.filter((r) => r.method === 'POST').map((r) => `${r.url} ${String((JSON.parse(r.body.toString('utf8')) as { client_id?: number }).client_id ?? '')}`);
    expect(writes).toEqual(['/api/v1/clients ', `/api/v1/payments ${client}`, `/api/v1/payments ${client}`]);
  });
});

describe('in the background, with no repeat', () => {
  it('a claim nobody repeats is settled paid exactly once across the two replicas', async () => {
    await settlersIdle();
    const before = { count: await settled(), lines: settledLines() };
    v1.next('charge-then-drop');
    const headers = { 'idempotency-key': 'order-replicas-background' };
    const first = await pay(a, payment('33.30'), headers);
    expect(first.body.code).toBe(8);
    const charged = v1.ledger.at(-1)!;
    await until('the claim settled in the background', async () => (await settled()) > before.count);
    await settlersIdle();
    expect(await settled()).toBe(before.count + 1);
    expect(settledLines()).toBe(before.lines + 1);
    const reads = v1.received.length;
    for (const replica of [a, b]) {
      const repeat = await pay(replica, payment('33.30'), headers);
      expect([repeat.status, repeat.headers.get('idempotent-replayed')]).toEqual([200, 'true']);
      expect(repeat.body).toEqual({ status: 'success', code: 12, response: `payment added (payment id ${charged.id})` });
    }
    expect(v1.received.length).toBe(reads);
    expect(v1.posts()).toBe(1);
  });
});
