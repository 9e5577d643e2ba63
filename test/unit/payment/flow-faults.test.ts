// The payment flow's answers to faults, by step, with fake ports: a check (client_id, service_id) that
// reads a record of the wrong shape is code 8 ("no payment was made"); a fault while creating the new
// client is code 5 with the fault's HTTP status (the client may exist, or the service refused it);
// neither ever reaches the payment POST.
import { beforeAll, describe, expect, it } from 'vitest';
import { PAYMENT_CODES } from '../../../src/payment/contract.js';
import { runPaymentFlow, type PaymentPorts } from '../../../src/payment/flow.js';
import { isServiceRefusal } from '../../../src/payment/outcome.js';
import type { PaymentMapping } from '../../../src/payment/payment-mapping.js';
import { shippedPaymentMapping } from '../../helpers/payment-mapping.js';
import { GatewayError } from '../../../src/shared/errors.js';

let mapping: PaymentMapping;
beforeAll(async () => {
  mapping = await shippedPaymentMapping();
});

const existing = { client_id: '5', revenue_amount: '10.00', send_email: '1' };
const newClient = { first_name: 'A', last_name: 'B', state: 'IL', country: 'US', status: 'active', revenue_amount: '5', send_email: '0' };

/** Ports answering from functions, remembering every call as `METHOD path`. */
function fakePorts(onGet: (path: string) => unknown, onPost: (path: string) => unknown) {
  const calls: string[] = [];
  const answer = (out: unknown) => {
    if (out instanceof Error) throw out;
    return out;
  };
  const ports: PaymentPorts = {
    get: async (path) => {
      calls.push(`GET ${path}`);
      return answer(onGet(path));
    },
    post: async (path) => {
      calls.push(`POST ${path}`);
      return answer(onPost(path));
    },
  };
  return { calls, ports };
}

/** A GET that finds every record it is asked for, and a time zone list. */
const records = (path: string) => (path.startsWith('/timezones') ? { data: [], has_more: false } : { id: Number(path.split('/').pop()) });
const v1Error = (status: number, message: string, headers: Record<string, string> = {}) => new GatewayError('LGW_UPSTREAM_ERROR', message, { status, headers });

describe('a check that reads a record of the wrong shape', () => {
  /** Replies that are not the record asked for: not an object, no id, or another record's id. */
  const malformed: Array<[unknown, string]> = [
    [{ data: 'not a list' }, 'id: not the requested id 5'],
    [[], 'body: expected a JSON object'],
    ['x', 'body: expected a JSON object'],
    [{}, 'id: not the requested id 5'],
    [{ id: 6 }, 'id: not the requested id 5'],
    [{ object: 'client', id: '6' }, 'id: not the requested id 5'],
    [{ id: null }, 'id: not the requested id 5'],
  ];
  const fault = (reason: string) =>
    `payment error: the service could not be reached or refused the request (the upstream sent a record the gateway does not understand (${reason})); no payment was made`;

  it.each(malformed)('client_id: %j answers code 8 with HTTP 502, before any POST', async (body, reason) => {
    const { calls, ports } = fakePorts((path) => (path === '/clients/5' ? body : records(path)), () => ({ id: 1 }));
    const out = await runPaymentFlow(existing, mapping, ports);
    expect(out).toEqual({ httpStatus: 502, headers: {}, body: { status: 'failure', code: 8, response: fault(reason) } });
    expect(calls).toEqual(['GET /clients/5']);
  });

  it.each(malformed)('service_id: %j answers code 8 with HTTP 502, before any POST', async (body, reason) => {
    const { calls, ports } = fakePorts((path) => (path === '/services/5' ? body : records(path)), () => ({ id: 1 }));
    const out = await runPaymentFlow({ ...existing, client_id: '9', service_id: '005' }, mapping, ports);
    expect(out).toEqual({ httpStatus: 502, headers: {}, body: { status: 'failure', code: 8, response: fault(reason) } });
    expect(calls).toEqual(['GET /clients/9', 'GET /services/5']);
  });

  it('accepts the record whose id is the requested one, as a number or a string', async () => {
    for (const id of [5, '5']) {
      const { calls, ports } = fakePorts((path) => (path === '/clients/5' ? { object: 'client', id } : records(path)), () => ({ id: 31 }));
      expect((await runPaymentFlow(existing, mapping, ports)).body).toEqual({ status: 'success', code: 12, response: 'payment added (payment id 31)' });
      expect(calls).toEqual(['GET /clients/5', 'POST /payments']);
    }
  });

  it('reads the id from the mapping\'s recordIdField', async () => {
    const byUid = { ...mapping, recordIdField: 'uid' };
    const { ports } = fakePorts(() => ({ id: 5 }), () => ({ id: 31 }));
    expect((await runPaymentFlow(existing, byUid, ports)).body.code).toBe(8);
    const other = fakePorts(() => ({ uid: 5 }), () => ({ id: 31 }));
    expect((await runPaymentFlow(existing, byUid, other.ports)).body.code).toBe(12);
  });
});

describe('a fault while creating the new client: code 5, no payment attempted', () => {
  const unknown = (reason: string) =>
    `unable to create the client: the outcome is unknown (${reason}); the client may have been created: look it up before retrying; no payment was made`;
  const refused = (reason: string) => `unable to create the client: the service refused the request (${reason}); no client was created and no payment was made`;
  const connection = (code: string) => new GatewayError('LGW_UPSTREAM_UNREACHABLE', 'the upstream could not be reached', { cause: Object.assign(new Error(code), { code }) });

  it.each([
    ['a 500', v1Error(500, 'Something failed.'), 500, unknown('Something failed.')],
    ['a 503', v1Error(503, 'Down for maintenance.'), 503, unknown('Down for maintenance.')],
    ['a 502', v1Error(502, 'Bad gateway.'), 502, unknown('Bad gateway.')],
    ['a timeout', new GatewayError('LGW_UPSTREAM_TIMEOUT', 'the upstream did not answer within 300 ms'), 504, unknown('the upstream did not answer within 300 ms')],
    ['a dropped connection', connection('ECONNRESET'), 502, unknown('the upstream could not be reached')],
    ['a refused connection', connection('ECONNREFUSED'), 502, unknown('the upstream could not be reached')],
    ['an unreadable reply', new GatewayError('LGW_UPSTREAM_BAD_REPLY', 'the upstream sent a reply that is not valid JSON'), 502, unknown('the upstream sent a reply that is not valid JSON')],
    ['a 401', v1Error(401, 'The API key is missing or unknown.'), 401, refused('The API key is missing or unknown.')],
    ['a 403', v1Error(403, 'This key may not create clients.'), 403, refused('This key may not create clients.')],
  ])('%s answers code 5 with its HTTP status', async (_what, err, status, message) => {
    const { calls, ports } = fakePorts(records, (path) => (path === '/clients' ? err : { id: 1 }));
    const out = await runPaymentFlow(newClient, mapping, ports);
    expect(out).toEqual({ httpStatus: status, headers: {}, body: { status: 'failure', code: PAYMENT_CODES.clientNotCreated, response: message } });
    expect(calls).toEqual(['POST /clients']);
  });

  it('a 429 answers code 5 with its Retry-After', async () => {
    const { calls, ports } = fakePorts(records, () => v1Error(429, 'Hourly limit reached.', { 'retry-after': '1800' }));
    const out = await runPaymentFlow(newClient, mapping, ports);
    expect(out).toEqual({ httpStatus: 429, headers: { 'retry-after': '1800' }, body: { status: 'failure', code: 5, response: refused('Hourly limit reached.') } });
    expect(calls).toEqual(['POST /clients']);
  });

  it('a created client without an id: code 5, the client may exist', async () => {
    const { calls, ports } = fakePorts(records, () => ({ object: 'client' }));
    const out = await runPaymentFlow(newClient, mapping, ports);
    expect(out.httpStatus).toBe(502);
    expect(out.body).toEqual({ status: 'failure', code: 5, response: unknown('the upstream created the client but sent no id') });
    expect(calls).toEqual(['POST /clients']);
  });

  it('a refusal about the request still follows the mapping\'s rules (409: 4 or 2, 400: 0, else 5 with v1\'s message)', async () => {
    const cases: Array<[GatewayError, number, string]> = [
      [v1Error(409, 'username already exists'), 4, 'username already exists'],
      [v1Error(409, 'a client with this email already exists'), 2, 'a client with this email already exists'],
      [v1Error(400, 'first_name is too long'), 0, 'first_name is too long'],
      [v1Error(422, 'client could not be created'), 5, 'client could not be created'],
    ];
    for (const [err, code, response] of cases) {
      const { ports } = fakePorts(records, () => err);
      expect(await runPaymentFlow(newClient, mapping, ports)).toEqual({ httpStatus: 200, headers: {}, body: { status: 'failure', code, response } });
    }
  });
});

describe('a fault on the payment POST stays code 8', () => {
  it.each([
    [v1Error(500, 'x'), 500, 'payment error: the outcome of the payment is unknown (x); check the payments list before retrying'],
    [v1Error(429, 'x'), 429, 'payment error: the service could not be reached or refused the request (x); no payment was made'],
    [new GatewayError('LGW_UPSTREAM_TIMEOUT', 't'), 504, 'payment error: the outcome of the payment is unknown (t); check the payments list before retrying'],
  ])('%s', async (err, status, response) => {
    const { ports } = fakePorts(records, () => err);
    expect(await runPaymentFlow(existing, mapping, ports)).toEqual({ httpStatus: status, headers: {}, body: { status: 'failure', code: 8, response } });
  });
});

describe('isServiceRefusal', () => {
  it('is a v1 401, 403 or 429 only', () => {
    for (const status of [401, 403, 429]) expect(isServiceRefusal(v1Error(status, 'x'))).toBe(true);
    for (const status of [400, 404, 409, 500, 503]) expect(isServiceRefusal(v1Error(status, 'x'))).toBe(false);
    expect(isServiceRefusal(new GatewayError('LGW_UPSTREAM_TIMEOUT', 't'))).toBe(false);
    expect(isServiceRefusal(new GatewayError('LGW_UPSTREAM_UNREACHABLE', 'u'))).toBe(false);
  });
});

describe("the client an earlier run created, when v1's payments list cannot be read before the payment", () => {
  const timezones = (path: string) => (path.startsWith('/timezones') ? { data: [{ id: 'America/Chicago' }], has_more: false } : undefined);

  it.each([
    [{}, 502, 'the payments list is not a list'],
    [{ total: 1, data: [{ amount: 5 }] }, 502, 'a payments list record carries no id'],
  ])('a list of the wrong shape (%j): code 8 with HTTP %i, nothing created or paid', async (list, status, reason) => {
    const { calls, ports } = fakePorts((path) => timezones(path) ?? (path === '/payments' ? list : records(path)), () => ({ id: 1 }));
    const out = await runPaymentFlow(newClient, mapping, { ...ports, settles: true, createdClient: '41' });
    expect([out.httpStatus, out.body.code]).toEqual([status, 8]);
    expect(out.body.response).toContain(reason);
    expect(calls.filter((c) => c.startsWith('POST'))).toEqual([]);
  });

  it("the read's own fault is v1's: its status", async () => {
    const { calls, ports } = fakePorts((path) => timezones(path) ?? (path === '/payments' ? v1Error(503, 'down for maintenance') : records(path)), () => ({ id: 1 }));
    const out = await runPaymentFlow(newClient, mapping, { ...ports, settles: true, createdClient: '41' });
    expect([out.httpStatus, out.body.code]).toEqual([503, 8]);
    expect(calls.filter((c) => c.startsWith('POST'))).toEqual([]);
  });
});
