// What the payment claims share, whichever store keeps them: how long an Idempotency-Key is kept, the
// reasons a claim can be refused, and the reply as it is stored for a repeat. The engine is
// payment-claims.ts; the stores are behind the claim-store.ts port.
import type { LegacyPaymentReply } from '../contract.js';

/** What became of one claimed payment call at the claims store (the closed set of label values):
 * `claimed` it ran, `replayed` it got a stored reply, `waited` it waited for a first call in flight
 * elsewhere, `mismatch` the key was reused with other fields, `outcome_unknown` the first call's end was
 * never recorded, `refused_full` the store had no room, `refused_unavailable` the store could not be
 * reached, `refused_not_durable` the store could not prove it keeps claims, `wait_expired` the first call
 * did not finish within the wait. */
export const IDEMPOTENCY_EVENTS = ['claimed', 'replayed', 'waited', 'mismatch', 'outcome_unknown', 'refused_full', 'refused_unavailable', 'refused_not_durable', 'wait_expired'] as const;
export type IdempotencyEvent = (typeof IDEMPOTENCY_EVENTS)[number];

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
