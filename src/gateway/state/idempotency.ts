// What the payment claims share, whichever store keeps them: how long an Idempotency-Key is kept, the
// reasons a claim can be refused, and the reply as it is stored for a repeat. The engine is
// payment-claims.ts; the stores are behind the claim-store.ts port.
import type { LegacyPaymentReply } from '../../payment/contract.js';

export type { IdempotencyEvent } from '../metrics/gateway-metrics.js';

/** How long a key is remembered: a repeat within this time gets the first call's reply. */
export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;

/** Why a claim could not be taken or followed; no payment was made by the call it answers. */
export type UnavailableReason =
  /** No room for another claim (the store's bound, the caller's own bound, or Redis out of memory). */
  | 'full'
  /** The store cannot be reached. */
  | 'store-unreachable'
  /** The first call is still in flight after the longest wait a repeat is given. */
  | 'wait-expired'
  /** The store cannot prove it keeps claims (no append-only file, came back empty, replicas did not acknowledge). */
  | 'not-durable';

/** A reply as kept for a repeat: what is sent, never the internal error kept for the first call's log line. */
export const storedReply = (reply: LegacyPaymentReply): LegacyPaymentReply => ({ httpStatus: reply.httpStatus, headers: { ...reply.headers }, body: { ...reply.body } });
