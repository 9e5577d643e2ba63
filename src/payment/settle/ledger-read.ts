// Reads v1's payments list for a settlement, through a GET port: the newest id before a payment is sent,
// and later every record newer than it. The list is ordered by id ascending and its envelope says how many
// records match the filters (`total`), so the newest are read from the end, a page at a time backwards,
// until a page reaches a record that is not newer than the mark. A reply of the wrong shape is an
// unreadable list (LedgerUnreadable), never an empty one. Pure: v1 is a port.
import type { LedgerRecord } from './ledger-match.js';

/** A v1 GET: resolves with the parsed 2xx body, rejects on any fault. */
export type LedgerGet = (path: string, query: Record<string, string>) => Promise<unknown>;

export interface LedgerList {
  /** The list's path (`/payments`). */
  path: string;
  /** The filters with their values. */
  filters: Record<string, string>;
  idField: string;
}

/** Records read per page when reading back from the end. */
export const LEDGER_PAGE = 100;
/** Pages read at most: more records than this since the POST, and the list is taken as unreadable. */
export const LEDGER_MAX_PAGES = 10;

export class LedgerUnreadable extends Error {
  override name = 'LedgerUnreadable';
}

interface Page {
  total: number;
  data: LedgerRecord[];
}

async function page(get: LedgerGet, list: LedgerList, offset: number, limit: number): Promise<Page> {
  let body: unknown;
  try {
    body = await get(list.path, { ...list.filters, offset: String(offset), limit: String(limit) });
  } catch (err) {
    throw new LedgerUnreadable('the payments list could not be read', { cause: err });
  }
  const envelope = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const { total, data } = envelope;
  if (typeof total !== 'number' || !Number.isSafeInteger(total) || total < 0 || !Array.isArray(data)) throw new LedgerUnreadable('the payments list is not a list');
  const records = data.map((r): LedgerRecord => (typeof r === 'object' && r !== null && !Array.isArray(r) ? (r as LedgerRecord) : {}));
  if (records.some((r) => typeof r[list.idField] !== 'number')) throw new LedgerUnreadable('a payments list record carries no id');
  return { total, data: records };
}

const idOf = (record: LedgerRecord, list: LedgerList): number => record[list.idField] as number;

/** The newest id the list holds (0: it is empty): one read, or two when it holds more than one record. */
export async function newestLedgerId(get: LedgerGet, list: LedgerList): Promise<number> {
  const first = await page(get, list, 0, 1);
  if (first.total === 0 || first.data.length === 0) return 0;
  if (first.total === 1) return idOf(first.data[0]!, list);
  const last = await page(get, list, first.total - 1, 1);
  // The list shrank between the two reads: the first page's id is still a lower bound.
  return Math.max(idOf(first.data[0]!, list), ...last.data.map((r) => idOf(r, list)));
}

/** Every record newer than `afterId`, read back from the end of the list. */
export async function ledgerSince(get: LedgerGet, list: LedgerList, afterId: number): Promise<LedgerRecord[]> {
  const { total } = await page(get, list, 0, 1);
  const newer: LedgerRecord[] = [];
  let end = total;
  for (let n = 0; n < LEDGER_MAX_PAGES; n++) {
    if (end <= 0) return newer;
    const offset = Math.max(0, end - LEDGER_PAGE);
    const { data } = await page(get, list, offset, end - offset);
    newer.push(...data.filter((r) => idOf(r, list) > afterId));
    if (offset === 0 || data.some((r) => idOf(r, list) <= afterId)) return newer;
    end = offset;
  }
  throw new LedgerUnreadable(`more than ${LEDGER_PAGE * LEDGER_MAX_PAGES} payments since the one to settle`);
}
