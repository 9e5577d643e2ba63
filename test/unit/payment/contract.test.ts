import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  ALL_PAYMENT_CODES,
  PAYMENT_CODES,
  availabilityFaults,
  bodyProblemReply,
  bodyTooLargeReply,
  CLAIM_UNAVAILABLE_REASONS,
  idempotencyKeyReusedReply,
  claimOutcomeUnknownReply,
  claimUnavailableReply,
  internalFaultReply,
  isCalendarDate,
  isIdempotencyKey,
  isPaymentCode,
  isPlainAmount,
  malformedBodyReply,
  malformedIdempotencyKeyReply,
  passwordsDiffer,
  reply,
  unacceptedFieldsReply,
  unsupportedBodyReply,
} from '../../../src/payment/contract.js';
import { runPaymentFlow, type PaymentPorts } from '../../../src/payment/flow.js';
import { paymentMappingSchema, type PaymentMapping } from '../../../src/payment/payment-mapping.js';

const readText = (path: string) => readFile(new URL(path, import.meta.url), 'utf8');

let mappingText: string;
let mapping: PaymentMapping;
beforeAll(async () => {
  mappingText = await readText('../../../mappings/payment.yaml');
  mapping = paymentMappingSchema.parse(parse(mappingText));
});

const failure = (code: number, response: string, httpStatus = 200) => ({ httpStatus, headers: {}, body: { status: 'failure', code, response } });

describe('the legacy codes', () => {
  it('declares every code 0 to 12, each under one name', () => {
    expect(ALL_PAYMENT_CODES).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(new Set(Object.values(PAYMENT_CODES)).size).toBe(Object.keys(PAYMENT_CODES).length);
    expect(isPaymentCode(12)).toBe(true);
    expect(isPaymentCode(13)).toBe(false);
    expect(isPaymentCode(-1)).toBe(false);
  });

  it('are exactly the codes of the README payment table', async () => {
    const readme = await readText('../../../docs/legacy-api.md');
    const section = readme.slice(readme.indexOf('## POST /api/payment'));
    const rest = section.slice(section.indexOf('| Code | When |'));
    const table = rest.slice(0, rest.indexOf('\n\n')).split('\n').slice(2);
    expect(table.length).toBeGreaterThan(0);
    const documented = table.flatMap((row) => row.split('|')[1]!.split('/').map((cell) => cell.trim()));
    for (const cell of documented) expect(cell).toMatch(/^\d+$/);
    expect([...new Set(documented.map(Number))].sort((a, b) => a - b)).toEqual(ALL_PAYMENT_CODES);
    expect(documented).toHaveLength(new Set(documented).size);
  });

  it('are the only codes a mapping rule may name', () => {
    const withCode = (code: number) => ({ ...mapping, payment: { ...mapping.payment, refusals: [{ code }] } });
    expect(paymentMappingSchema.safeParse(withCode(PAYMENT_CODES.paymentFailed)).success).toBe(true);
    expect(paymentMappingSchema.safeParse(withCode(13)).success).toBe(false);
    expect(paymentMappingSchema.safeParse(withCode(1.5)).success).toBe(false);
  });

  it('make code 12 the only success', () => {
    for (const code of ALL_PAYMENT_CODES) expect(reply(code, 'm').body.status).toBe(code === PAYMENT_CODES.paymentAdded ? 'success' : 'failure');
  });
});

describe('the mapping', () => {
  it('has no setting nothing reads', () => {
    expect(mappingText).not.toMatch(/groupSizeField|packageAbove/);
    expect(paymentMappingSchema.safeParse({ ...mapping, service: { groupSizeField: 'group_num', packageAbove: 1 } }).success).toBe(false);
  });
});

describe("the route's replies", () => {
  it('body too large: 413, code 0, the limit in the message', () => {
    expect(bodyTooLargeReply(mapping)).toEqual(failure(0, 'the request body is larger than 262144 bytes', 413));
    expect(bodyProblemReply('too-large', mapping)).toEqual(bodyTooLargeReply(mapping));
  });

  it('unsupported body type: 415, code 0', () => {
    const expected = failure(0, 'the request body must be application/x-www-form-urlencoded, multipart/form-data or JSON', 415);
    expect(unsupportedBodyReply(mapping)).toEqual(expected);
    expect(bodyProblemReply('unsupported', mapping)).toEqual(expected);
  });

  it('malformed body: 200, code 0, naming "body"', () => {
    expect(malformedBodyReply(mapping)).toEqual(failure(0, 'invalid fields: body'));
    expect(bodyProblemReply('malformed', mapping)).toEqual(failure(0, 'invalid fields: body'));
  });

  it('fields not accepted: 200, code 0, invalid fields first; any file part gives the file message', () => {
    expect(unacceptedFieldsReply({ fileFields: [], invalidFields: [] }, mapping)).toBeUndefined();
    expect(unacceptedFieldsReply({ fileFields: [], invalidFields: ['a', 'b'] }, mapping)).toEqual(failure(0, 'invalid fields: a, b'));
    expect(unacceptedFieldsReply({ fileFields: ['upload'], invalidFields: [] }, mapping)).toEqual(
      failure(0, 'invalid fields: upload (file uploads are not accepted)'),
    );
    expect(unacceptedFieldsReply({ fileFields: ['upload'], invalidFields: ['a'] }, mapping)).toEqual(
      failure(0, 'invalid fields: a, upload (file uploads are not accepted)'),
    );
  });

  it('malformed Idempotency-Key: 400, code 0', () => {
    expect(malformedIdempotencyKeyReply(mapping)).toEqual(failure(0, 'invalid fields: Idempotency-Key', 400));
  });

  it('Idempotency-Key reused for another payment: 409, code 0', () => {
    expect(idempotencyKeyReusedReply(mapping)).toEqual(failure(0, 'this Idempotency-Key was already used for a different payment', 409));
  });

  it.each([
    ['full', 'the Idempotency-Key store is full'],
    ['store-unreachable', 'the Idempotency-Key store cannot be reached'],
    ['wait-expired', 'the first call with this Idempotency-Key has not answered yet'],
    ['not-durable', 'the Idempotency-Key store cannot prove it keeps keys'],
  ] as const)('Idempotency-Key store unavailable (%s): 503, code 8, no payment made, retry with the same key', (reason, text) => {
    expect(claimUnavailableReply(reason, true, mapping)).toEqual(
      failure(8, `payment error: ${text}; this call made no payment: retry later with the same Idempotency-Key`, 503),
    );
  });

  it.each([
    ['full', 'the payment duplicate check is full'],
    ['store-unreachable', 'the payment duplicate check cannot be reached'],
    ['wait-expired', 'an identical payment sent just before has not answered yet'],
    ['not-durable', 'the payment duplicate check cannot prove it keeps payments'],
  ] as const)('duplicate check unavailable for a keyless payment (%s): 503, code 8, no payment made, retry later', (reason, text) => {
    expect(claimUnavailableReply(reason, false, mapping)).toEqual(failure(8, `payment error: ${text}; this call made no payment: retry later`, 503));
  });

  it("a store's own words replace the generic reason", () => {
    expect(claimUnavailableReply('not-durable', true, mapping, 'Redis keeps no append-only file').body.response).toBe(
      'payment error: Redis keeps no append-only file; this call made no payment: retry later with the same Idempotency-Key',
    );
  });

  it('names every reason a store gives', () => {
    expect(Object.keys(CLAIM_UNAVAILABLE_REASONS).sort()).toEqual(['full', 'not-durable', 'store-unreachable', 'wait-expired']);
  });

  it('a keyless payment whose twin stopped with no reply: 502, code 8, check the payments list before paying again', () => {
    expect(claimOutcomeUnknownReply(false, mapping)).toEqual(
      failure(8, 'payment error: an identical payment sent just before stopped before it answered, so its outcome is unknown; check the payments list before paying again', 502),
    );
  });

  it('first call with the key stopped with no reply: 502, code 8, check the payments list before paying again', () => {
    expect(claimOutcomeUnknownReply(true, mapping)).toEqual(
      failure(
        8,
        'payment error: the outcome of the payment made with this Idempotency-Key is unknown (the call that made it stopped before it answered); check the payments list before paying again with a new Idempotency-Key',
        502,
      ),
    );
  });

  it('internal fault: 500, code 8, telling the caller to check before retrying', () => {
    expect(internalFaultReply(mapping)).toEqual(
      failure(8, 'payment error: the outcome of the payment is unknown (internal gateway error); check the payments list before retrying', 500),
    );
  });

  it('take their texts from the mapping', () => {
    const messages = { ...mapping.messages, tooLarge: 'max {limit}', idempotencyMismatch: 'reused', idempotencyUnavailable: 'later: {reason}', idempotencyOutcomeUnknown: 'unknown' };
    const other = { ...mapping, bodyLimitBytes: 2048, messages };
    expect(bodyTooLargeReply(other).body.response).toBe('max 2048');
    expect(idempotencyKeyReusedReply(other).body.response).toBe('reused');
    expect(claimUnavailableReply('full', true, other).body.response).toBe('later: the Idempotency-Key store is full');
    expect(claimOutcomeUnknownReply(true, other).body.response).toBe('unknown');
  });
});

describe('the Idempotency-Key format', () => {
  it.each(['order-17', '0f8fa0b2-5c3e-4c1a-9d6e-1b2c3d4e5f60', '!~', 'x'.repeat(255)])('accepts %j', (key) => {
    expect(isIdempotencyKey(key)).toBe(true);
  });
  it.each(['', 'x'.repeat(256), 'has space', 'tab\t', 'caf\u00e9', 'line\n'])('refuses %j', (key) => {
    expect(isIdempotencyKey(key)).toBe(false);
  });
});

describe('the local rules', () => {
  it('amounts: plain decimals above zero', () => {
    for (const ok of ['5', '5.5', '1000.00', '0.01']) expect(isPlainAmount(ok)).toBe(true);
    for (const bad of ['1,000.00', '$5', '5.', '.5', '-5', '0', '0.00', '1e3', '5.555', ' 5']) expect(isPlainAmount(bad)).toBe(false);
  });
  it('dates: YYYY-MM-DD on the calendar', () => {
    expect(isCalendarDate('2024-02-29')).toBe(true);
    expect(isCalendarDate('2023-02-29')).toBe(false);
    expect(isCalendarDate('2024-2-01')).toBe(false);
  });
  it('availability: both or neither, HH:MM, the end after the start', () => {
    expect(availabilityFaults('', '')).toEqual({ from: false, to: false });
    expect(availabilityFaults('09:00', '17:30')).toEqual({ from: false, to: false });
    expect(availabilityFaults('09:00', '')).toEqual({ from: false, to: true });
    expect(availabilityFaults('', '17:00')).toEqual({ from: true, to: false });
    expect(availabilityFaults('17:00', '09:00')).toEqual({ from: false, to: true });
    expect(availabilityFaults('24:00', '25:00')).toEqual({ from: true, to: true });
  });
  it('passwords: only a given password that password2 does not repeat', () => {
    expect(passwordsDiffer({ password: 'a', password2: 'b' })).toBe(true);
    expect(passwordsDiffer({ password: 'a' })).toBe(true);
    expect(passwordsDiffer({ password: 'a', password2: 'a' })).toBe(false);
    expect(passwordsDiffer({ password2: 'b' })).toBe(false);
  });
});

describe('the flow on a fault of its own', () => {
  const ports = (posts: Array<() => unknown>): PaymentPorts => ({
    // The checks read the record asked for: an object carrying the requested id.
    get: async (path) => ({ id: Number(path.split('/').pop()) }),
    post: async () => posts.shift()!(),
  });
  const boom = () => {
    throw new Error('boom');
  };

  it('answers the contract internal fault, keeping the error for the log', async () => {
    const out = await runPaymentFlow({ client_id: '5', revenue_amount: '10.00', send_email: '1' }, mapping, ports([boom]));
    expect({ ...out, internalError: undefined }).toEqual({ ...internalFaultReply(mapping), internalError: undefined });
    expect(out.internalError).toBeInstanceOf(Error);
  });

  it('says a new client was created before the fault', async () => {
    const fields = { first_name: 'A', last_name: 'B', state: 'IL', country: 'US', status: 'active', revenue_amount: '5', send_email: '0' };
    const out = await runPaymentFlow(fields, mapping, ports([() => ({ id: 77 }), boom]));
    expect(out.httpStatus).toBe(500);
    expect(out.body).toEqual({
      status: 'failure',
      code: 8,
      response:
        'payment error: the outcome of the payment is unknown (internal gateway error); check the payments list before retrying (the new client was created with id 77: retry with client_id=77)',
    });
  });
});
