// The orchestrator of a claimed payment, with fake v1 ports over the in-process claims store: what it
// answers and what it says happened (answered how, wrote, charged), the writes told once after a POST, the
// gate refusing before any write, a keyless repeat not paid again, and the reply scrubbed only once v1 was
// reached.
import { readFile } from 'node:fs/promises';
import pino from 'pino';
import { parse } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { ClaimStoreError, type ClaimStore } from '../../../src/payment/claims/claim-store.js';
import { createPaymentClaims } from '../../../src/payment/claims/payment-claims.js';
import { paymentMappingSchema, type PaymentMapping } from '../../../src/payment/payment-mapping.js';
import { runClaimedPayment, type ClaimedPaymentPorts } from '../../../src/payment/run-claimed-payment.js';
import { createMemoryClaimStore } from '../../../src/gateway/state/claims/claims-memory.js';
import { GatewayError } from '../../../src/shared/errors.js';

let mapping: PaymentMapping;
beforeAll(async () => {
  mapping = paymentMappingSchema.parse(parse(await readFile(new URL('../../../mappings/payment.yaml', import.meta.url), 'utf8')));
});

const FIELDS = { client_id: '5', revenue_amount: '10.00', send_email: '1', token: 'tok_SECRET' };

/** Ports over a fresh claims store: v1 answers every GET with the record asked for and every POST with
 * `onPost`; every call, write told and scrub is remembered. */
function setup(onPost: (path: string) => unknown = () => ({ id: 41 }), store: ClaimStore = createMemoryClaimStore()) {
  const calls: string[] = [];
  let writesTold = 0;
  const claims = createPaymentClaims({ store, secret: 'a-secret-of-at-least-thirty-two-characters', waitMs: 1_000, keylessWindowMs: 60_000, logger: pino({ level: 'silent' }) });
  const ports: ClaimedPaymentPorts = {
    claims,
    v1: {
      get: async (path) => {
        calls.push(`GET ${path}`);
        return path.startsWith('/timezones') ? { data: [], has_more: false } : { id: Number(path.split('/').pop()) };
      },
      post: async (path) => {
        calls.push(`POST ${path}`);
        const out = onPost(path);
        if (out instanceof Error) throw out;
        return out;
      },
    },
    reachedV1: () => calls.length > 0,
    scrub: (text) => text.replaceAll('tok_SECRET', '[redacted]'),
    afterWrites: async () => void writesTold++,
  };
  return { ports, calls, writesTold: () => writesTold };
}

describe('runClaimedPayment', () => {
  it('a payment that ran: paid, wrote, the writes told once, and a function to tell its delivery', async () => {
    const s = setup();
    const paid = await runClaimedPayment({ apiKey: 'k', idempotencyKey: 'order-1', fields: FIELDS }, mapping, s.ports);
    expect(paid).toMatchObject({ answer: 'ran', wrote: true, charge: 'paid', byDesign: false, reply: { body: { code: 12 } } });
    expect(s.calls).toEqual(['GET /clients/5', 'POST /payments']);
    expect(s.writesTold()).toBe(1);
    await paid.delivered!(true);
    const again = await runClaimedPayment({ apiKey: 'k', idempotencyKey: 'order-1', fields: FIELDS }, mapping, s.ports);
    expect(again).toMatchObject({ answer: 'replayed', wrote: false, charge: 'none', byDesign: true, reply: { headers: { 'idempotent-replayed': 'true' } } });
    expect(again.delivered).toBeUndefined();
    expect(s.calls).toHaveLength(2);
  });

  it('a malformed key or a local refusal takes no claim and calls nothing', async () => {
    const s = setup();
    const malformed = await runClaimedPayment({ apiKey: 'k', idempotencyKey: '', fields: FIELDS }, mapping, s.ports);
    expect(malformed).toMatchObject({ answer: 'checked', wrote: false, charge: 'none', reply: { httpStatus: 400 } });
    const missing = await runClaimedPayment({ apiKey: 'k', idempotencyKey: undefined, fields: { revenue_amount: '1.00' } }, mapping, s.ports);
    expect(missing).toMatchObject({ answer: 'checked', reply: { body: { code: 1 } } });
    expect([s.calls, s.writesTold(), malformed.delivered, missing.delivered]).toEqual([[], 0, undefined, undefined]);
  });

  it('v1 refusing the payment: charge refused; a timeout: charge unknown, and a keyless repeat is not paid again', async () => {
    const refused = setup(() => new GatewayError('LGW_UPSTREAM_ERROR', 'card declined', { status: 402 }));
    expect(await runClaimedPayment({ apiKey: 'k', idempotencyKey: undefined, fields: FIELDS }, mapping, refused.ports)).toMatchObject({ wrote: true, charge: 'refused' });

    const timedOut = setup(() => new GatewayError('LGW_UPSTREAM_TIMEOUT', 'the upstream did not answer in time'));
    const first = await runClaimedPayment({ apiKey: 'k', idempotencyKey: undefined, fields: FIELDS }, mapping, timedOut.ports);
    expect(first).toMatchObject({ answer: 'ran', wrote: true, charge: 'unknown', reply: { body: { code: 8 } } });
    await first.delivered!(true);
    const repeat = await runClaimedPayment({ apiKey: 'k', idempotencyKey: undefined, fields: FIELDS }, mapping, timedOut.ports);
    expect(repeat).toMatchObject({ answer: 'replayed', byDesign: true, notPaidAgain: expect.stringContaining('not paid again') });
    expect(timedOut.calls.filter((c) => c.startsWith('POST'))).toHaveLength(1);
  });

  it('a store that cannot move the claim to sent stops the payment before any write', async () => {
    const memory = createMemoryClaimStore();
    const store: ClaimStore = {
      ...memory,
      claim: (...a) => memory.claim(...a),
      update: async (id, record, options) => {
        if (options?.durable) throw new ClaimStoreError('not-durable', 'the replicas did not acknowledge the claim');
        return memory.update(id, record, options);
      },
    };
    const s = setup(undefined, store);
    const paid = await runClaimedPayment({ apiKey: 'k', idempotencyKey: 'order-1', fields: FIELDS }, mapping, s.ports);
    expect(paid).toMatchObject({ answer: 'stopped-at-gate', wrote: false, charge: 'none', byDesign: true, reply: { httpStatus: 503 } });
    expect(paid.reply.body.response).toContain('the replicas did not acknowledge the claim');
    expect([s.calls, s.writesTold()]).toEqual([['GET /clients/5'], 0]);
  });

  it('scrubs a reply that may carry v1 text, never one made before v1 was reached', async () => {
    const s = setup(() => new GatewayError('LGW_UPSTREAM_ERROR', 'token tok_SECRET refused', { status: 400 }));
    const paid = await runClaimedPayment({ apiKey: 'k', idempotencyKey: undefined, fields: FIELDS }, mapping, s.ports);
    expect(paid.reply.body.response).not.toContain('tok_SECRET');
    const local = await runClaimedPayment({ apiKey: 'k', idempotencyKey: undefined, fields: { ...FIELDS, revenue_amount: 'tok_SECRET' } }, mapping, { ...s.ports, scrub: () => 'scrubbed' });
    expect(local.reply.body.response).not.toBe('scrubbed');
  });
});
