// The Idempotency-Key port: what the payment route asks of a store, whichever holds the keys (in this
// process, or in Redis shared by every replica). A store runs the payment at most once per (API key,
// Idempotency-Key) for 24 hours, and never forgets an unexpired key: when it cannot take or follow a key,
// it says so (`unavailable`), and the route answers without paying. It must never hold a key, a field or
// a fingerprint in clear (HMACs only), and stores a reply only as the route hands it over (scrubbed).
import type { LegacyPaymentReply } from '../../payment/contract.js';

/** How long a key is remembered: a repeat within this time gets the first call's reply. */
export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;

/** Why a store could not take or follow a key; no payment was made by the call it answers. */
export type UnavailableReason =
  /** No room for another key (the store's bound, the caller's own bound, or Redis out of memory). */
  | 'full'
  /** The shared store cannot be reached. */
  | 'store-unreachable'
  /** The first call with this key is still in flight after the longest wait a repeat is given. */
  | 'wait-expired';

export type IdempotencyOutcome =
  /** This call claimed the key and ran the payment: its own reply. */
  | { kind: 'fresh'; reply: LegacyPaymentReply }
  /** The reply stored by the first call with this key (at once, or after waiting for it). */
  | { kind: 'replayed'; reply: LegacyPaymentReply }
  /** The key was used (same API key) for a payment with other fields: 409. */
  | { kind: 'mismatch' }
  /** The first call's owner stopped mid-payment (its lease ran out with no reply): never paid again under this key. */
  | { kind: 'outcome-unknown' }
  /** Nothing was run; the caller may retry later with the same key. */
  | { kind: 'unavailable'; reason: UnavailableReason };

/**
 * What a store tells the wiring (logs, metrics), one event per `run`:
 * - `claimed`: this call took the key and runs the payment;
 * - `replayed`: a stored reply, at once; `waited`: a stored reply, after waiting for the first call;
 * - `mismatch`, `outcome_unknown`: the outcomes of the same names;
 * - `refused_full`, `refused_unavailable`, `wait_expired`: `unavailable` for `full`, `store-unreachable`, `wait-expired`.
 */
export type IdempotencyEvent = 'claimed' | 'replayed' | 'waited' | 'mismatch' | 'outcome_unknown' | 'refused_full' | 'refused_unavailable' | 'wait_expired';

export interface IdempotencyStore {
  /** The fingerprint of a payment's fields (an HMAC), so a reused key with another payment is caught. */
  fingerprint(fields: Readonly<Record<string, string>>): string;
  /** Runs `pay` at most once per (API key, Idempotency-Key); every repeat gets the first call's reply, or is told why not. */
  run(apiKey: string | undefined, idempotencyKey: string, fingerprint: string, pay: () => Promise<LegacyPaymentReply>): Promise<IdempotencyOutcome>;
  /** Called once, after the last request: waits until the replies of the payments this store ran are stored. */
  close(): Promise<void>;
}

/** The event each outcome that refuses is told with. */
export const UNAVAILABLE_EVENTS: Record<UnavailableReason, IdempotencyEvent> = {
  full: 'refused_full',
  'store-unreachable': 'refused_unavailable',
  'wait-expired': 'wait_expired',
};

/** A reply as kept for a repeat: what is sent, never the internal error kept for the first call's log line. */
export const storedReply = (reply: LegacyPaymentReply): LegacyPaymentReply => ({ httpStatus: reply.httpStatus, headers: { ...reply.headers }, body: { ...reply.body } });
