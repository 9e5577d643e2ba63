// One attempt to settle a claim whose payment outcome is unknown (claim-store.ts, isUnknown), from v1's
// payments list: under the claim's settle lease (one settlement at a time per claim, on every replica), it
// reads the records newer than the ticket's mark, judges them (ledger-match.ts) and writes the result to the
// claim, durably:
// - one match, not already the answer of another claim (each settled id is reserved in the store under its
//   own HMAC): the claim is answered with the reply a successful POST gets (code 12, that payment's id), and
//   every repeat replays it;
// - none, past PAYMENT_SETTLE_AFTER_S and again on a second read later: the claim is answered "not paid"
//   and released, so the next repeat pays;
// - more than one, or the list unreadable: it stays unknown, and is tried again later.
// Pure: the store, v1 and the clock are ports.
import type { LegacyPaymentReply } from '../contract.js';
import type { SettleMapping } from '../payment-mapping.js';
import { isUnknown, type ClaimRecord, type ClaimStore, type LedgerTicket, type StoredPaymentReply } from '../claims/claim-store.js';
import { IDEMPOTENCY_TTL_MS, storedReply } from '../claims/idempotency.js';
import type { Clock } from '../claims/system-time.js';
import { judgeLedger, nextStep, type LedgerVerdict, type SettleTiming, type ValueDigest } from './ledger-match.js';
import { ledgerSince, LedgerUnreadable, type LedgerGet } from './ledger-read.js';
import { ticketList } from './ledger-ticket.js';

export interface SettleDeps {
  store: ClaimStore;
  /** The HMAC of a matched field's value (the same as the ticket's). */
  digest: ValueDigest;
  /** The store's name for a v1 payment id taken as a claim's answer. */
  ledgerId(paymentId: number): string;
  timing: SettleTiming;
  /** This process's name as a settle lease holder. */
  holder: string;
  /** How long a settle lease is held: longer than one attempt's reads. */
  leaseMs: number;
  now: Clock;
}

/** What one attempt needs of the mapping and the request: the list, v1, the replies. */
export interface SettleTerms {
  settle: SettleMapping;
  get: LedgerGet;
  /** The reply a successful POST gets, for this payment id. */
  paidReply(paymentId: number): LegacyPaymentReply;
  /** Code 8: no payment was made, it can be sent again. */
  notPaidReply(): LegacyPaymentReply;
}

export type SettleAttempt =
  | { kind: 'paid'; paymentId: number; reply: StoredPaymentReply }
  | { kind: 'not-paid'; reply: StoredPaymentReply }
  /** Still unknown: worth trying again at `nextAt` (`leased`: another attempt holds the claim). */
  | { kind: 'unknown'; nextAt: number; why: 'too-early' | 'ambiguous' | 'unreadable' | 'recheck' | 'leased' | 'no-ticket' }
  /** The claim is no longer unknown (settled elsewhere, expired, or moved on): read it again. */
  | { kind: 'changed' };

/** How long after a refused lease the claim is looked at again. */
const LEASED_RETRY_MS = 1000;

/** A record newer than the mark, judged; a matched id already another claim's answer is passed over. */
async function judge(deps: SettleDeps, id: string, record: ClaimRecord, ticket: LedgerTicket, terms: SettleTerms): Promise<LedgerVerdict | 'unreadable'> {
  let records;
  try {
    records = await ledgerSince(terms.get, ticketList(terms.settle, ticket), ticket.afterId);
  } catch (err) {
    if (err instanceof LedgerUnreadable) return 'unreadable';
    throw err;
  }
  const taken = new Set<number>();
  for (;;) {
    const verdict = judgeLedger(ticket, records, terms.settle.idField, deps.digest, taken);
    if (verdict.kind !== 'paid') return verdict;
    const reservation: ClaimRecord = { phase: 'answered', fingerprint: id, caller: record.caller, owner: 'ledger', leaseUntil: 0, replays: true };
    const held = await deps.store.claim(deps.ledgerId(verdict.id), reservation, IDEMPOTENCY_TTL_MS, deps.now());
    if (held.taken || held.existing.fingerprint === id) return verdict;
    taken.add(verdict.id);
  }
}

/** The claim as it stands once this holder has its settle lease (undefined: the lease is another's, or the
 * claim is no longer unknown); the lease is given back by `release`. */
async function underLease(deps: SettleDeps, id: string, at: number): Promise<ClaimRecord | 'leased' | undefined> {
  if (!(await deps.store.settleLease(id, deps.holder, deps.leaseMs, at))) return 'leased';
  const current = await deps.store.read(id);
  return current !== undefined && isUnknown(current, deps.now()) ? current : undefined;
}

/** Gives the settle lease back at once (a lease of no time), so the next attempt (any replica's, an
 * operator's) need not wait for it to run out. */
const release = (deps: SettleDeps, id: string): Promise<unknown> => deps.store.settleLease(id, deps.holder, 0, deps.now()).catch(() => false);

export async function settleClaim(deps: SettleDeps, id: string, seen: ClaimRecord, terms: SettleTerms): Promise<SettleAttempt> {
  const started = deps.now();
  if (!isUnknown(seen, started)) return { kind: 'changed' };
  if (seen.ticket === undefined) return { kind: 'unknown', nextAt: Number.POSITIVE_INFINITY, why: 'no-ticket' };
  const held = await underLease(deps, id, started);
  if (held === 'leased') return { kind: 'unknown', nextAt: started + LEASED_RETRY_MS, why: 'leased' };
  if (held === undefined) {
    await release(deps, id);
    return { kind: 'changed' };
  }
  try {
    return await attempt(deps, id, held, started, terms);
  } finally {
    await release(deps, id);
  }
}

async function attempt(deps: SettleDeps, id: string, record: ClaimRecord, started: number, terms: SettleTerms): Promise<SettleAttempt> {
  const ticket = record.ticket!;
  const verdict = await judge(deps, id, record, ticket, terms);
  const now = deps.now();
  // The reads outlasted the lease: another attempt may have begun; this one writes nothing.
  if (now >= started + deps.leaseMs) return { kind: 'unknown', nextAt: now, why: 'leased' };
  const step = nextStep(verdict, ticket, now, deps.timing);
  const settled = { ...ticket, unknown: false };
  switch (step.kind) {
    case 'paid': {
      const reply = storedReply(terms.paidReply(step.id));
      const kept = await deps.store.update(id, { ...record, phase: 'answered', reply, replays: true, ticket: settled }, { durable: true });
      return kept ? { kind: 'paid', paymentId: step.id, reply } : { kind: 'changed' };
    }
    case 'not-paid': {
      const reply = storedReply(terms.notPaidReply());
      const kept = await deps.store.update(id, { ...record, phase: 'answered', reply, replays: false, ticket: settled }, { durable: true });
      return kept ? { kind: 'not-paid', reply } : { kind: 'changed' };
    }
    case 'note-none': {
      const kept = await deps.store.update(id, { ...record, ticket: { ...ticket, noneAt: now } });
      return kept ? { kind: 'unknown', nextAt: step.nextAt, why: 'recheck' } : { kind: 'changed' };
    }
    case 'unknown':
      return step;
  }
}

/** An operator's decision about a claim whose outcome is unknown, after looking at v1's payments list. */
export type OperatorDecision = { kind: 'paid'; paymentId: number } | { kind: 'not-paid' };

/** What became of an operator's decision: `settled`, or refused: the claim is not unknown (gone, settled,
 * in flight), the payment id is another claim's answer, or a settle attempt holds the claim now. */
export type OperatorResult = 'settled' | 'not-unknown' | 'id-taken' | 'busy';

/** Settles a claim as an operator decided (legacy-gateway payments settle): the same writes a settlement
 * makes, under the claim's settle lease, the payment id reserved. */
export async function settleByOperator(
  deps: SettleDeps,
  id: string,
  seen: ClaimRecord | undefined,
  decision: OperatorDecision,
  terms: Pick<SettleTerms, 'paidReply' | 'notPaidReply'>,
): Promise<OperatorResult> {
  const now = deps.now();
  if (seen === undefined || !isUnknown(seen, now)) return 'not-unknown';
  const held = await underLease(deps, id, now);
  if (held === 'leased') return 'busy';
  try {
    return held === undefined ? 'not-unknown' : await decide(deps, id, held, decision, terms, now);
  } finally {
    await release(deps, id);
  }
}

async function decide(
  deps: SettleDeps,
  id: string,
  record: ClaimRecord,
  decision: OperatorDecision,
  terms: Pick<SettleTerms, 'paidReply' | 'notPaidReply'>,
  now: number,
): Promise<OperatorResult> {
  const ticket = { ...record.ticket!, unknown: false };
  if (decision.kind === 'paid') {
    const reservation: ClaimRecord = { phase: 'answered', fingerprint: id, caller: record.caller, owner: 'ledger', leaseUntil: 0, replays: true };
    const held = await deps.store.claim(deps.ledgerId(decision.paymentId), reservation, IDEMPOTENCY_TTL_MS, now);
    if (!held.taken && held.existing.fingerprint !== id) return 'id-taken';
    const kept = await deps.store.update(id, { ...record, phase: 'answered', reply: storedReply(terms.paidReply(decision.paymentId)), replays: true, ticket }, { durable: true });
    return kept ? 'settled' : 'not-unknown';
  }
  const kept = await deps.store.update(id, { ...record, phase: 'answered', reply: storedReply(terms.notPaidReply()), replays: false, ticket }, { durable: true });
  return kept ? 'settled' : 'not-unknown';
}
