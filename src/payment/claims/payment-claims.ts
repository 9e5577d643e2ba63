// The claims engine: runs a payment at most once per claim, whichever store keeps the claims
// (claim-store.ts). A claim is either the caller's Idempotency-Key (kept 24 hours; every repeat gets the
// first call's reply) or, for a payment sent without one, its fingerprint (API key + normalised fields),
// kept for the duplicate window. A keyless repeat is not paid again when the first is still in flight (it
// waits for its reply), when the first's reply never reached its caller, or when the first's outcome is
// unknown; a keyless payment answered normally releases its claim, so an identical one after it is paid.
//
// The rules that keep money safe, whatever the store:
// - a claim moves to `sent` (durably, before any v1 write) through the send gate; a store that cannot
//   prove that write refuses, and the payment is answered before anything is written to v1;
// - a claim in `sent` is never run again: when its owner stops (its lease runs out), every repeat answers
//   outcome-unknown until the claim expires;
// - only a claim whose owner stopped before `sent` may be taken over;
// - the owner's writes to its claim go out one at a time, in order (a lease renewal can never move a claim
//   back from `sent` to `claimed`);
// - a reply whose claim vanished is still stored (and logged at error), so later repeats replay it;
// - a claim whose outcome is unknown is settled from v1's payments list (settle/settle-claim.ts) when its
//   ticket allows: a repeat waits for a settle attempt (within its wait) instead of answering at once.
import { randomBytes } from 'node:crypto';
import type { LegacyPaymentReply } from '../contract.js';
import type { Charge } from '../flow.js';
import { ledgerTicket, type LedgerMark } from '../settle/ledger-ticket.js';
import { settleByOperator, settleClaim, type OperatorDecision, type OperatorResult, type SettleAttempt, type SettleDeps, type SettleTerms } from '../settle/settle-claim.js';
import { ClaimStoreError, isUnknown, type ClaimRecord, type ClaimStore, type LedgerTicket, type StoredPaymentReply, type UnknownClaim } from './claim-store.js';
import { keySeal, type KeySeal } from './sealed-key.js';
import { idempotencyDigest, type IdempotencyDigest } from './idempotency-digest.js';
import { IDEMPOTENCY_TTL_MS, storedReply, type IdempotencyEvent, type UnavailableReason } from './idempotency.js';
import { pause, systemClock, systemTimers, type Clock, type Timers } from './system-time.js';

/** How long a claim stays alive without renewal: the time a repeat takes to learn that its owner stopped. */
export const DEFAULT_LEASE_MS = 10_000;
/** How long a reply that takes no key stays, so repeats that follow at once still replay it. */
const RELEASED_KEY_TTL_MS = 60_000;
/** How long the owner keeps trying to store a reply the store could not take at once. */
const STORE_REPLY_FOR_MS = 30_000;

export type { Charge } from '../flow.js';

export interface PaidReply {
  reply: LegacyPaymentReply;
  charge: Charge;
}

/** Called by the payment before its first v1 write: rejects with ClaimStoreError when the claim
 * cannot be moved to `sent` durably, and then nothing may be written. `mark`: what settles the payment
 * should its outcome be unknown (kept with the claim as its ticket). */
export interface SendGate {
  beforeSend(mark?: LedgerMark): Promise<void>;
  /** Told once the payment created its new client, before its payment POST (the claim is `sent` already):
   * `mark` settles the payment from here and names that client, kept durably as the claim's ticket. Never
   * rejects: a mark the store did not take leaves the payment without a ticket, as a failed read of the
   * mark does for an existing client. */
  clientCreated(mark: LedgerMark): Promise<void>;
  /** The client an earlier run of this claim created (the ticket of the claim this one replaced names it,
   * for the same payment): this run pays for it instead of creating another. */
  readonly createdClient?: string;
  /** Whether a mark is kept: the payment runs under a claim, and settlement is on. */
  readonly settles: boolean;
}

/** The default of PAYMENT_SETTLE_AFTER_S. */
export const DEFAULT_SETTLE_AFTER_S = 60;
/** The longest between a first read that found nothing and the second that settles "not paid". */
const MAX_RECHECK_MS = 10_000;
/** How long one settle attempt holds its claim's settle lease. */
const SETTLE_LEASE_MS = 60_000;

export interface PaymentCall {
  apiKey: string | undefined;
  /** The caller's Idempotency-Key; undefined: a keyless payment. */
  idempotencyKey: string | undefined;
  fields: Readonly<Record<string, string>>;
}

export type ClaimOutcome =
  /** This call ran the payment. `answered` must be called once its reply was sent: whether it reached its
   * caller decides, for a keyless payment, whether a repeat replays it. */
  | { kind: 'fresh'; reply: LegacyPaymentReply; answered(delivered: boolean): Promise<void> }
  /** The reply of the first call (at once, or after waiting for it, or as its settlement found it);
   * `retryAfterS`: the first call's outcome is still unknown, and may be settled by then. */
  | { kind: 'replayed'; reply: StoredPaymentReply; waited: boolean; retryAfterS?: number }
  /** The first call's outcome was unknown, and its settlement found that no payment was made: this reply
   * says so, and the claim is released (the next call pays). */
  | { kind: 'not-paid'; reply: StoredPaymentReply }
  /** The Idempotency-Key was used (same API key) for a payment with other fields. */
  | { kind: 'mismatch' }
  /** The first call stopped after it may have written to v1 and left no reply: never run again. */
  | { kind: 'outcome-unknown'; retryAfterS?: number }
  /** Nothing was run; `detail` says why in words fit for the reply (not-durable). */
  | { kind: 'unavailable'; reason: UnavailableReason; detail?: string };

/** Where the engine tells an operator that a reply could not be kept as it should (the gateway's logger). */
export interface ClaimsLog {
  error(details: Record<string, unknown>, message: string): void;
}

export interface PaymentClaimsOptions {
  store: ClaimStore;
  /** The HMAC secret ids and fingerprints are made with (GATEWAY_SECRET with a shared store). */
  secret: string | Buffer;
  /** The longest a repeat waits for the first call's reply. */
  waitMs: number;
  /** PAYMENT_DUPLICATE_WINDOW_S in ms; 0: keyless payments are not claimed. */
  keylessWindowMs: number;
  logger: ClaimsLog;
  leaseMs?: number;
  now?: Clock;
  /** The lease's renewals and the pauses between tries to store a reply. */
  timers?: Timers;
  /** One event per run; `keyless` tells the two kinds of claim apart. */
  onEvent?: (event: IdempotencyEvent, keyless: boolean) => void;
  /** Replies kept only a minute: v1 refused the API key itself, so nothing was done under the key. */
  releasesKey?: (reply: LegacyPaymentReply) => boolean;
  /** Unknown outcomes settled from v1's payments list (settle/); absent, they stay unknown. */
  settle?: {
    /** PAYMENT_SETTLE_AFTER_S in ms. */
    afterMs: number;
    /** Between the two reads that settle "not paid"; min(10 s, afterMs) by default. */
    recheckMs?: number;
  };
  /** One event per claim settled, by what it found. */
  onSettled?: (result: 'paid' | 'not_paid') => void;
}

export interface PaymentClaims {
  /** Runs `pay` at most once per claim; every repeat gets the first call's reply, or is told why not.
   * `terms`: how this call reads v1's payments list and words its replies, to settle an unknown outcome. */
  run(call: PaymentCall, pay: (gate: SendGate) => Promise<PaidReply>, terms?: SettleTerms): Promise<ClaimOutcome>;
  /** One settle attempt of the claim under `id` (the background settler), with the terms for the API key
   * its payment was sent with (opened from its ticket; undefined: it was sent without one). */
  settle(id: string, termsFor: (apiKey: string | undefined) => SettleTerms | undefined): Promise<SettleAttempt>;
  /** The claims whose outcome is unknown now, oldest first (the store's listUnknown). */
  listUnknown(limit: number): Promise<UnknownClaim[]>;
  /** The API key a claim's payment was sent with, opened from its ticket (for the caller's fingerprint; never
   * to be shown or logged). */
  apiKeyOf(record: ClaimRecord): string | undefined;
  /** Settles a claim as an operator decided (the outcome counted like a settlement's). */
  settleByHand(id: string, decision: OperatorDecision, terms: Pick<SettleTerms, 'paidReply' | 'notPaidReply'>): Promise<OperatorResult>;
  /** After the last request: waits until the replies of the payments run here are stored. */
  close(): Promise<void>;
}

/** The fields as they identify a payment: trimmed, empty ones left out (an integration that sends
 * `discount=` once and omits it the next time sends the same payment). */
export function normalisedFields(fields: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(fields)) {
    const trimmed = value.trim();
    if (trimmed !== '') out[name.trim()] = trimmed;
  }
  return out;
}

/** Whether a keyless payment's claim holds after its answer: a repeat then replays instead of paying. */
export function keylessHolds(charge: Charge, delivered: boolean): boolean {
  return charge === 'unknown' || (charge === 'paid' && !delivered);
}

const REFUSAL_EVENTS: Record<UnavailableReason, IdempotencyEvent> = {
  full: 'refused_full',
  'store-unreachable': 'refused_unavailable',
  'wait-expired': 'wait_expired',
  'not-durable': 'refused_not_durable',
};

/** The store's own words replace the generic reason only where they say something it does not: why the
 * store cannot be trusted. */
const detailOf = (err: ClaimStoreError): string | undefined => (err.fault === 'not-durable' ? err.detail : undefined);

const REASON_OF_FAULT = { full: 'full', unreachable: 'store-unreachable', 'not-durable': 'not-durable' } as const;

/** One claim this process holds: its record, written to the store one write at a time, and whether the
 * store refused to move it to `sent` (then nothing was written to v1, and its run's reply is no answer). */
class OwnedClaim {
  private queue: Promise<unknown> = Promise.resolve();
  private cancelRenewal: (() => void) | undefined;
  private sendRefused = false;

  constructor(
    private readonly store: ClaimStore,
    readonly id: string,
    public record: ClaimRecord,
    private readonly leaseMs: number,
    private readonly now: Clock,
    private readonly timers: Timers,
    /** The claim's life in all: kept when its reply is stored again after it vanished. */
    readonly ttlMs: number,
  ) {}

  /** Writes the record after every earlier write; `change` is applied when the write's turn comes. */
  write(change: (record: ClaimRecord) => ClaimRecord, options: { durable?: boolean; ttlMs?: number } = {}): Promise<boolean> {
    const run = async (): Promise<boolean> => {
      const next = change(this.record);
      const kept = await this.store.update(this.id, next, options);
      if (kept) this.record = next;
      return kept;
    };
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => undefined);
    return result;
  }

  /** Renews the lease every third of it until stopped; a renewal that fails lets the lease run out. */
  keepLease(): void {
    const renew = (): void => {
      void this.write((r) => ({ ...r, leaseUntil: this.now() + this.leaseMs })).catch(() => false);
      this.cancelRenewal = this.timers.after(this.leaseMs / 3, renew);
    };
    this.cancelRenewal = this.timers.after(this.leaseMs / 3, renew);
  }

  stopLease(): void {
    this.cancelRenewal?.();
  }

  /** The send gate: moves the claim to `sent`, durably, before anything is written to v1 (once; a claim
   * already past `claimed` passes). Rejects with ClaimStoreError when the store cannot prove the move. The
   * ticket an earlier run left (carried) gives way to this run's, or to none. */
  async moveToSent(ticket?: (sentAt: number) => LedgerTicket): Promise<void> {
    if (this.record.phase !== 'claimed') return;
    let kept: boolean;
    try {
      const sent = ({ ticket: _carried, ...r }: ClaimRecord): ClaimRecord => {
        const t = this.now();
        return { ...r, phase: 'sent', leaseUntil: t + this.leaseMs, ...(ticket === undefined ? {} : { ticket: ticket(t) }) };
      };
      kept = await this.write(sent, { durable: true });
    } catch (err) {
      this.sendRefused = true;
      throw err instanceof ClaimStoreError ? err : new ClaimStoreError('unreachable', 'the payment claims store cannot be reached');
    }
    if (!kept) {
      this.sendRefused = true;
      throw new ClaimStoreError('not-durable', 'the payment claims store lost this payment\'s claim before it was sent');
    }
  }

  /** The ticket of a claim already `sent` (its payment created a client first), kept durably before the
   * payment's POST. A store that refuses leaves the claim without one: its outcome, if unknown, stays so. */
  async keepTicket(ticket: (sentAt: number) => LedgerTicket): Promise<void> {
    if (this.record.phase !== 'sent' || this.record.ticket !== undefined) return;
    await this.write((r) => ({ ...r, ticket: ticket(this.now()) }), { durable: true }).catch(() => false);
  }

  /** Whether the store refused to move the claim to `sent`: the payment stopped before writing anything. */
  get refusedAtGate(): boolean {
    return this.sendRefused;
  }
}

class Claims implements PaymentClaims {
  private readonly digest: IdempotencyDigest;
  private readonly leaseMs: number;
  private readonly now: Clock;
  private readonly timers: Timers;
  /** The replies still being stored, awaited by close(). */
  private readonly storing = new Set<Promise<unknown>>();
  private readonly settleDeps: SettleDeps | undefined;
  private readonly seal: KeySeal;

  constructor(private readonly options: PaymentClaimsOptions) {
    this.digest = idempotencyDigest(options.secret);
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.now = options.now ?? systemClock;
    this.timers = options.timers ?? systemTimers;
    this.seal = keySeal(options.secret);
    const { settle } = options;
    this.settleDeps =
      settle === undefined
        ? undefined
        : {
            store: options.store,
            digest: (field, value) => this.digest.ledgerValue(field, value),
            ledgerId: (paymentId) => this.digest.ledgerId(paymentId),
            timing: { afterMs: settle.afterMs, recheckMs: settle.recheckMs ?? Math.min(MAX_RECHECK_MS, settle.afterMs) },
            holder: randomBytes(12).toString('base64url'),
            leaseMs: SETTLE_LEASE_MS,
            now: this.now,
          };
  }

  async listUnknown(limit: number): Promise<UnknownClaim[]> {
    return this.options.store.listUnknown(this.now(), limit);
  }

  apiKeyOf(record: ClaimRecord): string | undefined {
    const sealed = record.ticket?.sealedKey;
    return sealed === undefined ? undefined : this.seal.open(sealed);
  }

  async settleByHand(id: string, decision: OperatorDecision, terms: Pick<SettleTerms, 'paidReply' | 'notPaidReply'>): Promise<OperatorResult> {
    if (this.settleDeps === undefined) return 'not-unknown';
    const record = await this.options.store.read(id);
    const result = await settleByOperator({ ...this.settleDeps, holder: `${this.settleDeps.holder}-operator` }, id, record, decision, terms);
    if (result === 'settled') this.options.onSettled?.(decision.kind === 'paid' ? 'paid' : 'not_paid');
    return result;
  }

  async settle(id: string, termsFor: (apiKey: string | undefined) => SettleTerms | undefined): Promise<SettleAttempt> {
    const never = { kind: 'unknown', nextAt: Number.POSITIVE_INFINITY, why: 'no-ticket' } as const;
    if (this.settleDeps === undefined) return never;
    const record = await this.options.store.read(id);
    if (record === undefined) return { kind: 'changed' };
    const sealed = record.ticket?.sealedKey;
    const apiKey = sealed === undefined ? undefined : this.seal.open(sealed);
    // A key sealed under another secret cannot be read back: the list is not read with another key.
    if (sealed !== undefined && apiKey === undefined) return never;
    const terms = termsFor(apiKey);
    if (terms === undefined) return never;
    // Its own lease holder: a repeat settling the claim in this process meanwhile is not doubled.
    const attempt = await settleClaim({ ...this.settleDeps, holder: `${this.settleDeps.holder}-background` }, id, record, terms);
    if (attempt.kind === 'paid') this.options.onSettled?.('paid');
    if (attempt.kind === 'not-paid') this.options.onSettled?.('not_paid');
    return attempt;
  }

  async run(call: PaymentCall, pay: (gate: SendGate) => Promise<PaidReply>, terms?: SettleTerms): Promise<ClaimOutcome> {
    const keyless = call.idempotencyKey === undefined;
    if (keyless && this.options.keylessWindowMs <= 0) {
      const { reply } = await pay({ beforeSend: () => Promise.resolve(), clientCreated: () => Promise.resolve(), settles: false });
      return { kind: 'fresh', reply, answered: () => Promise.resolve() };
    }
    const fields = normalisedFields(call.fields);
    const fingerprint = this.digest.fingerprint(fields);
    const id = keyless ? this.digest.keylessId(call.apiKey, fields) : this.digest.keyId(call.apiKey, call.idempotencyKey!);
    const ttlMs = keyless ? this.options.keylessWindowMs : IDEMPOTENCY_TTL_MS;
    const emit = (event: IdempotencyEvent): void => this.options.onEvent?.(event, keyless);
    const refuse = (reason: UnavailableReason, detail?: string): ClaimOutcome => {
      emit(REFUSAL_EVENTS[reason]);
      return { kind: 'unavailable', reason, ...(detail === undefined ? {} : { detail }) };
    };
    // A claim that is released or taken over between a refused claim and its read is claimed anew.
    for (let attempt = 0; attempt < 3; attempt++) {
      const record: ClaimRecord = {
        phase: 'claimed',
        fingerprint,
        caller: this.digest.callerId(call.apiKey),
        owner: randomBytes(12).toString('base64url'),
        leaseUntil: this.now() + this.leaseMs,
        replays: false,
      };
      let existing: ClaimRecord | undefined;
      let taken = false;
      let carried: LedgerTicket | undefined;
      try {
        const result = await this.options.store.claim(id, record, ttlMs, this.now());
        if (result.taken) {
          taken = true;
          // An earlier run of this same payment created its client: this run pays for that one.
          if (result.replaced?.fingerprint === fingerprint && result.replaced.ticket?.createdClient !== undefined) carried = result.replaced.ticket;
        } else existing = result.existing;
      } catch (err) {
        if (!(err instanceof ClaimStoreError)) throw err;
        // A full store still answers what it holds: a stored reply replays, only a new claim is refused.
        if (err.fault !== 'full') return refuse(REASON_OF_FAULT[err.fault], detailOf(err));
        existing = await this.options.store.read(id).catch(() => undefined);
        if (existing === undefined) return refuse('full');
      }
      if (taken) {
        emit('claimed');
        return this.own(new OwnedClaim(this.options.store, id, record, this.leaseMs, this.now, this.timers, ttlMs), keyless, pay, terms, call.apiKey, carried);
      }
      const outcome = await this.follow(id, existing, fingerprint, emit, refuse, terms);
      if (outcome !== undefined) return outcome;
    }
    return refuse('store-unreachable');
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.storing]);
  }

  private async own(
    claim: OwnedClaim,
    keyless: boolean,
    pay: (gate: SendGate) => Promise<PaidReply>,
    terms: SettleTerms | undefined,
    apiKey: string | undefined,
    carried: LedgerTicket | undefined,
  ): Promise<ClaimOutcome> {
    claim.keepLease();
    // The client an earlier run created stays named on this claim whatever this run does before its gate (a
    // check that stops it, a store that refuses it), so that no later run creates another. Settled past,
    // it is no ticket of this run's payment: the gate replaces it.
    if (carried !== undefined) {
      const { noneAt: _past, ...kept } = carried;
      await claim.write((r) => ({ ...r, ticket: { ...kept, unknown: false } })).catch(() => false);
    }
    const settles = terms !== undefined && this.settleDeps !== undefined;
    const sealed = apiKey === undefined ? {} : { sealedKey: this.seal.seal(apiKey) };
    const ticket = (mark: LedgerMark | undefined) =>
      settles && mark !== undefined ? (sentAt: number) => ({ ...ledgerTicket(terms.settle, mark, sentAt, this.settleDeps!.digest), ...sealed }) : undefined;
    const gate: SendGate = {
      beforeSend: (mark) => claim.moveToSent(ticket(mark)),
      clientCreated: async (mark) => {
        const made = ticket(mark);
        if (made !== undefined) await claim.keepTicket(made);
      },
      settles,
      ...(carried?.createdClient === undefined ? {} : { createdClient: carried.createdClient }),
    };
    let paid: PaidReply;
    try {
      paid = await pay(gate);
    } catch (err) {
      // Its lease ends now: a claim still `claimed` is taken over by the next repeat, one `sent` answers
      // outcome-unknown. Should the store not take this, the lease runs out by itself.
      claim.stopLease();
      await claim.write((r) => ({ ...r, leaseUntil: 0 })).catch(() => false);
      throw err;
    }
    let answered: Promise<void> | undefined;
    return {
      kind: 'fresh',
      reply: paid.reply,
      // Refused at the gate: nothing was written to v1, so the reply is not kept as the payment's answer.
      answered: (delivered) => (answered ??= claim.refusedAtGate ? this.release(claim) : this.storeAnswer(claim, keyless, paid, delivered)),
    };
  }

  /** A payment refused before anything was sent: its claim is left open (its lease ended), so a retry
   * under the same key pays once the store can keep the claim. Should the store not take it, the lease
   * runs out by itself. */
  private async release(claim: OwnedClaim): Promise<void> {
    claim.stopLease();
    await claim.write((r) => ({ ...r, phase: 'claimed', leaseUntil: 0 })).catch(() => false);
  }

  private storeAnswer(claim: OwnedClaim, keyless: boolean, paid: PaidReply, delivered: boolean): Promise<void> {
    const replays = !keyless || keylessHolds(paid.charge, delivered);
    const ttl = !keyless && this.options.releasesKey?.(paid.reply) ? { ttlMs: RELEASED_KEY_TTL_MS } : {};
    // A ticket marks an unknown outcome, for the settlement; any other outcome needs none, but for the
    // client the payment created, which stays named (settled, unknown: false) for a later run of the claim.
    const answer = (r: ClaimRecord): ClaimRecord => {
      const { ticket, ...rest } = r;
      const answered: ClaimRecord = { ...rest, phase: 'answered', reply: storedReply(paid.reply), replays };
      if (ticket === undefined) return answered;
      if (paid.charge === 'unknown' && replays) return { ...answered, ticket: { ...ticket, unknown: true } };
      return ticket.createdClient === undefined ? answered : { ...answered, ticket: { ...ticket, unknown: false } };
    };
    const work = this.keepTrying(claim, answer, ttl).finally(() => claim.stopLease());
    this.storing.add(work);
    void work.finally(() => this.storing.delete(work));
    return work;
  }

  /** Stores the answer; while the store fails, tries again for a while (the claim's lease is kept meanwhile,
   * so repeats wait instead of answering outcome-unknown). */
  private async keepTrying(claim: OwnedClaim, answer: (r: ClaimRecord) => ClaimRecord, ttl: { ttlMs?: number }): Promise<void> {
    const giveUpAt = this.now() + STORE_REPLY_FOR_MS;
    for (let wait = 100; ; wait = Math.min(wait * 2, 2000)) {
      try {
        if (await claim.write(answer, ttl)) return;
        // The claim vanished (the store lost it) or another run took it: the reply is stored all the same
        // where nothing stands, so a repeat replays it instead of paying again.
        const record = answer(claim.record);
        const result = await this.options.store.claim(claim.id, record, claim.ttlMs, this.now());
        this.options.logger.error(
          { stored: result.taken },
          result.taken
            ? 'a payment claim vanished from the claims store before its reply was stored: the reply was stored again, so repeats replay it'
            : 'a payment claim was taken by another call before its reply was stored: this reply was not stored',
        );
        return;
      } catch {
        if (this.now() + wait > giveUpAt) {
          this.options.logger.error({}, 'the reply of a payment could not be stored in the claims store: its repeats answer outcome-unknown once its lease runs out');
          return;
        }
        await pause(this.timers, wait);
      }
    }
  }

  /** A repeat of an unknown outcome: settle attempts until one settles it or the next would come after
   * `deadline`; `unknown` says in how many seconds the next may. */
  private async settleWithin(id: string, first: ClaimRecord, terms: SettleTerms, deadline: number): Promise<Settled> {
    let record: ClaimRecord | undefined = first;
    for (;;) {
      if (record === undefined || !isUnknown(record, this.now())) return { kind: 'done' };
      let attempt: SettleAttempt;
      try {
        attempt = await settleClaim(this.settleDeps!, id, record, terms);
      } catch (err) {
        if (!(err instanceof ClaimStoreError)) throw err;
        attempt = { kind: 'unknown', nextAt: this.now() + 1000, why: 'leased' };
      }
      if (attempt.kind === 'paid') this.options.onSettled?.('paid');
      if (attempt.kind === 'not-paid') {
        this.options.onSettled?.('not_paid');
        return { kind: 'not-paid', reply: attempt.reply };
      }
      if (attempt.kind !== 'unknown') return { kind: 'done' };
      const t = this.now();
      if (attempt.nextAt > deadline) {
        const wait = Number.isFinite(attempt.nextAt) ? attempt.nextAt - t : this.options.waitMs;
        return { kind: 'unknown', retryAfterS: Math.max(1, Math.ceil(wait / 1000)) };
      }
      await pause(this.timers, Math.max(0, attempt.nextAt - t));
      record = await this.options.store.read(id).catch(() => record);
    }
  }

  /** A repeat: the stored reply, or the first call's after waiting for it; undefined when the claim may be
   * claimed anew (it vanished, was released, or its owner stopped before writing to v1). */
  private async follow(
    id: string,
    first: ClaimRecord | undefined,
    fingerprint: string,
    emit: (event: IdempotencyEvent) => void,
    refuse: (reason: UnavailableReason, detail?: string) => ClaimOutcome,
    terms: SettleTerms | undefined,
  ): Promise<ClaimOutcome | undefined> {
    const deadline = this.now() + this.options.waitMs;
    let waited = false;
    let record = first;
    let retryAfterS: number | undefined;
    let tried = false;
    for (;;) {
      if (record === undefined) return undefined;
      if (record.fingerprint !== fingerprint) {
        emit('mismatch');
        return { kind: 'mismatch' };
      }
      if (terms !== undefined && this.settleDeps !== undefined && !tried && isUnknown(record, this.now())) {
        tried = true;
        const settled = await this.settleWithin(id, record, terms, deadline);
        if (settled.kind === 'not-paid') return { kind: 'not-paid', reply: settled.reply };
        if (settled.kind === 'unknown') retryAfterS = settled.retryAfterS;
        try {
          record = await this.options.store.read(id);
        } catch (err) {
          if (err instanceof ClaimStoreError) return refuse(REASON_OF_FAULT[err.fault], detailOf(err));
          throw err;
        }
        continue;
      }
      const t = this.now();
      if (tried && record.phase === 'answered' && !record.replays && record.ticket?.unknown === false && record.reply !== undefined) {
        // Settled "not paid" (here or elsewhere) while this repeat waited for its settlement: told so.
        return { kind: 'not-paid', reply: record.reply };
      }
      if (record.phase === 'answered') {
        // A call that waited for this answer gets it, even when the claim is released for later calls.
        if (!(record.replays || waited) || record.reply === undefined) return undefined;
        emit(waited ? 'waited' : 'replayed');
        const still = retryAfterS !== undefined && isUnknown(record, t) ? { retryAfterS } : {};
        return { kind: 'replayed', reply: record.reply, waited, ...still };
      }
      if (record.leaseUntil <= t) {
        if (record.phase === 'claimed') return undefined;
        emit('outcome_unknown');
        return { kind: 'outcome-unknown', ...(retryAfterS !== undefined && isUnknown(record, t) ? { retryAfterS } : {}) };
      }
      if (t >= deadline) return refuse('wait-expired');
      waited = true;
      await this.options.store.changed(id, Math.min(record.leaseUntil, deadline) - t);
      try {
        record = await this.options.store.read(id);
      } catch (err) {
        if (err instanceof ClaimStoreError) return refuse(REASON_OF_FAULT[err.fault], detailOf(err));
        throw err;
      }
    }
  }
}

type Settled = { kind: 'done' } | { kind: 'not-paid'; reply: StoredPaymentReply } | { kind: 'unknown'; retryAfterS: number };

export function createPaymentClaims(options: PaymentClaimsOptions): PaymentClaims {
  return new Claims(options);
}
