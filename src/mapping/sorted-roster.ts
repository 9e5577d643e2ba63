// The whole listing a sorted-list mapping cuts its pages from (the team listings): every v1 page read, each
// record reduced as its page arrives to what the listing needs (the values its legacy fields are written
// from, and its sort values; the engine then lets go of the page, which only the response cache may still
// hold), and the records put in the mapping's order.
// A page of the legacy reply is a slice of it, its records built then: building all of them would
// allocate several times the roster's size. The gateway may keep a roster between calls through the
// RosterStore port, so another cut of the same listing costs no v1 read and no sort. Pure: v1 is asked
// through the engine's port; it never decides when a roster is read or how long it is kept.
import { GatewayError } from '../shared/errors.js';
import type { LegacyRecord } from './legacy-record.js';
import type { Page } from './paging.js';
import { sortOrder, sortValue, type SortValue } from './record-order.js';
import type { CompiledRecord } from './record-writer.js';
import type { SortedListMapping } from './schema.js';
import { asV1List, type V1Get } from './v1-reply.js';

export interface SortedRoster {
  /** Every record reduced to the values its legacy record is written from, `width` values a record, one
   * record after the other in v1's order (one array: no object per record for the collector to copy). */
  readonly values: readonly unknown[];
  readonly width: number;
  /** The listing's order: record numbers (in v1's order), first to last. */
  readonly order: Uint32Array;
  /** Roughly the memory the roster holds, in bytes: what a store keeping rosters bounds. */
  readonly bytes: number;
}

/** Where the gateway keeps rosters between calls, and when it lets a call read one. */
export interface RosterStore {
  /**
   * This call's roster: one kept for its listing while the v1 pages it was read from stay fresh, else the
   * one `read` gives. The store decides when `read` runs (it may bound how many rosters are read at once)
   * and whether, and how long, to keep what it gives.
   */
  roster(read: () => Promise<SortedRoster>): Promise<SortedRoster>;
}

/** How many records the size of a roster is estimated from. */
const SIZE_SAMPLE = 64;

/** A roster's approximate size, from evenly spaced records: a slot per value, the characters of its texts. */
function approximateBytes(values: readonly unknown[], width: number, order: Uint32Array): number {
  const count = order.length;
  if (count === 0 || width === 0) return order.byteLength;
  const step = Math.max(1, Math.floor(count / SIZE_SAMPLE));
  let sampled = 0;
  let bytes = 0;
  for (let i = 0; i < count; i += step, sampled++) {
    for (let at = i * width; at < (i + 1) * width; at++) {
      const value = values[at];
      bytes += 8 + (typeof value === 'string' ? 16 + value.length : 0);
    }
  }
  return Math.ceil((bytes / sampled) * count) + order.byteLength;
}

/** Reads every v1 page in v1's order, reducing each record as its page arrives, then sorts the listing. */
export async function readSortedRoster(mapping: SortedListMapping, record: CompiledRecord, v1Get: V1Get): Promise<SortedRoster> {
  const { resource, query, pageSize, maxPages } = mapping.source;
  const keys = mapping.sort;
  const values: unknown[] = [];
  const columns: SortValue[][] = keys.map(() => []);
  let count = 0;
  for (let page = 0; page < maxPages; page++) {
    const list = asV1List(
      (await v1Get({ path: `/${resource}`, query: { ...query, offset: String(page * pageSize), limit: String(pageSize) } })).take(),
    );
    for (const v1Record of list.data) {
      record.pick(v1Record, values);
      for (let k = 0; k < keys.length; k++) columns[k]!.push(sortValue(v1Record, keys[k]!));
    }
    count += list.data.length;
    if (!list.has_more || list.data.length === 0) {
      const order = sortOrder(count, columns, keys);
      return { values, width: record.width, order, bytes: approximateBytes(values, record.width, order) };
    }
  }
  throw new GatewayError('LGW_UPSTREAM_BAD_REPLY', `the upstream listing did not end within ${maxPages} pages`);
}

/** The number of records in the roster. */
export const rosterSize = (roster: SortedRoster): number => roster.order.length;

/** One page of the listing: its legacy records. */
export function cutRoster(roster: SortedRoster, record: CompiledRecord, page: Page): LegacyRecord[] {
  const records: LegacyRecord[] = [];
  for (const i of roster.order.subarray(page.offset, page.offset + page.limit)) records.push(record.buildPicked(roster.values, i * roster.width));
  return records;
}
