// Which of v1's payments records is the payment sent under a claim whose outcome is unknown, and what that
// means. Pure. A record is the payment when it is newer than the newest the list held before the POST
// (its id is greater than the ticket's `afterId`), and every field the mapping's `settle.match` names holds
// the value sent, compared in one spelling (ledgerValue): numbers as numbers, text trimmed, case folded,
// v1's HTML entities read back. The values sent are kept as HMACs (the ticket holds no field in clear), so a
// record's values are hashed the same way to be compared.
import type { LedgerTicket } from '../claims/claim-store.js';

/** A list record, as v1 sent it. */
export type LedgerRecord = Record<string, unknown>;

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'", '&#039;': "'", '&apos;': "'" };

/** One spelling of a value, whichever side it comes from: '' for none. */
export function ledgerValue(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  if (typeof value === 'boolean') return value ? '1' : '0';
  if (typeof value !== 'string') return JSON.stringify(value);
  const text = value.replace(/&(amp|lt|gt|quot|#0?39|apos);/g, (entity) => ENTITIES[entity] ?? entity).trim();
  if (/^-?\d+(\.\d+)?$/.test(text)) return String(Number(text));
  return text.toLowerCase();
}

/** The HMAC of one field's value (the claims' digest, under the gateway's secret). */
export type ValueDigest = (field: string, value: string) => string;

/** The ticket's `match`: each v1 field's value as sent, hashed. */
export function matchDigests(sent: Readonly<Record<string, unknown>>, digest: ValueDigest): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [field, value] of Object.entries(sent)) out[field] = digest(field, ledgerValue(value));
  return out;
}

/** What a read of the list says about the payment sent. */
export type LedgerVerdict =
  /** Exactly one record is the payment: it was made, with this id. */
  | { kind: 'paid'; id: number }
  /** No record is the payment (yet). */
  | { kind: 'none' }
  /** More than one record could be it: an operator decides. */
  | { kind: 'ambiguous'; ids: number[] };

/** Reads the records newer than the ticket's mark; `taken` are ids already the answer of another claim. */
export function judgeLedger(
  ticket: Pick<LedgerTicket, 'afterId' | 'match'>,
  records: readonly LedgerRecord[],
  idField: string,
  digest: ValueDigest,
  taken: ReadonlySet<number> = new Set(),
): LedgerVerdict {
  const ids = new Set<number>();
  for (const record of records) {
    const id = record[idField];
    if (typeof id !== 'number' || id <= ticket.afterId || taken.has(id)) continue;
    const same = Object.entries(ticket.match).every(([field, hashed]) => digest(field, ledgerValue(record[field])) === hashed);
    if (same) ids.add(id);
  }
  const found = [...ids].sort((a, b) => a - b);
  if (found.length === 0) return { kind: 'none' };
  if (found.length === 1) return { kind: 'paid', id: found[0]! };
  return { kind: 'ambiguous', ids: found };
}

/** What a settlement does next, given a verdict, the time and the claim's ticket. */
export type SettleStep =
  | { kind: 'paid'; id: number }
  /** Settled as "not paid": the claim is released, the payment may be sent again. */
  | { kind: 'not-paid' }
  /** The first read past the window found nothing: note `noneAt` and read again at `nextAt`. */
  | { kind: 'note-none'; nextAt: number }
  /** Still unknown; try again at `nextAt`. */
  | { kind: 'unknown'; nextAt: number; why: 'too-early' | 'ambiguous' | 'unreadable' | 'recheck' };

export interface SettleTiming {
  /** PAYMENT_SETTLE_AFTER_S in ms: how long after the POST a missing record may mean "not paid". */
  afterMs: number;
  /** How long after a first read that found nothing the second one is made. */
  recheckMs: number;
}

/** The decision (pure): "paid" on one match at once; "not paid" only past the window and on a second read
 * at least `recheckMs` after a first that found nothing; anything else stays unknown. */
export function nextStep(verdict: LedgerVerdict | 'unreadable', ticket: Pick<LedgerTicket, 'sentAt' | 'noneAt'>, now: number, timing: SettleTiming): SettleStep {
  if (verdict === 'unreadable') return { kind: 'unknown', nextAt: now + timing.recheckMs, why: 'unreadable' };
  if (verdict.kind === 'paid') return verdict;
  if (verdict.kind === 'ambiguous') return { kind: 'unknown', nextAt: now + timing.recheckMs, why: 'ambiguous' };
  const windowEnds = ticket.sentAt + timing.afterMs;
  if (now < windowEnds) return { kind: 'unknown', nextAt: windowEnds, why: 'too-early' };
  if (ticket.noneAt === undefined || ticket.noneAt < windowEnds) return { kind: 'note-none', nextAt: now + timing.recheckMs };
  if (now < ticket.noneAt + timing.recheckMs) return { kind: 'unknown', nextAt: ticket.noneAt + timing.recheckMs, why: 'recheck' };
  return { kind: 'not-paid' };
}
