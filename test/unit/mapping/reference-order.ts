// The team listings' order as the gateway has always given it: a comparison sort calling the collator per
// comparison. Kept as the reference the faster order (src/mapping/record-order.ts) is held to, with one
// change: a value that is an object is read as its JSON, where String() and Number() threw on an object
// with a "toString" member of its own (an array is still read as String() reads it, items joined by commas).
import type { V1Record } from '../../../src/mapping/legacy-record.js';
import type { SortKey } from '../../../src/mapping/schema.js';

function textOf(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (Array.isArray(v)) return v.map(textOf).join(',');
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

function sortValue(record: V1Record, key: SortKey): number | string | undefined {
  const v = record[key.field];
  if (v === null || v === undefined || v === '') return undefined;
  if (key.type === 'number') {
    const n = typeof v === 'object' ? Number(textOf(v)) : Number(v);
    return Number.isFinite(n) ? n : undefined;
  }
  return textOf(v);
}

// Case- and accent-insensitive, as a database's default collation orders names ("Élodie" beside "Elena").
const collator = new Intl.Collator('en', { sensitivity: 'base' });

function compareBy(a: V1Record, b: V1Record, key: SortKey): number {
  const x = sortValue(a, key);
  const y = sortValue(b, key);
  if (x === undefined || y === undefined) {
    if (x === y) return 0;
    const missingFirst = key.nulls === 'first' ? -1 : 1;
    return x === undefined ? missingFirst : -missingFirst;
  }
  if (typeof x === 'string' && typeof y === 'string') return collator.compare(x, y);
  if (x < y) return -1;
  if (x > y) return 1;
  return 0;
}

export function referenceSortRecords(records: readonly V1Record[], keys: readonly SortKey[]): V1Record[] {
  return [...records].sort((a, b) => {
    for (const key of keys) {
      const c = compareBy(a, b, key);
      if (c !== 0) return c;
    }
    return 0;
  });
}
