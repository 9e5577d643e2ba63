// POST /api/payment end to end: each legacy code 0 to 12 through the real HTTP path (gateway + sandbox,
// or a recording fake where the sandbox cannot show a case), with the exact reply and the exact list of
// v1 calls made; the body encodings; the 413; Idempotency-Key; timeouts and dropped connections; and a
// log capture over the whole suite that holds none of the secrets sent.
import http from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SANDBOX_KEYS, startSandbox } from '../../src/sandbox/index.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { json, startRecordingUpstream, v1List, type RecordingUpstream } from '../helpers/recording-upstream.js';

type Sandbox = Awaited<ReturnType<typeof startSandbox>>;
let sandbox: Sandbox;
let gateway: TestGateway;
const allLogs: string[] = [];

const SECRET_TOKEN = 'tok_visa_SECRET_4242';
const SECRET_PASSWORD = 'S3cret-Passw0rd!';
const CALLER_KEY = SANDBOX_KEYS.primary;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, paymentHangMs: 5_000 });
  // Cache off: these tests list every v1 call each payment makes (the timezone list is otherwise cached).
  gateway = await startTestGateway({ UPSTREAM_URL: sandbox.url, UPSTREAM_API_KEY: SANDBOX_KEYS.primary, CACHE_TTL_MS: '0' });
});
afterAll(async () => {
  allLogs.push(...gateway.logs);
  await gateway.close();
  await sandbox.close();
  // Every log line written by every gateway of this suite: no secret, in any spelling.
  const text = allLogs.join('\n');
  for (const secret of [SECRET_TOKEN, SECRET_PASSWORD, CALLER_KEY, 'FAKE-UPSTREAM-KEY']) expect(text).not.toContain(secret);
});
beforeEach(() => {
  sandbox.state.requests.length = 0;
});

/** The v1 calls the sandbox received, as `METHOD path?query`. */
const v1Calls = () =>
  sandbox.state.requests.map((r) => {
    const pairs: Array<[string, string]> = Object.entries(r.query).flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map((x): [string, string] => [k, x]));
    const query = new URLSearchParams(pairs).toString();
    return `${r.method} ${r.path}${query ? `?${query}` : ''}`;
  });

async function pay(base: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}/api/payment`, { method: 'POST', body: new URLSearchParams(fields), headers });
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text) as { status: string; code: number; response: string }, headers: res.headers };
}

const existing = { client_id: '1', revenue_amount: '45.50', send_email: '0' };
const newClient = { first_name: 'Nia', last_name: 'Okafor', state: 'IL', country: 'US', status: 'active', revenue_amount: '30.00', send_email: '1' };

/** The newest payment id of the client, read before a claimed payment's POST: what settles it should its
 * outcome be unknown (docs/payments.md). */
const LEDGER_MARK = 'GET /api/v1/payments?client_id=1&offset=0&limit=1';

describe('each legacy payment code, with the v1 calls it took', () => {
  it('code 1: required fields missing, no upstream call', async () => {
    const r = await pay(gateway.url, { revenue_amount: '10.00', first_name: 'A' });
    expect(r.status).toBe(200);
    expect(r.text).toBe('{"status":"failure","code":1,"response":"required fields missing: send_email, last_name, state, country, status"}');
    expect(v1Calls()).toEqual([]);
  });

  it.each([
    [{ ...existing, revenue_amount: '1,000.00' }, 'revenue_amount'],
    [{ ...existing, revenue_amount: '$5' }, 'revenue_amount'],
    [{ ...existing, revenue_amount: '5.' }, 'revenue_amount'],
    [{ ...existing, send_email: 'yes' }, 'send_email'],
    [{ ...existing, client_id: '1a', service_id: '-2' }, 'client_id, service_id'],
    [{ ...newClient, inactive_date: '2024-02-30', status: 'gone', mAvailf: '9:00', mAvailt: '17:00' }, 'inactive_date, status, mAvailf'],
    [{ ...newClient, tAvailf: '10:00' }, 'tAvailt'],
  ])('code 0: %j is malformed (%s), no upstream call', async (fields, names) => {
    const r = await pay(gateway.url, fields);
    expect(r.text).toBe(JSON.stringify({ status: 'failure', code: 0, response: `invalid fields: ${names}` }));
    expect(v1Calls()).toEqual([]);
  });

  it('code 0: a v1 400 on client creation, naming the field', async () => {
    const r = await pay(gateway.url, { ...newClient, first_name: 'N'.repeat(60) });
    expect(r.body).toEqual({ status: 'failure', code: 0, response: expect.stringMatching(/^first_name /) });
    expect(v1Calls()).toEqual(['POST /api/v1/clients']);
  });

  it('code 3: passwords differ, no upstream call, and neither password in the reply', async () => {
    const r = await pay(gateway.url, { ...newClient, password: SECRET_PASSWORD, password2: 'other' });
    expect(r.text).toBe('{"status":"failure","code":3,"response":"passwords do not match"}');
    expect(v1Calls()).toEqual([]);
  });

  it('code 6: the client id does not exist', async () => {
    const r = await pay(gateway.url, { ...existing, client_id: '99999' });
    expect(r.text).toBe('{"status":"failure","code":6,"response":"client id not found"}');
    expect(v1Calls()).toEqual(['GET /api/v1/clients/99999']);
  });

  it('code 10: the service id does not exist', async () => {
    const r = await pay(gateway.url, { ...existing, service_id: '999' });
    expect(r.text).toBe('{"status":"failure","code":10,"response":"unknown service id"}');
    expect(v1Calls()).toEqual(['GET /api/v1/clients/1', 'GET /api/v1/services/999']);
  });

  it('code 7: an unknown discount code, and a service-specific one for another service', async () => {
    const unknown = await pay(gateway.url, { ...existing, discount: 'NOPE' });
    expect(unknown.text).toBe('{"status":"failure","code":7,"response":"discount code is not valid"}');
    expect(v1Calls()).toEqual(['GET /api/v1/clients/1', 'GET /api/v1/discounts?code=NOPE&offset=0&limit=100']);
    sandbox.state.requests.length = 0;
    const wrong = await pay(gateway.url, { ...existing, discount: 'swim5', service_id: '4' });
    expect(wrong.text).toBe('{"status":"failure","code":7,"response":"discount code is not valid for this service"}');
    expect(v1Calls()).toEqual(['GET /api/v1/clients/1', 'GET /api/v1/services/4', 'GET /api/v1/discounts?code=swim5&offset=0&limit=100']);
    const missing = await pay(gateway.url, { ...existing, discount: 'SWIM5' });
    expect(missing.body.code).toBe(7);
  });

  it('code 4: creating the client answers 409 naming the username', async () => {
    const r = await pay(gateway.url, { ...newClient, username: 'ghopper' });
    expect(r.text).toBe('{"status":"failure","code":4,"response":"username already exists"}');
    expect(v1Calls()).toEqual(['POST /api/v1/clients']);
  });

  it('code 2: creating the client answers another 409', async () => {
    const r = await pay(gateway.url, { ...newClient, email: 'ADA.LOVELACE@example.com' });
    expect(r.text).toBe('{"status":"failure","code":2,"response":"a client with this email already exists"}');
    expect(v1Calls()).toEqual(['POST /api/v1/clients']);
  });

  it('code 9: a package payment is refused', async () => {
    const r = await pay(gateway.url, { ...existing, service_id: '2' });
    expect(r.text).toBe('{"status":"failure","code":9,"response":"package payments cannot be made through the API"}');
    expect(v1Calls()).toEqual(['GET /api/v1/clients/1', 'GET /api/v1/services/2', LEDGER_MARK, 'POST /api/v1/payments']);
  });

  it('code 11: the card is refused', async () => {
    const r = await pay(gateway.url, { ...existing, token: 'tok_declined' });
    expect(r.text).toBe('{"status":"failure","code":11,"response":"the card was declined"}');
    expect(v1Calls()).toEqual(['GET /api/v1/clients/1', LEDGER_MARK, 'POST /api/v1/payments']);
  });

  it('code 8: the payment is refused otherwise (HTTP 200)', async () => {
    const r = await pay(gateway.url, { ...existing, token: 'tok_refused' });
    expect(r.status).toBe(200);
    expect(r.text).toBe('{"status":"failure","code":8,"response":"the payment was refused by the processor"}');
    expect(v1Calls()).toEqual(['GET /api/v1/clients/1', LEDGER_MARK, 'POST /api/v1/payments']);
  });

  it('code 12: the payment is created, with its id; the v1 body carries the mapped fields only', async () => {
    const before = sandbox.state.payments.length;
    const r = await pay(gateway.url, { ...existing, token: SECRET_TOKEN, revenue_note: 'June lessons', service_id: '1', discount: 'SWIM5', timezone: 'America/Chicago', unknown_field: 'x' });
    const created = sandbox.state.payments.at(-1)!;
    expect(sandbox.state.payments.length).toBe(before + 1);
    expect(r.text).toBe(`{"status":"success","code":12,"response":"payment added (payment id ${created.id})"}`);
    expect(created).toMatchObject({ client_id: 1, service_id: 1, amount: 45.5, discount_code: 'SWIM5', note: 'June lessons', send_email: 0, timezone: 'America/Chicago' });
    expect(v1Calls()).toEqual([
      'GET /api/v1/clients/1',
      'GET /api/v1/services/1',
      'GET /api/v1/discounts?code=SWIM5&offset=0&limit=100',
      'GET /api/v1/timezones?offset=0&limit=1000',
      LEDGER_MARK,
      'POST /api/v1/payments',
    ]);
  });

  it('code 12 with a new client: client created, then paid; an unknown timezone becomes America/New_York', async () => {
    const r = await pay(gateway.url, { ...newClient, username: 'nia.okafor', email: 'nia@example.com', password: SECRET_PASSWORD, password2: SECRET_PASSWORD, mAvailf: '09:00', mAvailt: '12:30', timezone: 'Mars/Olympus' });
    expect(r.body).toMatchObject({ status: 'success', code: 12 });
    const client = sandbox.state.clients.at(-1)!;
    expect(client).toMatchObject({ first_name: 'Nia', username: 'nia.okafor', timezone: 'America/New_York' });
    expect(sandbox.state.payments.at(-1)).toMatchObject({ client_id: client.id, amount: 30, send_email: 1, timezone: 'America/New_York' });
    expect(v1Calls()).toEqual(['GET /api/v1/timezones?offset=0&limit=1000', 'POST /api/v1/clients', 'POST /api/v1/payments']);
  });

  it('partial outcome: the client was created but the card was refused; the reply gives the new id', async () => {
    const r = await pay(gateway.url, { ...newClient, first_name: 'Ola', email: 'ola@example.com', token: 'tok_declined' });
    const client = sandbox.state.clients.at(-1)!;
    expect(client.first_name).toBe('Ola');
    expect(r.text).toBe(
      `{"status":"failure","code":11,"response":"the card was declined (the new client was created with id ${client.id}: retry with client_id=${client.id})"}`,
    );
  });
});

describe('fields the gateway does not know', () => {
  const IGNORED = 'payment fields ignored: the gateway does not know them';
  const ignoredLines = (requestId: string) =>
    gateway.logs.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === IGNORED && l.reqId === requestId);

  it('are ignored, and named at debug once per payment, by name only', async () => {
    const r = await pay(gateway.url, { ...existing, revenue_ammount: 'VALUE-NOT-LOGGED-1', x_order_ref: 'VALUE-NOT-LOGGED-2' }, { 'x-request-id': 'unknown-fields-1' });
    expect(r.text).toMatch(/^\{"status":"success","code":12,"response":"payment added \(payment id \d+\)"\}$/);
    const created = sandbox.state.payments.at(-1)!;
    expect(Object.keys(created)).not.toContain('revenue_ammount');
    const [line, ...more] = ignoredLines('unknown-fields-1');
    expect(more).toEqual([]);
    const { time, ...rest } = line ?? {};
    expect(typeof time).toBe('number');
    expect(rest).toEqual({ level: 20, service: 'legacy-gateway', reqId: 'unknown-fields-1', unknownFields: ['revenue_ammount', 'x_order_ref'], unknownFieldCount: 2, msg: IGNORED });
    expect(gateway.logs.join('\n')).not.toContain('VALUE-NOT-LOGGED');
  });

  it('writes no such line when every field is known, and names at most 20, each cut to 64 characters', async () => {
    await pay(gateway.url, { ...newClient, password: SECRET_PASSWORD, password2: SECRET_PASSWORD, mAvailf: '09:00', mAvailt: '12:30' }, { 'x-request-id': 'unknown-fields-2' });
    expect(ignoredLines('unknown-fields-2')).toEqual([]);

    const many = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`extra_${String(i).padStart(2, '0')}_${'n'.repeat(80)}`, 'v']));
    await pay(gateway.url, { ...existing, ...many }, { 'x-request-id': 'unknown-fields-3' });
    const [line] = ignoredLines('unknown-fields-3');
    expect(line?.unknownFieldCount).toBe(25);
    expect(line?.unknownFields).toEqual(Array.from({ length: 20 }, (_, i) => `extra_${String(i).padStart(2, '0')}_${'n'.repeat(55)}`));
  });
});

describe('body encodings and limits', () => {
  it('accepts JSON, with numbers as numbers', async () => {
    const res = await fetch(`${gateway.url}/api/payment`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_id: 1, revenue_amount: 12.5, send_email: 0 }) });
    expect(await res.json()).toMatchObject({ status: 'success', code: 12 });
  });

  it('accepts multipart/form-data fields, and refuses a file part with code 0', async () => {
    const form = new FormData();
    for (const [k, v] of Object.entries(existing)) form.append(k, v);
    const ok = await fetch(`${gateway.url}/api/payment`, { method: 'POST', body: form });
    expect(await ok.json()).toMatchObject({ status: 'success', code: 12 });
    sandbox.state.requests.length = 0;
    form.append('receipt', new Blob(['%PDF-1.4']), 'receipt.pdf');
    const withFile = await fetch(`${gateway.url}/api/payment`, { method: 'POST', body: form });
    expect(await withFile.text()).toBe('{"status":"failure","code":0,"response":"invalid fields: receipt (file uploads are not accepted)"}');
    expect(v1Calls()).toEqual([]);
  });

  it('answers 413 in the payment shape for a body over 256 KB, before anything reaches v1', async () => {
    const r = await pay(gateway.url, { ...existing, revenue_note: 'x'.repeat(300 * 1024) });
    expect(r.status).toBe(413);
    expect(r.text).toBe('{"status":"failure","code":0,"response":"the request body is larger than 262144 bytes"}');
    expect(v1Calls()).toEqual([]);
  });

  it('refuses another content type with 415, and malformed JSON with code 0', async () => {
    const xml = await fetch(`${gateway.url}/api/payment`, { method: 'POST', headers: { 'content-type': 'text/xml' }, body: '<x/>' });
    expect(xml.status).toBe(415);
    expect(await xml.json()).toEqual({ status: 'failure', code: 0, response: 'the request body must be application/x-www-form-urlencoded, multipart/form-data or JSON' });
    const bad = await fetch(`${gateway.url}/api/payment`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"client_id":' });
    expect(await bad.json()).toEqual({ status: 'failure', code: 0, response: 'invalid fields: body' });
    expect(v1Calls()).toEqual([]);
  });
});

describe('never paying twice', () => {
  const payments = () => v1Calls().filter((c) => c === 'POST /api/v1/payments').length;

  it('a repeated Idempotency-Key returns the stored reply without another payment', async () => {
    const first = await pay(gateway.url, existing, { 'idempotency-key': 'order-1001' });
    const second = await pay(gateway.url, existing, { 'idempotency-key': 'order-1001' });
    expect(first.body.code).toBe(12);
    expect(second.text).toBe(first.text);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(payments()).toBe(1);
  });

  it('concurrent repeats wait for the first reply: exactly one payment POST', async () => {
    const replies = await Promise.all(Array.from({ length: 8 }, () => pay(gateway.url, existing, { 'idempotency-key': 'order-2002' })));
    expect(new Set(replies.map((r) => r.text)).size).toBe(1);
    expect(replies[0]!.body.code).toBe(12);
    expect(payments()).toBe(1);
  });

  it('the same key with another payment answers 409; under another API key the key is a new one', async () => {
    await pay(gateway.url, existing, { 'idempotency-key': 'order-3003' });
    const other = await pay(gateway.url, { ...existing, revenue_amount: '99.00' }, { 'idempotency-key': 'order-3003' });
    expect(other.status).toBe(409);
    expect(other.body).toEqual({ status: 'failure', code: 0, response: 'this Idempotency-Key was already used for a different payment' });
    expect(payments()).toBe(1);
    // Another API key (the sandbox's secondary key, which may not create payments): not a replay, not a mismatch.
    const otherKey = await pay(gateway.url, { ...existing, revenue_amount: '99.00' }, { 'idempotency-key': 'order-3003', 'x-api-key': SANDBOX_KEYS.secondary });
    expect(otherKey.headers.get('idempotent-replayed')).toBeNull();
    expect(otherKey.status).toBe(403);
    expect(otherKey.body.code).toBe(8);
    expect(payments()).toBe(2);
  });

  it('a payment POST that times out answers code 8 (504) after exactly one attempt', async () => {
    // The sandbox holds tok_timeout's POST for a minute; the client check before it is answered on loopback,
    // far within the timeout however loaded the machine.
    const slow = await startTestGateway({ UPSTREAM_URL: sandbox.url, UPSTREAM_API_KEY: SANDBOX_KEYS.primary, UPSTREAM_TIMEOUT_MS: '2000' });
    try {
      const before = sandbox.state.payments.length;
      const r = await pay(slow.url, { ...existing, token: 'tok_timeout' });
      expect(r.status).toBe(504);
      expect(r.text).toBe(
        '{"status":"failure","code":8,"response":"payment error: the outcome of the payment is unknown (the upstream did not answer within 2000 ms); check the payments list before retrying"}',
      );
      expect(payments()).toBe(1);
      // The sandbox did record it: exactly why the reply says to check before retrying.
      expect(sandbox.state.payments.length).toBe(before + 1);
    } finally {
      allLogs.push(...slow.logs);
      await slow.close();
    }
  });
});

describe('upstream faults on the payment POST (recording fake upstream)', () => {
  let fake: RecordingUpstream;
  let viaFake: TestGateway;

  beforeAll(async () => {
    fake = await startRecordingUpstream();
    // Each call here is one fault on its own: the duplicate check (which would answer a repeat after an
    // unknown outcome with the first reply) is off, and has tests of its own (payment-duplicates.test.ts).
    viaFake = await startTestGateway({ UPSTREAM_URL: fake.url, UPSTREAM_API_KEY: 'FAKE-UPSTREAM-KEY', PAYMENT_DUPLICATE_WINDOW_S: '0' });
  });
  afterAll(async () => {
    allLogs.push(...viaFake.logs);
    await viaFake.close();
    await fake.close();
  });
  beforeEach(() => {
    fake.received.length = 0;
  });

  const calls = () => fake.received.map((r) => `${r.method} ${r.url}`);
  const answer = (onPayment: (res: http.ServerResponse) => void, onClient?: (res: http.ServerResponse) => void) =>
    fake.handle((req, res, raw) => {
      if (req.method === 'GET' && req.url.startsWith('/api/v1/clients/')) return json(res, 200, { object: 'client', id: 1 });
      if (req.method === 'GET' && req.url.startsWith('/api/v1/timezones')) return json(res, 200, v1List([{ object: 'timezone', id: 1, name: 'America/New_York' }]));
      if (req.method === 'POST' && req.url === '/api/v1/clients') return onClient ? onClient(res) : json(res, 201, { object: 'client', id: 77 });
      if (req.method === 'POST' && req.url === '/api/v1/payments') return onPayment(res);
      raw.socket.destroy();
    });

  it('a connection dropped during the payment POST answers code 8 (502) after exactly one attempt', async () => {
    answer((res) => res.socket?.destroy());
    const r = await pay(viaFake.url, existing);
    expect(r.status).toBe(502);
    expect(r.body).toEqual({ status: 'failure', code: 8, response: 'payment error: the outcome of the payment is unknown (the upstream could not be reached); check the payments list before retrying' });
    expect(calls()).toEqual(['GET /api/v1/clients/1', 'POST /api/v1/payments']);
  });

  it.each([
    [503, 'maintenance', 'payment error: the service could not be reached or refused the request (Down for maintenance.); no payment was made'],
    [500, 'server_error', 'payment error: the outcome of the payment is unknown (Down for maintenance.); check the payments list before retrying'],
    [429, 'rate_limited', 'payment error: the service could not be reached or refused the request (Down for maintenance.); no payment was made'],
  ])('a v1 %i on the payment POST answers code 8 with that status, once', async (status, code, message) => {
    answer((res) => json(res, status, { error: { code, message: 'Down for maintenance.' } }));
    const r = await pay(viaFake.url, existing);
    expect(r.status).toBe(status);
    expect(r.body).toEqual({ status: 'failure', code: 8, response: message });
    expect(calls().filter((c) => c.startsWith('POST'))).toEqual(['POST /api/v1/payments']);
  });

  it('code 5: creating the client fails otherwise', async () => {
    answer(
      (res) => json(res, 201, { object: 'payment', id: 1 }),
      (res) => json(res, 422, { error: { code: 'unprocessable', message: 'client could not be created' } }),
    );
    const r = await pay(viaFake.url, newClient);
    expect(r.text).toBe('{"status":"failure","code":5,"response":"client could not be created"}');
    expect(calls()).toEqual(['POST /api/v1/clients']);
  });

  it('code 7 when v1 lists discounts whose code, status or service is an object: no payment, no 500', async () => {
    // Members named toString, as JSON.parse makes them: String() throws on such an object.
    const odd = { toString: 0 };
    fake.handle((req, res) => {
      if (req.url.startsWith('/api/v1/clients/')) return json(res, 200, { object: 'client', id: 1 });
      json(
        res,
        200,
        v1List([
          { object: 'discount', id: 1, code: odd, status: 'active', service_id: null },
          { object: 'discount', id: 2, code: 'SWIM5', status: odd, service_id: null },
          { object: 'discount', id: 3, code: 'SWIM5', status: 'active', service_id: odd },
        ]),
      );
    });
    const r = await pay(viaFake.url, { ...existing, discount: 'SWIM5' });
    expect([r.status, r.text]).toEqual([200, '{"status":"failure","code":7,"response":"discount code is not valid for this service"}']);
    expect(calls()).toEqual(['GET /api/v1/clients/1', 'GET /api/v1/discounts?code=SWIM5&offset=0&limit=100']);
  });

  it('a v1 5xx while checking the client answers code 8 with that status, before any POST', async () => {
    fake.handle((_req, res) => json(res, 503, { error: { code: 'maintenance', message: 'Back soon.' } }));
    const r = await pay(viaFake.url, existing);
    expect(r.status).toBe(503);
    expect(r.body.code).toBe(8);
    expect(calls().every((c) => c.startsWith('GET'))).toBe(true);
  });
});
