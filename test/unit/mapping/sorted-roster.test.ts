import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileRecord } from '../../../src/mapping/record-writer.js';
import type { SortedListMapping } from '../../../src/mapping/schema.js';
import { cutRoster, readSortedRoster, rosterSize } from '../../../src/mapping/sorted-roster.js';
import type { V1Call } from '../../../src/mapping/v1-reply.js';
import { handOff } from '../../../src/shared/hand-off.js';
import { anyText } from './v1-arbitraries.js';

const mapping = {
  method: 'team',
  kind: 'sorted-list',
  source: { resource: 'staff', pageSize: 3, maxPages: 10 },
  sort: [{ field: 'n', type: 'number', nulls: 'last' }],
  record: { name: 'test', view: 'team', nulls: 'keep', fields: [{ name: 'id' }, { name: 'text' }] },
} as unknown as SortedListMapping;
const record = compileRecord(mapping.record.fields, 'keep');

const pagesOf = (all: readonly object[]) => async (call: V1Call) => {
  const [offset, limit] = [Number(call.query.offset), Number(call.query.limit)];
  return handOff({ total: all.length, has_more: offset + limit < all.length, data: all.slice(offset, offset + limit) });
};

describe('sorted roster', () => {
  it('cuts any page as the records written one by one, in order, whatever their texts hold', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.integer({ min: 0, max: 4 }), anyText), { maxLength: 20 }), fc.nat(25), fc.integer({ min: 1, max: 25 }), async (rows, offset, limit) => {
        const all = rows.map(([n, text], i) => ({ id: i, n, text: `${text}","]},[` }));
        const roster = await readSortedRoster(mapping, record, pagesOf(all));
        const sorted = [...all].sort((a, b) => a.n - b.n);
        expect(rosterSize(roster)).toBe(all.length);
        expect(cutRoster(roster, record, { offset, limit })).toEqual(sorted.slice(offset, offset + limit).map((r) => record.build(r)));
        // One array of values per v1 page read (of 3 records), each starting at its first record's number.
        expect(roster.pageValues.map((values) => values.length)).toEqual(Array.from({ length: Math.ceil(all.length / 3) }, (_, p) => Math.min(3, all.length - 3 * p) * record.width));
        expect([...roster.pageStarts]).toEqual(roster.pageValues.map((_, p) => 3 * p));
      }),
      { numRuns: 300 },
    );
  });

  it('an empty listing is an empty roster, and every cut of it empty', async () => {
    const roster = await readSortedRoster(mapping, record, pagesOf([]));
    expect([rosterSize(roster), cutRoster(roster, record, { offset: 0, limit: 20 })]).toEqual([0, []]);
  });

  it('estimates its size from its values: slots and texts, growing with the roster', async () => {
    const rows = (n: number, text: string) => Array.from({ length: n }, (_, i) => ({ id: i, n: i % 3, text }));
    const wide = { ...mapping, source: { ...mapping.source, pageSize: 1000 } };
    const small = await readSortedRoster(wide, record, pagesOf(rows(10, 'x'.repeat(100))));
    const large = await readSortedRoster(wide, record, pagesOf(rows(1000, 'x'.repeat(100))));
    expect(small.bytes).toBeGreaterThan(10 * 100);
    expect(large.bytes).toBeGreaterThan(1000 * 100);
    expect(large.bytes).toBeLessThan(1000 * 400);
  });
});
