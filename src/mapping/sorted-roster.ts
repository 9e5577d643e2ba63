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
   * record after the other in v1's order; an array for each v1 page. A page's array is filled while it
   * and the values it takes from the page are young, so the collector moves it whole, once. One array
   * for the whole roster, older than each page read into it, made the collector note every value stored
   * into it, and grew by copying, so picking a large roster was slower that way. */
  readonly pageValues: readonly (readonly unknown[])[];
  /** The record number (in v1's order) of each page's first record. */
  readonly pageStarts: Uint32Array;
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

/** A roster's approximate size, from evenly spaced records of each page: a slot per value, the characters
 * of its texts. */
function approximateBytes(pageValues: readonly (readonly unknown[])[], width: number, order: Uint32Array): number {
  if (order.length === 0 || width === 0) return order.byteLength;
  let bytes = order.byteLength;
  for (const values of pageValues) {
    const count = values.length / width;
    if (count === 0) continue;
    const step = Math.max(1, Math.floor(count / SIZE_SAMPLE));
    let sampled = 0;
    let sampledBytes = 0;
    for (let i = 0; i < count; i += step, sampled++) {
      for (let at = i * width; at < (i + 1) * width; at++) {
        const value = values[at];
        sampledBytes += 8 + (typeof value === 'string' ? 16 + value.length : 0);
      }
    }
    bytes += Math.ceil((sampledBytes / sampled) * count);
  }
  return bytes;
}

/** Reads every v1 page in v1's order, reducing each record as its page arrives, then sorts the listing. */
export async function readSortedRoster(mapping: SortedListMapping, record: CompiledRecord, v1Get: V1Get): Promise<SortedRoster> {
  const { resource, query, pageSize, maxPages } = mapping.source;
  const keys = mapping.sort;
  const pageValues: unknown[][] = [];
  const pageStarts: number[] = [];
  const columns: SortValue[][] = keys.map(() => []);
  let count = 0;
  for (let page = 0; page < maxPages; page++) {
    const list = asV1List(
      (await v1Get({ path: `/${resource}`, query: { ...query, offset: String(page * pageSize), limit: String(pageSize) } })).take(),
    );
    const values: unknown[] = [];
    for (const v1Record of list.data) {
      record.pick(v1Record, values);
      for (let k = 0; k < keys.length; k++) columns[k]!.push(sortValue(v1Record, keys[k]!));
    }
    if (list.data.length > 0) {
      pageValues.push(values);
      pageStarts.push(count);
    }
    count += list.data.length;
    if (!list.has_more || list.data.length === 0) {
      const order = sortOrder(count, columns, keys);
      const bytes = approximateBytes(pageValues, record.width, order);
      return { pageValues, pageStarts: Uint32Array.from(pageStarts), width: record.width, order, bytes };
    }
  }
  throw new GatewayError('LGW_UPSTREAM_BAD_REPLY', `the upstream listing did not end within ${maxPages} pages`);
}

/** The number of records in the roster. */
export const rosterSize = (roster: SortedRoster): number => roster.order.length;

/** The index of the v1 page that holds record number `i`: the last page starting at or before it. */
function pageOf(starts: Uint32Array, i: number): number {
  let [low, high] = [0, starts.length - 1];
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (starts[mid]! <= i) low = mid;
    else high = mid - 1;
  }
  return low;
}

/** One page of the listing: its legacy records. */
export function cutRoster(roster: SortedRoster, record: CompiledRecord, page: Page): LegacyRecord[] {
  const records: LegacyRecord[] = [];
  for (const i of roster.order.subarray(page.offset, page.offset + page.limit)) {
    const p = pageOf(roster.pageStarts, i);
    records.push(record.buildPicked(roster.pageValues[p]!, (i - roster.pageStarts[p]!) * roster.width));
  }
  return records;
}
