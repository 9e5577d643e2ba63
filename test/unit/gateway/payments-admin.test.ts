// An operator's settlement (`legacy-gateway payments settle`) while a background settle attempt holds the
// claim: it waits for the attempt to end rather than being sent away, and is refused as busy only when the
// claim stays held.
import pino from 'pino';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { paymentsAdmin, type PaymentsAdminDeps } from '../../../src/gateway/payments-admin.js';
import type { PaymentMapping } from '../../../src/payment/payment-mapping.js';
import { shippedPaymentMapping } from '../../helpers/payment-mapping.js';
import type { OperatorResult } from '../../../src/payment/settle/settle-claim.js';

let mapping: PaymentMapping;
beforeAll(async () => {
  mapping = await shippedPaymentMapping();
});
afterEach(() => {
  vi.useRealTimers();
});

const CLAIM = 'ab'.repeat(32);

function adminAnswering(results: OperatorResult[]): { admin: ReturnType<typeof paymentsAdmin>; calls: string[] } {
  const calls: string[] = [];
  const claims: PaymentsAdminDeps['claims'] = {
    listUnknown: () => Promise.resolve([]),
    apiKeyOf: () => undefined,
    settleByHand: (id) => {
      calls.push(id);
      return Promise.resolve(results.length > 1 ? results.shift()! : results[0]!);
    },
  };
  const admin = paymentsAdmin({ claims, payment: () => mapping, fingerprintOf: () => 'f', logger: pino({ level: 'silent' }), now: Date.now });
  return { admin, calls };
}

describe('payments settle while a settle attempt holds the claim', () => {
  it('waits for the attempt to end, then settles: one decision, tried until the claim was free', async () => {
    vi.useFakeTimers();
    const { admin, calls } = adminAnswering(['busy', 'busy', 'settled']);
    const result = admin.settle(CLAIM, { kind: 'not-paid' });
    await vi.runAllTimersAsync();
    expect(await result).toBe('settled');
    expect(calls).toEqual(Array(3).fill(Buffer.from(CLAIM, 'hex').toString('base64url')));
  });

  it('answers busy when the claim stays held past the wait', async () => {
    vi.useFakeTimers();
    const { admin, calls } = adminAnswering(['busy']);
    const result = admin.settle(CLAIM, { kind: 'paid', paymentId: 5 });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(await result).toBe('busy');
    // Tried every 200 ms for 10 s: the first try and 50 more.
    expect(calls).toHaveLength(51);
  });

  it('does not wait on any other refusal', async () => {
    const { admin, calls } = adminAnswering(['id-taken']);
    expect(await admin.settle(CLAIM, { kind: 'paid', paymentId: 5 })).toBe('id-taken');
    expect(calls).toHaveLength(1);
  });
});
