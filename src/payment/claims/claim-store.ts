// The payment claims port: what the claims engine (payment-claims.ts) asks of whatever keeps claims (this
// process, Redis, PostgreSQL). A claim is one row per payment that may be repeated: an Idempotency-Key, or
// a keyless payment's fingerprint. Each operation is atomic on its own; the engine builds every rule about
// repeats, leases and replays on top of them and never knows which store it talks to.
//
// A store must never hold a key, a field or an API key in clear (ids and fingerprints are HMACs made by
// the engine), must never forget an unexpired claim silently (when it cannot prove a claim is kept it
// throws ClaimStoreError instead), and stores a reply only as the engine hands it over (already scrubbed).
import type { LegacyPaymentReply } from '../contract.js';

/**
 * Where a payment stands:
 * - `claimed`: taken, nothing written to v1 yet (a claim whose lease ran out here may be taken over);
 * - `sent`: a v1 write (client or payment POST) may have gone out: never run again under this claim;
 * - `answered`: the reply is stored.
 */
export type ClaimPhase = 'claimed' | 'sent' | 'answered';

/** A reply as stored: what is sent, never an internal error. */
export type StoredPaymentReply = Pick<LegacyPaymentReply, 'httpStatus' | 'headers' | 'body'>;

export interface ClaimRecord {
  phase: ClaimPhase;
  /** HMAC of the payment's fields: a reused Idempotency-Key with another payment is told apart. */
  fingerprint: string;
  /** HMAC of the API key: the per-caller bound of stores that have one. */
  caller: string;
  /** A random id of the run that holds the claim: only it may move the claim on. */
  owner: string;
  /** Until when (ms since the epoch, the owner's clock) the owner is known to be alive. */
  leaseUntil: number;
  /** Answered only: the stored reply. */
  reply?: StoredPaymentReply;
  /** Answered only: a later repeat is answered this reply (true), or pays anew (false: a keyless payment
   * answered normally to its caller, so an identical one after it is meant). */
  replays: boolean;
}

/** Whether a claim no longer stands in the way of a new one (checked by the store, atomically, at `now`):
 * a released keyless claim, or a claim whose owner stopped before it wrote anything to v1. */
export function isOpen(record: ClaimRecord, now: number): boolean {
  return (record.phase === 'answered' && !record.replays) || (record.phase === 'claimed' && record.leaseUntil <= now);
}

/**
 * Why a store refused:
 * - `full`: no room for another claim (its bound, or Redis out of memory);
 * - `unreachable`: the store cannot be asked right now;
 * - `not-durable`: the store cannot prove it keeps claims (no append-only file, it came back empty, its
 *   replicas did not acknowledge): `detail` says which, in words fit for the caller's reply.
 */
export type ClaimStoreFault = 'full' | 'unreachable' | 'not-durable';

export class ClaimStoreError extends Error {
  override name = 'ClaimStoreError';
  constructor(
    readonly fault: ClaimStoreFault,
    /** Fit for a caller's reply and a log line: never a URL, a key or a value. */
    readonly detail: string,
  ) {
    super(detail);
  }
}

export type ClaimResult = { taken: true } | { taken: false; existing: ClaimRecord };

export interface ClaimStore {
  /** Writes `record` under `id` when no claim is there, the one there expired, or it is open at `now`
   * (isOpen); otherwise answers what is there. `ttlMs`: how long the claim lives in all. Throws
   * ClaimStoreError. */
  claim(id: string, record: ClaimRecord, ttlMs: number, now: number): Promise<ClaimResult>;
  /** Replaces the claim held by `record.owner` (false: it is gone, or another owner holds it). `durable`:
   * resolve only once the store can prove the write survives a restart or a failover (Redis: WAIT);
   * a write it cannot prove throws ClaimStoreError('not-durable'). `ttlMs` restarts the claim's life;
   * absent, it is kept. */
  update(id: string, record: ClaimRecord, options?: { durable?: boolean; ttlMs?: number }): Promise<boolean>;
  /** The live claim under `id`, if any. Throws ClaimStoreError. */
  read(id: string): Promise<ClaimRecord | undefined>;
  /** Resolves when the claim under `id` may have changed, or after `ms` at the latest; never rejects. */
  changed(id: string, ms: number): Promise<void>;
  /** Frees the store's connections (the caller has stopped using it). */
  close(): Promise<void>;
}
