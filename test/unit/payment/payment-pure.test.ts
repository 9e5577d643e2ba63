import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/shared/errors.js';
import { checkLocally } from '../../../src/payment/local-checks.js';
import { matchRule, outcomeUnknown } from '../../../src/payment/outcome.js';
import type { PaymentMapping } from '../../../src/payment/payment-mapping.js';
import { shippedPaymentMapping } from '../../helpers/payment-mapping.js';
import { newClientBody, paymentBody } from '../../../src/payment/v1-bodies.js';

let mapping: PaymentMapping;
beforeAll(async () => {
  mapping = await shippedPaymentMapping();
});

const base = { client_id: '5', revenue_amount: '10.00', send_email: '1' };

describe('checkLocally', () => {
  it('accepts a complete call', () => {
    expect(checkLocally(base, mapping)).toEqual({ ok: true });
  });
  it('code 1 wins over code 0, and names every missing field', () => {
    expect(checkLocally({ revenue_amount: 'abc' }, mapping)).toEqual({ ok: false, code: 1, message: 'required fields missing: send_email, first_name, last_name, state, country, status' });
  });
  it.each(['1,000.00', '$5', '5.', '.5', '-5', '0', '0.00', '1e3', '5.555', ' 5'])('revenue_amount %j is malformed', (amount) => {
    expect(checkLocally({ ...base, revenue_amount: amount }, mapping)).toMatchObject({ ok: false, code: 0 });
  });
  it.each(['5', '5.5', '1000.00', '0.01'])('revenue_amount %j is a plain decimal', (amount) => {
    expect(checkLocally({ ...base, revenue_amount: amount }, mapping)).toEqual({ ok: true });
  });
  it('code 3 only when password is given and password2 differs', () => {
    expect(checkLocally({ ...base, password: 'a', password2: 'b' }, mapping)).toEqual({ ok: false, code: 3, message: 'passwords do not match' });
    expect(checkLocally({ ...base, password: 'a' }, mapping)).toMatchObject({ code: 3 });
    expect(checkLocally({ ...base, password2: 'b' }, mapping)).toEqual({ ok: true });
  });
  it('never puts a field value in its message', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom('client_id', 'revenue_amount', 'send_email', 'password', 'password2', 'token', 'status', 'mAvailf'), fc.string({ minLength: 6 })), (fields) => {
        const out = checkLocally(fields, mapping);
        if (!out.ok) for (const v of Object.values(fields)) if (!/^[\w ,:]*$/.test(v) || v.length > 12) expect(out.message).not.toContain(v);
      }),
    );
  });
});

describe('v1 bodies', () => {
  it('sends only mapped fields, typed, with the resolved timezone and the client id', () => {
    expect(paymentBody({ ...base, discount: 'X', revenue_note: 'n', token: 'tok', unknown: 'u', service_id: '' }, mapping, '5', 'America/Chicago')).toEqual({
      client_id: 5, amount: 10, send_email: 1, discount_code: 'X', note: 'n', token: 'tok', timezone: 'America/Chicago',
    });
  });
  it('sends a new client with availability as HH:MM:SS slots', () => {
    expect(newClientBody({ first_name: 'A', last_name: 'B', status: 'active', mAvailf: '09:00', mAvailt: '17:30', password: 'p' }, mapping, 'UTC')).toEqual({
      first_name: 'A', last_name: 'B', status: 'active', timezone: 'UTC', password: 'p', availability: [{ day: 'monday', start: '09:00:00', end: '17:30:00' }],
    });
  });
});

describe('outcome rules', () => {
  const v1 = (status: number, message: string, upstreamCode?: string) => new GatewayError('LGW_UPSTREAM_ERROR', message, { status, ...(upstreamCode ? { upstreamCode } : {}) });
  it('matches the first rule by status, v1 code and message', () => {
    expect(matchRule(mapping.payment.refusals, v1(409, 'Package payments are not allowed'))?.code).toBe(9);
    expect(matchRule(mapping.payment.refusals, v1(402, 'declined', 'card_declined'))?.code).toBe(11);
    expect(matchRule(mapping.payment.refusals, v1(402, 'refused', 'payment_refused'))?.code).toBe(8);
    expect(matchRule(mapping.newClient.errors, v1(409, 'Username already exists'))?.code).toBe(4);
    expect(matchRule(mapping.newClient.errors, v1(409, 'duplicate email'))?.code).toBe(2);
  });
  it('tells an unknown outcome from a certain refusal', () => {
    expect(outcomeUnknown(new GatewayError('LGW_UPSTREAM_TIMEOUT', 't'))).toBe(true);
    expect(outcomeUnknown(v1(500, 'x'))).toBe(true);
    expect(outcomeUnknown(v1(503, 'x'))).toBe(false);
    const refused = new GatewayError('LGW_UPSTREAM_UNREACHABLE', 'u', { cause: Object.assign(new Error('c'), { code: 'ECONNREFUSED' }) });
    expect(outcomeUnknown(refused)).toBe(false);
    expect(outcomeUnknown(new GatewayError('LGW_UPSTREAM_UNREACHABLE', 'reset'))).toBe(true);
  });
});
