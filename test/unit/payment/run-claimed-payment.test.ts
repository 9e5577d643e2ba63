// The orchestrator of a claimed payment, with fake v1 ports over the in-process claims store: what it
// answers and what it says happened (answered how, wrote, charged), the writes told once after a POST, the
// gate refusing before any write, a keyless repeat not paid again, and the reply scrubbed only once v1 was
// reached.
import pino from 'pino';
import { beforeAll, describe, expect, it } from 'vitest';
import { ClaimStoreError, type ClaimStore } from '../../../src/payment/claims/claim-store.js';
import { createPaymentClaims } from '../../../src/payment/claims/payment-claims.js';
import type { PaymentMapping } from '../../../src/payment/payment-mapping.js';
import { shippedPaymentMapping } from '../../helpers/payment-mapping.js';
import { runClaimedPayment, settleTerms, type ClaimedPaymentPorts } from '../../../src/payment/run-claimed-payment.js';
import { createMemoryClaimStore } from '../../../src/gateway/state/claims/claims-memory.js';
import { GatewayError } from '../../../src/shared/errors.js';

let mapping: PaymentMapping;
beforeAll(async () => {
  mapping = await shippedPaymentMapping();
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

describe('a payment that creates its client, with settlement on', () => {
  const NEW_CLIENT = { first_name: 'Nia', last_name: 'Okafor', state: 'IL', country: 'US', status: 'active', revenue_amount: '10.00', send_email: '0', token: 'tok_SECRET' };

  /** v1: POST /clients creates clients 701, 702...; the payment POST answers as `payments` says, in turn; the
   * payments list is empty, or fails while `listDown`. Every call is remembered with its query or body. */
  function settling(payments: Array<() => unknown>) {
    const calls: string[] = [];
    const state = { listDown: false };
    let t = 1_000_000;
    let clients = 700;
    const claims = createPaymentClaims({
      store: createMemoryClaimStore(),
      now: () => t,
      secret: 'a-secret-of-at-least-thirty-two-characters',
      waitMs: 1_000,
      keylessWindowMs: 60_000,
      logger: pino({ level: 'silent' }),
      settle: { afterMs: 60_000 },
    });
    const ports: ClaimedPaymentPorts = {
      claims,
      v1: {
        get: async (path, query) => {
          calls.push(`GET ${path}${path === '/payments' ? `?client_id=${query.client_id}` : ''}`);
          if (path === '/payments') {
            if (state.listDown) throw new GatewayError('LGW_UPSTREAM_ERROR', 'list down', { status: 500 });
            return { total: 0, data: [] };
          }
          return path.startsWith('/timezones') ? { data: [], has_more: false } : { id: Number(path.split('/').pop()) };
        },
        post: async (path, body) => {
          calls.push(`POST ${path}${path === '/payments' ? ` client_id=${String(body.client_id)}` : ''}`);
          if (path === '/clients') return { id: ++clients };
          const out = (payments.shift() ?? (() => ({ id: 41 })))();
          if (out instanceof Error) throw out;
          return out;
        },
      },
      reachedV1: () => calls.length > 0,
      scrub: (text) => text.replaceAll('tok_SECRET', '[redacted]'),
    };
    return { ports, calls, state, claims, advance: (ms: number) => void (t += ms) };
  }

  const declined = () => new GatewayError('LGW_UPSTREAM_ERROR', 'card declined', { status: 402, upstreamCode: 'card_declined' });

  it('refused after the client was created: the identical keyless repeat pays for that client, reading its list first', async () => {
    const s = settling([declined]);
    const first = await runClaimedPayment({ apiKey: 'k', idempotencyKey: undefined, fields: NEW_CLIENT }, mapping, s.ports);
    expect(first.reply.body).toMatchObject({ code: 11, response: expect.stringContaining('retry with client_id=701') });
    await first.delivered!(true);
    const repeat = await runClaimedPayment({ apiKey: 'k', idempotencyKey: undefined, fields: NEW_CLIENT }, mapping, s.ports);
    expect(repeat).toMatchObject({ answer: 'ran', charge: 'paid', reply: { body: { code: 12 } } });
    // The first run took its mark with no read (the client had just been created); the repeat read the list.
    expect(s.calls).toEqual(['POST /clients', 'POST /payments client_id=701', 'GET /payments?client_id=701', 'POST /payments client_id=701']);
  });

  it('the created client\'s list cannot be read on a later run: code 8, no payment made, and the client still named for the next', async () => {
    const s = settling([declined]);
    await (await runClaimedPayment({ apiKey: 'k', idempotencyKey: undefined, fields: NEW_CLIENT }, mapping, s.ports)).delivered!(true);
    s.state.listDown = true;
    const stopped = await runClaimedPayment({ apiKey: 'k', idempotencyKey: undefined, fields: NEW_CLIENT }, mapping, s.ports);
    expect(stopped).toMatchObject({ wrote: false, charge: 'none', reply: { httpStatus: 500, body: { code: 8, response: expect.stringContaining('no payment was made') } } });
    await stopped.delivered!(true);
    s.state.listDown = false;
    const paid = await runClaimedPayment({ apiKey: 'k', idempotencyKey: undefined, fields: NEW_CLIENT }, mapping, s.ports);
    expect(paid.reply.body.code).toBe(12);
    expect(s.calls.filter((c) => c.startsWith('POST'))).toEqual(['POST /clients', 'POST /payments client_id=701', 'POST /payments client_id=701']);
  });

  it('settled "not paid", the key\'s next call with the same payment pays for the client created; with another payment, it does not inherit it', async () => {
    const timedOut = () => new GatewayError('LGW_UPSTREAM_TIMEOUT', 'the upstream did not answer in time');
    const s = settling([timedOut, timedOut]);
    const settleNotPaid = async (): Promise<void> => {
      const [unknown] = await s.claims.listUnknown(10);
      const terms = () => settleTerms(mapping, (path, query) => s.ports.v1.get(path, query, 0));
      s.advance(60_000);
      expect((await s.claims.settle(unknown!.id, terms)).kind).toBe('unknown');
      s.advance(10_000);
      expect((await s.claims.settle(unknown!.id, terms)).kind).toBe('not-paid');
    };
    const call = (fields: Record<string, string>) => ({ apiKey: 'k', idempotencyKey: 'order-9', fields });
    await (await runClaimedPayment(call(NEW_CLIENT), mapping, s.ports)).delivered!(true);
    await settleNotPaid();
    const again = await runClaimedPayment(call(NEW_CLIENT), mapping, s.ports);
    expect([again.charge, again.reply.body.code]).toEqual(['unknown', 8]);
    await again.delivered!(true);
    await settleNotPaid();
    const other = await runClaimedPayment(call({ ...NEW_CLIENT, last_name: 'Adeyemi' }), mapping, s.ports);
    expect(other.reply.body.code).toBe(12);
    expect(s.calls.filter((c) => c.startsWith('POST'))).toEqual([
      'POST /clients',
      'POST /payments client_id=701',
      'POST /payments client_id=701',
      'POST /clients',
      'POST /payments client_id=702',
    ]);
  });
});
