// The whole listing a sorted-list mapping cuts its pages from (the team listings): every v1 page read, each
// page reduced as it arrives to what the listing needs (its records written as legacy JSON text, and their
// sort values; the v1 records themselves are then dropped), and the records put in the mapping's order,
// as one text. A page of the legacy reply is a slice of that text. The gateway may keep a roster between
// calls through the RosterStore port, so another cut of the same listing costs no v1 read and no sort.
// Pure: v1 is asked through the engine's port; it never decides how long a roster may be kept.
import { GatewayError } from '../shared/errors.js';
import type { V1Record } from './legacy-record.js';
import type { Page } from './paging.js';
import { sortOrder, sortValue, type SortValue } from './record-order.js';
import type { CompiledRecord } from './record-writer.js';
import type { SortedListMapping, SortKey } from './schema.js';
import { asV1List, type V1Get } from './v1-reply.js';

export interface SortedRoster {
  /** Every record of the listing as legacy JSON text, in order, separated by commas. */
  readonly text: string;
  /** Where each record's text ends in `text` (the next one starts one comma later). */
  readonly ends: Uint32Array;
  /** Roughly the memory the roster holds, in bytes: what a store keeping rosters bounds. */
  readonly bytes: number;
}

/** Where the gateway keeps rosters between calls: one roster per call (its API key and listing). */
export interface RosterStore {
  /** The roster kept for this call's listing, while the v1 pages it was read from are still fresh. */
  get(): SortedRoster | undefined;
  /** Offers the roster this call has just read; the store decides whether, and how long, to keep it. */
  keep(roster: SortedRoster): void;
}

/** The listing while its pages arrive: each page's records as one text, and where each record is. */
class RosterPages {
  private readonly pages: string[] = [];
  /** Per record, in v1's order: its page, and where its text starts and ends in that page's text. */
  private readonly page: number[] = [];
  private readonly start: number[] = [];
  private readonly end: number[] = [];
  readonly columns: SortValue[][];

  constructor(private readonly keys: readonly SortKey[]) {
    this.columns = keys.map(() => []);
  }

  get count(): number {
    return this.page.length;
  }

  /** Writes the page's records and reads their sort values; nothing else of them is kept. */
  add(records: readonly V1Record[], record: CompiledRecord): void {
    const index = this.pages.length;
    const texts: string[] = [];
    let at = 0;
    for (const v1Record of records) {
      const text = record.write(v1Record);
      texts.push(text);
      this.page.push(index);
      this.start.push(at);
      at += text.length;
      this.end.push(at);
      for (let k = 0; k < this.keys.length; k++) this.columns[k]!.push(sortValue(v1Record, this.keys[k]!));
    }
    // One flat text per page: each record's own text is a short-lived rope of its fields.
    this.pages.push(texts.join(''));
  }

  /** The records' texts in the given order, as one roster. */
  roster(order: readonly number[]): SortedRoster {
    const ends = new Uint32Array(order.length);
    let at = -1;
    const texts = order.map((g, i) => {
      at += 1 + this.end[g]! - this.start[g]!;
      ends[i] = at;
      return this.pages[this.page[g]!]!.slice(this.start[g], this.end[g]);
    });
    const text = texts.join(',');
    return { text, ends, bytes: text.length + ends.byteLength };
  }
}

/** Reads every v1 page in v1's order, reducing each page as it arrives, then sorts the listing. */
export async function readSortedRoster(mapping: SortedListMapping, record: CompiledRecord, v1Get: V1Get): Promise<SortedRoster> {
  const { resource, query, pageSize, maxPages } = mapping.source;
  const pages = new RosterPages(mapping.sort);
  for (let page = 0; page < maxPages; page++) {
    const list = asV1List(
      await v1Get({ path: `/${resource}`, query: { ...query, offset: String(page * pageSize), limit: String(pageSize) } }),
    );
    pages.add(list.data, record);
    if (!list.has_more || list.data.length === 0) return pages.roster(sortOrder(pages.count, pages.columns, mapping.sort));
  }
  throw new GatewayError('LGW_UPSTREAM_BAD_REPLY', `the upstream listing did not end within ${maxPages} pages`);
}

/** The number of records in the roster. */
export const rosterSize = (roster: SortedRoster): number => roster.ends.length;

/** One page of the listing: its records' texts, separated by commas (empty past the end). */
export function cutRoster(roster: SortedRoster, page: Page): string {
  const first = Math.min(page.offset, roster.ends.length);
  const last = Math.min(page.offset + page.limit, roster.ends.length);
  if (first >= last) return '';
  const start = first === 0 ? 0 : roster.ends[first - 1]! + 1;
  return roster.text.slice(start, roster.ends[last - 1]);
}
