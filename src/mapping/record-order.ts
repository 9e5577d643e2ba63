// Orders a whole v1 listing by a sorted-list mapping's sort keys (the team listings: priority, then first_name).
// Pure; stable, so records that tie on every key keep v1's order (id ascending).
import type { V1Record } from './legacy-record.js';
import type { SortKey } from './schema.js';

function sortValue(record: V1Record, key: SortKey): number | string | undefined {
  const v = record[key.field];
  if (v === null || v === undefined || v === '') return undefined;
  if (key.type === 'number') {
    const n = typeof v === 'number' ? v : Number(v);
    return Number.isFinite(n) ? n : undefined;
  }
  return String(v);
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

export function sortRecords(records: readonly V1Record[], keys: readonly SortKey[]): V1Record[] {
  return [...records].sort((a, b) => {
    for (const key of keys) {
      const c = compareBy(a, b, key);
      if (c !== 0) return c;
    }
    return 0;
  });
}
