// Orders a whole v1 listing by a sorted-list mapping's sort keys (the team listings: priority, then first_name).
// Pure; stable, so records that tie on every key keep v1's order (id ascending). Each record's sort values
// are read once and ranked once per key (texts in the collator's order, text-collation.ts), so the sort
// itself is a counting sort by rank: a listing of 10,000 costs no collator call and no comparison.
import type { V1Record } from './legacy-record.js';
import type { SortKey } from './schema.js';
import { plainText } from './legacy-value.js';
import { collationRanks } from './text-collation.js';

/** What a record sorts by for one key: a number (number keys), a text (text keys), or none. */
export type SortValue = number | string | undefined;

export function sortValue(record: V1Record, key: SortKey): SortValue {
  const v = record[key.field];
  if (v === null || v === undefined || v === '') return undefined;
  if (key.type === 'number') {
    const n = typeof v === 'object' ? Number(plainText(v)) : Number(v);
    return Number.isFinite(n) ? n : undefined;
  }
  return plainText(v);
}

/** One key's values as dense ranks from 0, in the key's order: equal values share a rank (texts by the
 * collator, so "Maria" and "maria" do); records without a value rank below or above every value. */
interface KeyRanks {
  ranks: Uint32Array;
  /** How many ranks there are, the one of records without a value included. */
  size: number;
}

function valueRanks(values: readonly SortValue[], key: SortKey): Map<number | string, number> {
  if (key.type === 'text') {
    const texts = new Set<string>();
    for (const v of values) if (typeof v === 'string') texts.add(v);
    return collationRanks(texts);
  }
  // A Set holds 0 and -0 once: they compare equal, as they always have.
  const numbers = new Set<number>();
  for (const v of values) if (typeof v === 'number') numbers.add(v);
  const ranks = new Map<number, number>();
  [...numbers].sort((a, b) => a - b).forEach((n, i) => ranks.set(n, i));
  return ranks;
}

function keyRanks(values: readonly SortValue[], key: SortKey): KeyRanks {
  const byValue = valueRanks(values, key);
  let distinct = 0;
  for (const rank of byValue.values()) distinct = Math.max(distinct, rank + 1);
  const [missing, shift] = key.nulls === 'first' ? [0, 1] : [distinct, 0];
  const ranks = new Uint32Array(values.length);
  values.forEach((v, i) => {
    ranks[i] = v === undefined ? missing : byValue.get(v)! + shift;
  });
  return { ranks, size: distinct + 1 };
}

/** Stable order by ranks: a counting sort per key, the last key first, each pass keeping the order the
 * one before left among equal ranks (a least-significant-key radix sort). Every pass is linear in the
 * records and the key's ranks, exact for any number of keys and ranks, and calls nothing per record, so a
 * team listing's whole order (two keys, 10,000 records) is a few linear passes, quicker than a numeric
 * sort of one combined number per record, which calls its comparator some n log n times. */
function orderByRanks(count: number, keys: readonly KeyRanks[]): Uint32Array {
  let order = new Uint32Array(count);
  for (let i = 0; i < count; i++) order[i] = i;
  let next = new Uint32Array(count);
  for (let k = keys.length - 1; k >= 0; k--) {
    const { ranks, size } = keys[k]!;
    // starts[r]: where the first record of rank r goes.
    const starts = new Uint32Array(size + 1);
    for (let i = 0; i < count; i++) starts[ranks[i]! + 1]!++;
    for (let r = 1; r <= size; r++) starts[r]! += starts[r - 1]!;
    for (let i = 0; i < count; i++) {
      const record = order[i]!;
      next[starts[ranks[record]!]!++] = record;
    }
    [order, next] = [next, order];
  }
  return order;
}

/**
 * The order of `count` records whose sort values are `columns` (one column per key, one value per record):
 * their indices, first to last, as the keys order them; ties keep their index order.
 */
export function sortOrder(count: number, columns: readonly (readonly SortValue[])[], keys: readonly SortKey[]): Uint32Array {
  return orderByRanks(
    count,
    keys.map((key, k) => keyRanks(columns[k] ?? [], key)),
  );
}

export function sortRecords(records: readonly V1Record[], keys: readonly SortKey[]): V1Record[] {
  const columns = keys.map((key) => records.map((record) => sortValue(record, key)));
  return Array.from(sortOrder(records.length, columns, keys), (i) => records[i]!);
}
