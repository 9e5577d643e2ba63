// Unknown outcomes settled from v1's payments list, black box: `serve` in front of a fake v1 that keeps a
// ledger (test/helpers/ledger-upstream.ts) and can charge a payment and then lose its answer (drop the
// connection, answer 500). A repeat of such a payment waits for a settle attempt: one record in the ledger
// since the POST answers as paid (code 12, that record's id, Idempotent-Replayed); none, past
// PAYMENT_SETTLE_AFTER_S and on a second read, answers "not paid" and releases the claim, so the next
// repeat pays (once); two matching records stay unknown (Retry-After). Claims are also settled in the
// background, with no repeat at all, and by an operator (`legacy-gateway payments unknown | settle`). Every
// test counts the payment POSTs that reached v1.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli-in-process.js';
// The command's modules load with the file, not within a test's time (the command line loads them when run).
import '../../src/commands/payments.js';
import { fetchReply, type Reply } from '../helpers/fetch-reply.js';
import { metricSum, startGatewayProcess, until, type GatewayProcess } from '../helpers/gateway-process.js';
import { startLedgerUpstream, type LedgerUpstream } from '../helpers/ledger-upstream.js';

const CALLER_KEY = 'caller-api-key-SETTLE-1';
const TOKEN = 'tok_visa_SETTLE_SECRET';

let v1: LedgerUpstream;
let gateway: GatewayProcess;

interface PaymentReply extends Reply {
  body: { status: string; code: number; response: string };
}

const payment = (amount: string, extra: Record<string, string> = {}) => ({ client_id: '1', revenue_amount: amount, send_email: '0', token: TOKEN, ...extra });

async function pay(fields: Record<string, string>, headers: Record<string, string> = {}): Promise<PaymentReply> {
  return (await fetchReply(`${gateway.url}/api/payment`, { method: 'POST', body: new URLSearchParams(fields), headers: { 'x-api-key': CALLER_KEY, ...headers } })) as PaymentReply;
}

beforeAll(async () => {
  v1 = await startLedgerUpstream();
  // The repeat's patience: 3 x 2000 ms + 2 s; a settle window of 1 s and its second read fit in it with room to
  // spare on a loaded machine (no test here waits for a timeout).
  gateway = await startGatewayProcess(v1.url, { UPSTREAM_TIMEOUT_MS: '2000', METRICS_PORT: '0', PAYMENT_SETTLE_AFTER_S: '1' });
});
afterAll(async () => {
  await gateway?.stop('SIGKILL');
  await v1?.close();
  const text = gateway.lines.join('\n');
  for (const secret of [CALLER_KEY, TOKEN]) expect(text).not.toContain(secret);
});
beforeEach(() => {
  v1.received.length = 0;
});

describe('a payment charged whose answer was lost', () => {
  it('the connection dropped after the charge: the repeat gets code 12 with the ledger id, replayed; one POST', async () => {
    v1.next('charge-then-drop');
    const first = await pay(payment('11.10'));
    expect([first.status, first.body.code]).toEqual([502, 8]);
    const charged = v1.ledger.at(-1)!;
    expect(charged.amount).toBe(11.1);
    const repeat = await pay(payment('11.10'));
    expect([repeat.status, repeat.headers.get('idempotent-replayed'), repeat.headers.get('retry-after')]).toEqual([200, 'true', null]);
    expect(repeat.body).toEqual({ status: 'success', code: 12, response: `payment added (payment id ${charged.id})` });
    // Every later repeat replays it, without reading the list again.
    const listReads = v1.received.filter((r) => r.method === 'GET' && r.url.startsWith('/api/v1/payments')).length;
    const again = await pay(payment('11.10'));
    expect([again.status, again.headers.get('idempotent-replayed'), again.body.code]).toEqual([200, 'true', 12]);
    expect(v1.received.filter((r) => r.method === 'GET' && r.url.startsWith('/api/v1/payments'))).toHaveLength(listReads);
    expect(v1.posts()).toBe(1);
  });

  it('v1 answered 500 after the charge, with an Idempotency-Key: the repeat gets code 12 with the ledger id; one POST', async () => {
    v1.next('charge-then-500');
    const headers = { 'idempotency-key': 'order-settle-500' };
    const first = await pay(payment('12.20'), headers);
    expect([first.status, first.body.code]).toEqual([500, 8]);
    const charged = v1.ledger.at(-1)!;
    const repeat = await pay(payment('12.20'), headers);
    expect([repeat.status, repeat.headers.get('idempotent-replayed')]).toEqual([200, 'true']);
    expect(repeat.body).toEqual({ status: 'success', code: 12, response: `payment added (payment id ${charged.id})` });
    expect(v1.posts()).toBe(1);
  });

  it('an identical payment made earlier is not taken for it: only records newer than the POST count', async () => {
    // The same payment, paid and answered: an identical one after it is meant.
    const earlier = await pay(payment('13.30'));
    expect(earlier.body.code).toBe(12);
    v1.next('charge-then-drop');
    const first = await pay(payment('13.30'));
    expect(first.body.code).toBe(8);
    const charged = v1.ledger.at(-1)!;
    const repeat = await pay(payment('13.30'));
    expect(repeat.body).toEqual({ status: 'success', code: 12, response: `payment added (payment id ${charged.id})` });
    expect(v1.posts()).toBe(2);
  });
});

describe('a payment that never reached the ledger', () => {
  it('is settled "not paid" once the window passed and a second read found none; the next repeat pays once', async () => {
    v1.next('drop');
    const ledgerBefore = v1.ledger.length;
    const first = await pay(payment('14.40'));
    expect([first.status, first.body.code]).toEqual([502, 8]);
    const repeat = await pay(payment('14.40'));
    expect([repeat.status, repeat.headers.get('idempotent-replayed')]).toEqual([200, null]);
    expect(repeat.body).toEqual({
      status: 'failure',
      code: 8,
      response: "payment error: the payment's outcome was unknown, and v1's payments list shows that no payment was made; it can be sent again",
    });
    expect(v1.posts()).toBe(1);
    const next = await pay(payment('14.40'));
    expect([next.status, next.headers.get('idempotent-replayed'), next.body.code]).toEqual([200, null, 12]);
    expect(v1.posts()).toBe(2);
    expect(v1.ledger.length).toBe(ledgerBefore + 1);
    expect(next.body.response).toBe(`payment added (payment id ${v1.ledger.at(-1)!.id})`);
  });
});

describe('what cannot be settled stays unknown', () => {
  it('two matching records: the repeat answers the first reply with Retry-After; one POST', async () => {
    v1.next('charge-twice-then-drop');
    const first = await pay(payment('15.50'));
    expect([first.status, first.body.code]).toEqual([502, 8]);
    const repeat = await pay(payment('15.50'));
    expect(repeat.text).toBe(first.text);
    expect([repeat.status, repeat.headers.get('idempotent-replayed')]).toEqual([502, 'true']);
    expect(Number(repeat.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(v1.posts()).toBe(1);
  });

  it('the list cannot be read: the repeat answers the first reply with Retry-After; one POST', async () => {
    v1.next('charge-then-drop');
    const first = await pay(payment('16.60'));
    expect(first.body.code).toBe(8);
    v1.failList(true);
    try {
      const repeat = await pay(payment('16.60'));
      expect(repeat.text).toBe(first.text);
      expect([repeat.status, repeat.headers.get('idempotent-replayed')]).toEqual([502, 'true']);
      expect(Number(repeat.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    } finally {
      v1.failList(false);
    }
    // Once the list reads again, the next repeat settles it.
    const later = await pay(payment('16.60'));
    expect(later.body).toEqual({ status: 'success', code: 12, response: `payment added (payment id ${v1.ledger.at(-1)!.id})` });
    expect(v1.posts()).toBe(1);
  });
});

describe('settled in the background, with no repeat', () => {
  it('a payment charged whose answer was lost is settled paid; a later repeat replays it without reading the list', async () => {
    const settledBefore = await metricSum(gateway, 'legacy_gateway_payments_settled_total');
    v1.next('charge-then-drop');
    const first = await pay(payment('17.70'), { 'idempotency-key': 'order-background-1' });
    expect(first.body.code).toBe(8);
    const charged = v1.ledger.at(-1)!;
    await until('the claim settled in the background', async () => (await metricSum(gateway, 'legacy_gateway_payments_settled_total')) > settledBefore);
    const reads = v1.received.length;
    const repeat = await pay(payment('17.70'), { 'idempotency-key': 'order-background-1' });
    expect([repeat.status, repeat.headers.get('idempotent-replayed')]).toEqual([200, 'true']);
    expect(repeat.body).toEqual({ status: 'success', code: 12, response: `payment added (payment id ${charged.id})` });
    expect(v1.received.slice(reads).filter((r) => r.method === 'GET' && r.url.startsWith('/api/v1/payments'))).toEqual([]);
    expect(v1.posts()).toBe(1);
  });

  it('what cannot be settled is counted as unknown, with the age of the oldest', async () => {
    // The claim of 15.50 (two matching records) is still unknown.
    await until('the unknown claims counted', async () => (await metricSum(gateway, 'legacy_gateway_payments_unknown')) >= 1);
    expect(await metricSum(gateway, 'legacy_gateway_payments_unknown_oldest_age_seconds')).toBeGreaterThan(0);
  });
});

/** `legacy-gateway payments ...` against the gateway's metrics listener, its command line run in the test's
 * process (test/helpers/cli-in-process.ts): its exit code and output. */
async function payments(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const listener = new URL(gateway.metricsUrl!).origin;
  const { code, stdout, stderr } = await runCli(['payments', ...args, '--url', listener]);
  return { code, out: stdout, err: stderr };
}

interface Row {
  claim: string;
  amount: string;
  client: string;
  caller: string;
  ageSeconds: number;
  state: string;
}

describe('legacy-gateway payments unknown | settle', () => {
  it('lists the unknown payments (never a key or token), and settles one paid by hand: its repeat gets code 12', async () => {
    v1.next('charge-twice-then-drop');
    const first = await pay(payment('18.80'), { 'idempotency-key': 'order-operator-1' });
    expect(first.body.code).toBe(8);
    const [twin] = v1.ledger.slice(-2);
    const listed = await payments('unknown', '--json');
    expect(listed.code).toBe(0);
    const rows = (JSON.parse(listed.out) as { payments: Row[] }).payments;
    const row = rows.find((r) => r.amount === '18.8')!;
    expect(row).toMatchObject({ client: '1', state: 'answered' });
    expect(row.caller).toMatch(/^[0-9a-f]+$/);
    // In hex: a claim never begins with "-", which the command line would read as an option.
    expect(row.claim).toMatch(/^[0-9a-f]{64}$/);
    const table = await payments('unknown');
    expect(table.out).toContain(row.claim);
    for (const text of [listed.out, table.out]) for (const secret of [CALLER_KEY, TOKEN, 'order-operator-1']) expect(text).not.toContain(secret);

    const settled = await payments('settle', row.claim, '--paid', String(twin!.id));
    expect([settled.code, settled.out]).toEqual([0, `${row.claim}: settled paid, payment id ${twin!.id}\n`]);
    const repeat = await pay(payment('18.80'), { 'idempotency-key': 'order-operator-1' });
    expect([repeat.status, repeat.headers.get('idempotent-replayed')]).toEqual([200, 'true']);
    expect(repeat.body).toEqual({ status: 'success', code: 12, response: `payment added (payment id ${twin!.id})` });
    expect(gateway.lines.some((l) => l.includes('settled by an operator') && l.includes('"level":40'))).toBe(true);
    // Settled, it is no longer listed, and cannot be settled again.
    expect((JSON.parse((await payments('unknown', '--json')).out) as { payments: Row[] }).payments.map((r) => r.claim)).not.toContain(row.claim);
    const again = await payments('settle', row.claim, '--not-paid');
    expect(again.code).toBe(1);
    expect(again.err).toContain('not unknown');
    expect(v1.posts()).toBe(1);
  });

  it('settles one not paid by hand: its next repeat pays, once', async () => {
    v1.next('charge-twice-then-drop');
    const first = await pay(payment('19.90'));
    expect(first.body.code).toBe(8);
    const row = (JSON.parse((await payments('unknown', '--json')).out) as { payments: Row[] }).payments.find((r) => r.amount === '19.9')!;
    const settled = await payments('settle', row.claim, '--not-paid');
    expect([settled.code, settled.err]).toEqual([0, '']);
    const next = await pay(payment('19.90'));
    expect([next.body.code, next.headers.get('idempotent-replayed')]).toEqual([12, null]);
    expect(v1.posts()).toBe(2);
  });

  it('refuses a decision that is not one: exit 2 before any call', async () => {
    expect((await payments('settle', 'abc', '--paid', '5', '--not-paid')).code).toBe(2);
    expect((await payments('settle', 'abc', '--paid', 'x')).code).toBe(2);
  });
});
