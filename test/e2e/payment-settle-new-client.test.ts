// Unknown outcomes of a payment that creates its client (the call carries a new client's details, no
// client_id), settled from v1's payments list, black box: `serve` in front of a fake v1 that keeps a ledger
// and creates clients (test/helpers/ledger-upstream.ts). The client is created first, and its outcome is
// known before the payment's POST: the claim then keeps the payment's ticket against that new client's list
// (which held no payment), and names the client, so that no later run of the same claim creates another.
// Every test asserts the v1 calls that reached the fake: one client POST, and no payment POST but the ones
// expected.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fetchReply, type Reply } from '../helpers/fetch-reply.js';
import { metricSum, startGatewayProcess, until, type GatewayProcess } from '../helpers/gateway-process.js';
import { startLedgerUpstream, type LedgerUpstream } from '../helpers/ledger-upstream.js';

const CALLER_KEY = 'caller-api-key-NEWCLIENT-1';
const TOKEN = 'tok_visa_NEWCLIENT_SECRET';
const PASSWORD = 'pw-NEWCLIENT-secret';

let v1: LedgerUpstream;
let gateway: GatewayProcess;

interface PaymentReply extends Reply {
  body: { status: string; code: number; response: string };
}

/** A payment for a new client; `who` keeps each test's client apart. */
const newClientPayment = (who: string, amount: string) => ({
  first_name: 'Nia',
  last_name: `Okafor-${who}`,
  email: `nia.${who}@example.com`,
  state: 'IL',
  country: 'US',
  status: 'active',
  password: PASSWORD,
  password2: PASSWORD,
  revenue_amount: amount,
  send_email: '0',
  token: TOKEN,
});

async function pay(fields: Record<string, string>, headers: Record<string, string> = {}): Promise<PaymentReply> {
  return (await fetchReply(`${gateway.url}/api/payment`, { method: 'POST', body: new URLSearchParams(fields), headers: { 'x-api-key': CALLER_KEY, ...headers } })) as PaymentReply;
}

/** The v1 calls received since the test began, as `METHOD path?query`. */
const calls = (): string[] => v1.received.map((r) => `${r.method} ${r.url}`);
/** The reads of one client's payments list (the mark, and the settlement's). */
const isListRead = (client: number) => (call: string): boolean => call.startsWith(`GET /api/v1/payments?client_id=${client}&`);
/** The client_id each payment POST since the test began was sent with. */
const paidFor = (): unknown[] =>
  v1.received.filter((r) => r.method === 'POST' && r.url === '/api/v1/payments').map((r) => (JSON.parse(r.body.toString('utf8')) as Record<string, unknown>).client_id);

const notPaid = "payment error: the payment's outcome was unknown, and v1's payments list shows that no payment was made; it can be sent again";

beforeAll(async () => {
  v1 = await startLedgerUpstream();
  // The repeat's patience: 3 x 600 ms + 2 s; a settle window of 1 s and its second read fit in it.
  gateway = await startGatewayProcess(v1.url, { UPSTREAM_TIMEOUT_MS: '600', METRICS_PORT: '0', PAYMENT_SETTLE_AFTER_S: '1' });
});
afterAll(async () => {
  await gateway?.stop('SIGKILL');
  await v1?.close();
  const text = gateway.lines.join('\n');
  for (const secret of [CALLER_KEY, TOKEN, PASSWORD]) expect(text).not.toContain(secret);
});
beforeEach(() => {
  v1.received.length = 0;
});

describe('a new client\'s payment charged whose answer was lost', () => {
  it('the connection dropped after the charge: the repeat gets code 12 with the ledger id, replayed; one client, one POST', async () => {
    v1.next('charge-then-drop');
    const first = await pay(newClientPayment('a', '21.10'));
    const client = v1.createdClients.at(-1)!;
    expect([first.status, first.body.code]).toEqual([502, 8]);
    expect(first.body.response).toContain(`(the new client was created with id ${client}: retry with client_id=${client})`);
    const charged = v1.ledger.at(-1)!;
    expect(charged.client_id).toBe(client);

    const repeat = await pay(newClientPayment('a', '21.10'));
    expect([repeat.status, repeat.headers.get('idempotent-replayed'), repeat.headers.get('retry-after')]).toEqual([200, 'true', null]);
    expect(repeat.body).toEqual({ status: 'success', code: 12, response: `payment added (payment id ${charged.id})` });
    // The client was created with no read of its list (it held no payment); the repeat read only its list.
    expect(calls().filter((c) => !isListRead(client)(c))).toEqual(['POST /api/v1/clients', 'POST /api/v1/payments']);
    expect(calls().slice(2).length).toBeGreaterThan(0);
    expect(calls().slice(2).every(isListRead(client))).toBe(true);
    expect(paidFor()).toEqual([client]);
  });

  it('with an Idempotency-Key and a 500 after the charge: settled paid in the background, the repeat replays it', async () => {
    const settledBefore = await metricSum(gateway, 'legacy_gateway_payments_settled_total');
    v1.next('charge-then-500');
    const headers = { 'idempotency-key': 'order-new-client-500' };
    const first = await pay(newClientPayment('b', '22.20'), headers);
    expect([first.status, first.body.code]).toEqual([500, 8]);
    const client = v1.createdClients.at(-1)!;
    const charged = v1.ledger.at(-1)!;
    await until('the claim settled in the background', async () => (await metricSum(gateway, 'legacy_gateway_payments_settled_total')) > settledBefore);
    const reads = v1.received.length;
    const repeat = await pay(newClientPayment('b', '22.20'), headers);
    expect([repeat.status, repeat.headers.get('idempotent-replayed')]).toEqual([200, 'true']);
    expect(repeat.body).toEqual({ status: 'success', code: 12, response: `payment added (payment id ${charged.id})` });
    expect(v1.received.length).toBe(reads);
    expect(calls().filter((c) => !isListRead(client)(c))).toEqual(['POST /api/v1/clients', 'POST /api/v1/payments']);
  });
});

describe('a new client\'s payment that never reached the ledger', () => {
  it('is settled "not paid" after the window and a second read; the next repeat pays once, for the client created', async () => {
    v1.next('drop');
    const first = await pay(newClientPayment('c', '23.30'));
    expect([first.status, first.body.code]).toEqual([502, 8]);
    const client = v1.createdClients.at(-1)!;
    const ledgerBefore = v1.ledger.length;

    const repeat = await pay(newClientPayment('c', '23.30'));
    expect([repeat.status, repeat.headers.get('idempotent-replayed')]).toEqual([200, null]);
    expect(repeat.body).toEqual({ status: 'failure', code: 8, response: notPaid });
    expect(v1.ledger.length).toBe(ledgerBefore);

    const next = await pay(newClientPayment('c', '23.30'));
    expect([next.status, next.headers.get('idempotent-replayed'), next.body.code]).toEqual([200, null, 12]);
    expect(v1.ledger.length).toBe(ledgerBefore + 1);
    expect(next.body.response).toBe(`payment added (payment id ${v1.ledger.at(-1)!.id})`);
    // One client, two payment POSTs (the one lost, the one paid), both for it; the second run read the
    // client's list for its mark, as a payment for an existing client does.
    expect(calls().filter((c) => !isListRead(client)(c))).toEqual(['POST /api/v1/clients', 'POST /api/v1/payments', 'POST /api/v1/payments']);
    expect(paidFor()).toEqual([client, client]);
    expect(v1.ledger.at(-1)!.client_id).toBe(client);
    // Paid and answered: every later repeat of a keyless payment is a new payment, still for that client.
    const again = await pay(newClientPayment('c', '23.30'));
    expect(again.body.code).toBe(12);
    expect(paidFor()).toEqual([client, client, client]);
    expect(v1.createdClients.filter((id) => id === client)).toHaveLength(1);
    expect(calls().filter((c) => c === 'POST /api/v1/clients')).toHaveLength(1);
  });

  it('the same with an Idempotency-Key: the key\'s next call pays once, for the client created', async () => {
    v1.next('drop');
    const headers = { 'idempotency-key': 'order-new-client-drop' };
    const first = await pay(newClientPayment('d', '24.40'), headers);
    expect([first.status, first.body.code]).toEqual([502, 8]);
    const client = v1.createdClients.at(-1)!;
    const repeat = await pay(newClientPayment('d', '24.40'), headers);
    expect(repeat.body).toEqual({ status: 'failure', code: 8, response: notPaid });
    const next = await pay(newClientPayment('d', '24.40'), headers);
    expect([next.status, next.body.code]).toEqual([200, 12]);
    const paid = v1.ledger.at(-1)!;
    expect(paid.client_id).toBe(client);
    const replay = await pay(newClientPayment('d', '24.40'), headers);
    expect([replay.headers.get('idempotent-replayed'), replay.body.response]).toEqual(['true', `payment added (payment id ${paid.id})`]);
    expect(calls().filter((c) => !isListRead(client)(c))).toEqual(['POST /api/v1/clients', 'POST /api/v1/payments', 'POST /api/v1/payments']);
    expect(paidFor()).toEqual([client, client]);
  });
});

describe('a new client\'s payment refused: its repeat creates no second client', () => {
  it('the card declined after the client was created: the identical repeat pays for that client', async () => {
    v1.next('decline');
    const first = await pay(newClientPayment('e', '25.50'));
    const client = v1.createdClients.at(-1)!;
    expect([first.status, first.body.code]).toEqual([200, 11]);
    expect(first.body.response).toContain(`retry with client_id=${client}`);
    const next = await pay(newClientPayment('e', '25.50'));
    expect([next.status, next.body.code]).toEqual([200, 12]);
    expect(v1.ledger.at(-1)!.client_id).toBe(client);
    expect(calls().filter((c) => !isListRead(client)(c))).toEqual(['POST /api/v1/clients', 'POST /api/v1/payments', 'POST /api/v1/payments']);
    expect(paidFor()).toEqual([client, client]);
  });
});
