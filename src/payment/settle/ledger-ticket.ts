// The ledger mark a payment takes before its payment POST, and the ticket its claim keeps from it
// (claim-store.ts, LedgerTicket): the newest id of v1's list, the list's filters with the payment's values,
// the matched fields as HMACs, the client and amount an operator is shown, and the client the payment
// created, if it created one. Pure.
import type { LedgerTicket } from '../claims/claim-store.js';
import type { SettleMapping } from '../payment-mapping.js';
import { ledgerValue, matchDigests, type ValueDigest } from './ledger-match.js';
import type { LedgerList } from './ledger-read.js';

/** What the flow hands its claim before the payment's POST: the list's newest id and the payment body. */
export interface LedgerMark {
  afterId: number;
  /** The payment's v1 body (the token is left out of everything kept). */
  body: Readonly<Record<string, unknown>>;
  /** The client this claim's payment created (by this run or an earlier one): kept with the ticket. */
  createdClient?: string;
}

/** The list read for a payment whose body is `body` (its filters' values from the body). */
export function ledgerList(settle: SettleMapping, body: Readonly<Record<string, unknown>>): LedgerList {
  return { path: `/${settle.list}`, filters: filterValues(settle, body), idField: settle.idField };
}

function filterValues(settle: SettleMapping, body: Readonly<Record<string, unknown>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [filter, field] of Object.entries(settle.filters)) out[filter] = ledgerValue(body[field]);
  return out;
}

export function ledgerTicket(settle: SettleMapping, mark: LedgerMark, sentAt: number, digest: ValueDigest): LedgerTicket {
  const sent: Record<string, unknown> = {};
  for (const [field, bodyField] of Object.entries(settle.match)) sent[field] = mark.body[bodyField];
  return {
    sentAt,
    afterId: mark.afterId,
    filters: filterValues(settle, mark.body),
    match: matchDigests(sent, digest),
    client: ledgerValue(mark.body[settle.shown.client]),
    amount: ledgerValue(mark.body[settle.shown.amount]),
    ...(mark.createdClient === undefined ? {} : { createdClient: mark.createdClient }),
  };
}

/** The list a ticket is settled against. */
export const ticketList = (settle: SettleMapping, ticket: LedgerTicket): LedgerList => ({ path: `/${settle.list}`, filters: ticket.filters, idField: settle.idField });
