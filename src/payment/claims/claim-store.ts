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

/**
 * What settles a payment whose outcome is unknown (src/payment/settle/): written with the move to `sent`,
 * kept through every later write. It holds no secret in clear: the fields to match are HMACs.
 */
export interface LedgerTicket {
  /** When the claim moved to `sent` (ms since the epoch, the owner's clock). */
  sentAt: number;
  /** The newest id v1's list held before the POST: the payment sent is a newer record. */
  afterId: number;
  /** The list's filters with their values (the payment's client). */
  filters: Record<string, string>;
  /** v1 record field -> HMAC of the value sent, normalised (settle/ledger-match.ts). */
  match: Record<string, string>;
  /** Shown to an operator: the payment's client and amount as sent. */
  client: string;
  amount: string;
  /** The POST's outcome is unknown: set with the stored reply of a payment v1 never answered. */
  unknown?: boolean;
  /** Past the settle window, when a read first found no match (a second read, later, settles "not paid"). */
  noneAt?: number;
  /** The caller's API key sealed under the gateway's secret (claims/sealed-key.ts): the list is read with
   * it when no caller is there to lend its own. Absent: the payment was sent without one. */
  sealedKey?: string;
  /** The v1 id of the client this claim's payment created (the call carried a new client's details, not a
   * client_id): kept through every later write, so that a later run of the same claim (after "not paid",
   * or a keyless claim released) pays for that client instead of creating a second one. */
  createdClient?: string;
}

/** A claim whose outcome is unknown, as listUnknown gives it. */
export interface UnknownClaim {
  id: string;
  record: ClaimRecord;
}

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
  /** From `sent` on, when the payment can be settled from v1's list: what identifies it there. */
  ticket?: LedgerTicket;
}

/** Whether a claim's payment outcome is unknown at `now`, and can be settled: its stored reply is an unknown
 * outcome, or its owner stopped after sending it. */
export function isUnknown(record: ClaimRecord, now: number): boolean {
  if (record.ticket === undefined) return false;
  if (record.phase === 'answered') return record.ticket.unknown === true && record.replays;
  return record.phase === 'sent' && record.leaseUntil <= now;
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

/** A claim taken; `replaced`: the open claim it took the place of (isOpen: released, or left before it
 * wrote), whose ticket may name the client an earlier run of the same payment created. */
export type ClaimResult = { taken: true; replaced?: Pick<ClaimRecord, 'fingerprint' | 'ticket'> } | { taken: false; existing: ClaimRecord };

export interface ClaimStore {
  /** Writes `record` under `id` when no claim is there, the one there expired, or it is open at `now`
   * (isOpen), and then answers the open claim it replaced, if any; otherwise answers what is there.
   * `ttlMs`: how long the claim lives in all. Throws ClaimStoreError. */
  claim(id: string, record: ClaimRecord, ttlMs: number, now: number): Promise<ClaimResult>;
  /** Replaces the claim held by `record.owner` (false: it is gone, or another owner holds it). `durable`:
   * resolve only once the store can prove the write survives a restart or a failover (Redis: WAIT);
   * a write it cannot prove throws ClaimStoreError('not-durable'). `ttlMs` restarts the claim's life;
   * absent, it is kept. */
  update(id: string, record: ClaimRecord, options?: { durable?: boolean; ttlMs?: number }): Promise<boolean>;
  /** The live claim under `id`, if any. Throws ClaimStoreError. */
  read(id: string): Promise<ClaimRecord | undefined>;
  /** The settle lease of the claim under `id`: taken (true) when no one holds it, its time ran out, or
   * `holder` holds it already; then it is `holder`'s until `now + ms`. One settlement at a time per claim,
   * on every replica. Throws ClaimStoreError. */
  settleLease(id: string, holder: string, ms: number, now: number): Promise<boolean>;
  /** The live claims whose outcome is unknown at `now` (isUnknown: a ticket, and an unknown stored reply or
   * an owner that stopped after sending), oldest `ticket.sentAt` first, at most `limit`. Any replica may
   * list them; each is settled under its settle lease. Throws ClaimStoreError. */
  listUnknown(now: number, limit: number): Promise<UnknownClaim[]>;
  /** Resolves when the claim under `id` may have changed, or after `ms` at the latest; never rejects. */
  changed(id: string, ms: number): Promise<void>;
  /** Frees the store's connections (the caller has stopped using it). */
  close(): Promise<void>;
}
