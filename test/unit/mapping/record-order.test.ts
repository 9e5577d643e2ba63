import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sortRecords } from '../../../src/mapping/record-order.js';
import { referenceSortRecords } from './reference-order.js';
import { anyNumber, anyText, HOSTILE_OBJECTS } from './v1-arbitraries.js';

describe('sortRecords', () => {
  const keys = [
    { field: 'priority', type: 'number' as const, nulls: 'last' as const },
    { field: 'first_name', type: 'text' as const, nulls: 'last' as const },
  ];

  it('orders by priority, then first name ignoring case and accents; ties keep v1 order; missing values last', () => {
    const records = [
      { id: 1, priority: 10, first_name: 'Kenji' },
      { id: 2, priority: null, first_name: 'Aaron' },
      { id: 3, priority: 10, first_name: 'Élodie' },
      { id: 4, priority: 10, first_name: 'maria' },
      { id: 5, priority: '2', first_name: 'Zed' },
      { id: 6, priority: 10, first_name: 'Maria' },
      { id: 7, priority: 10, first_name: null },
      { id: 8, priority: 10, first_name: 'adam' },
    ];
    expect(sortRecords(records, keys).map((r) => r.id)).toEqual([5, 8, 3, 1, 4, 6, 7, 2]);
  });

  it('reads an object as its JSON and an array as its items joined, where String() would throw', () => {
    const records = [
      { id: 1, priority: JSON.parse('{"toString":0}'), first_name: 'Ann' },
      { id: 2, priority: ['1'], first_name: JSON.parse('{"toString":1}') },
      { id: 3, priority: 1, first_name: ['Bo', 'b'] },
      { id: 4, priority: 1, first_name: 'Bo' },
    ];
    // Priority: [1] and 1 are 1, the object has none (last). Names: "Bo,b" > "Bo" > '{"toString":1}'.
    expect(sortRecords(records, keys).map((r) => r.id)).toEqual([2, 4, 3, 1]);
  });

  it('puts missing values first when the mapping says so', () => {
    const out = sortRecords([{ id: 1, p: 1 }, { id: 2, p: null }], [{ field: 'p', type: 'number', nulls: 'first' }]);
    expect(out.map((r) => r.id)).toEqual([2, 1]);
  });
});

/** Names that sort by the collator's rules, not by their code points: accents, case, ligatures, other
 * scripts, marks that are letters, ignorable characters, punctuation, digits. */
const NAMES = [
  'Élodie', 'elodie', 'ELODIE', 'Elena', 'elena', 'Zoë', 'zoe', 'Zoe', 'Ægir', 'Aegir', 'aegir', 'Øyvind', 'Oyvind', 'straße', 'strasse',
  'Łukasz', 'Lukasz', "O'Brien", 'OBrien', 'Mary-Jane', 'Mary Jane', 'MaryJane', 'maria', 'Maria', 'María', 'Marìa', 'Mari\u0301a',
  ' ', '  ', ' a', 'a ', 'a', 'A', 'b', '0', '10', '9', '09', '١٢', '中', '中文', 'Ａ', 'ﬁ', 'fi', 'e\u0301', 'é', 'e\u0363', 'e\u0362',
  'ı', 'i', 'İ', 'I', '\u212a', 'k', '\u00ad', 'a\u00adb', 'ab', '\u200b', 'a\u0000', '\ud800', 'x\udfff', '😀', 'Ñuñez', 'Nunez', 'Þór', 'Thor',
];

const anyName: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...NAMES) },
  { weight: 2, arbitrary: anyText },
  { weight: 1, arbitrary: fc.constantFrom(null, '', undefined) },
  { weight: 1, arbitrary: fc.oneof(fc.integer({ min: -20, max: 20 }), anyNumber, fc.boolean()) },
  { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_OBJECTS) },
);

const anyPriority: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: -3, max: 12 }) },
  { weight: 2, arbitrary: fc.constantFrom(null, undefined, '', -0, 0, 0.5, 1e21, -1e-7, '2', ' 3 ', '1e1', '0x10', 'ten', 'NaN', true, false) },
  { weight: 1, arbitrary: anyNumber },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) },
  { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_OBJECTS) },
);

/** A roster in v1's order: ids ascending, each field present, null, empty or missing. */
const roster = (size: number) =>
  fc.array(fc.record({ priority: anyPriority, first_name: anyName }, { requiredKeys: [] }), { maxLength: size }).map((rows) =>
    rows.map((row, i) => {
      const record: Record<string, unknown> = { id: i + 1 };
      for (const [k, v] of Object.entries(row)) if (v !== undefined) record[k] = v;
      return record;
    }),
  );

const ids = (records: readonly Record<string, unknown>[]) => records.map((r) => r.id);

describe('sortRecords: the same order as it has always given', () => {
  const teamKeys = [
    { field: 'priority', type: 'number' as const, nulls: 'last' as const },
    { field: 'first_name', type: 'text' as const, nulls: 'last' as const },
  ];

  it('team listings: random rosters with accented, cased, empty, null and numeric names and priorities', () => {
    fc.assert(
      fc.property(roster(200), (records) => {
        expect(ids(sortRecords(records, teamKeys))).toEqual(ids(referenceSortRecords(records, teamKeys)));
      }),
      { numRuns: 500 },
    );
  });

  it('any keys: number or text, nulls first or last, in any order', () => {
    const key = fc.record({
      field: fc.constantFrom('priority', 'first_name', 'id', 'absent'),
      type: fc.constantFrom('number' as const, 'text' as const),
      nulls: fc.constantFrom('first' as const, 'last' as const),
    });
    fc.assert(
      fc.property(roster(120), fc.array(key, { minLength: 1, maxLength: 3 }), (records, keys) => {
        expect(ids(sortRecords(records, keys))).toEqual(ids(referenceSortRecords(records, keys)));
      }),
      { numRuns: 500 },
    );
  });

  it('many keys with many distinct values (more rank combinations than one double holds exactly)', () => {
    const keys = ['a', 'b', 'c', 'd', 'e', 'f'].map((field) => ({ field, type: 'number' as const, nulls: 'first' as const }));
    fc.assert(
      fc.property(
        fc.array(fc.tuple(...keys.map(() => fc.oneof(fc.integer({ min: 0, max: 3 }), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constant(null)))), {
          minLength: 700,
          maxLength: 800,
        }),
        (rows) => {
          const records = rows.map((row, i) => ({ id: i, ...Object.fromEntries(keys.map((k, j) => [k.field, row[j]])) }));
          expect(ids(sortRecords(records, keys))).toEqual(ids(referenceSortRecords(records, keys)));
        },
      ),
      { numRuns: 5 },
    );
  });

  it('a 10,000-member roster of few distinct names', () => {
    const records = Array.from({ length: 10_000 }, (_, i) => ({
      id: i + 1,
      priority: i % 11 === 0 ? null : (i * 7) % 13,
      first_name: i % 17 === 0 ? '' : NAMES[(i * 31) % NAMES.length],
    }));
    expect(ids(sortRecords(records, teamKeys))).toEqual(ids(referenceSortRecords(records, teamKeys)));
  });
});
