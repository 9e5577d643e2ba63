// Orders a whole v1 listing by a sorted-list mapping's sort keys (the team listings: priority, then first_name).
// Pure; stable, so records that tie on every key keep v1's order (id ascending). Each record's sort values
// are read once and ranked once per key (texts in the collator's order, text-collation.ts), so the sort
// itself compares numbers only: a listing of 10,000 costs no collator call per comparison.
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

/** Stable order by ranks: each record's ranks, key by key, then its index, make one whole number, exact
 * while below 2^53; a plain numeric sort of those numbers is the order. */
function orderByOneNumber(count: number, keys: readonly KeyRanks[]): Uint32Array {
  const combined = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    let n = 0;
    for (const key of keys) n = n * key.size + key.ranks[i]!;
    combined[i] = n * count + i;
  }
  combined.sort();
  return Uint32Array.from(combined, (n) => n % count);
}

function orderByComparison(count: number, keys: readonly KeyRanks[]): Uint32Array {
  return Uint32Array.from({ length: count }, (_, i) => i).sort((a, b) => {
    for (const key of keys) {
      const d = key.ranks[a]! - key.ranks[b]!;
      if (d !== 0) return d;
    }
    return a - b;
  });
}

/**
 * The order of `count` records whose sort values are `columns` (one column per key, one value per record):
 * their indices, first to last, as the keys order them; ties keep their index order.
 */
export function sortOrder(count: number, columns: readonly (readonly SortValue[])[], keys: readonly SortKey[]): Uint32Array {
  const ranked = keys.map((key, k) => keyRanks(columns[k] ?? [], key));
  const span = ranked.reduce((product, key) => product * key.size, count);
  return span <= Number.MAX_SAFE_INTEGER ? orderByOneNumber(count, ranked) : orderByComparison(count, ranked);
}

export function sortRecords(records: readonly V1Record[], keys: readonly SortKey[]): V1Record[] {
  const columns = keys.map((key) => records.map((record) => sortValue(record, key)));
  return Array.from(sortOrder(records.length, columns, keys), (i) => records[i]!);
}
