// The compiled record builder against the plain engine: for any v1 record and any field specs, the JSON
// text of what it builds is exactly JSON.stringify(toLegacyRecord(...)), for every shipped mapping and for
// random ones.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadMappingDirectorySync } from '../../../src/gateway/loaders/mapping-files.js';
import { toLegacyRecord } from '../../../src/mapping/legacy-record.js';
import type { NullPolicy } from '../../../src/mapping/legacy-value.js';
import type { FieldSpec } from '../../../src/mapping/record-schema.js';
import { compileRecord } from '../../../src/mapping/record-writer.js';
import { anyValue, fieldSpec, recordOf, sourceNames, v1RecordWith, V1_NAMES } from './v1-arbitraries.js';

const MAPPINGS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'mappings');
const shipped = [...loadMappingDirectorySync(MAPPINGS).reads.values()];

const plain = (record: Record<string, unknown>, fields: readonly FieldSpec[], nulls: NullPolicy): string =>
  JSON.stringify(toLegacyRecord(record, fields, nulls));

/** The JSON text of the record the compiled mapping builds. */
const text = (compiled: ReturnType<typeof compileRecord>, record: Record<string, unknown>): string => JSON.stringify(compiled.build(record));

function expectSameText(record: Record<string, unknown>, fields: readonly FieldSpec[], nulls: NullPolicy): void {
  const compiled = compileRecord(fields, nulls);
  const expected = plain(record, fields, nulls);
  expect(JSON.stringify(compiled.build(record))).toBe(expected);
  // Picked after other values, as a roster holds them: one record after another in one array.
  const values: unknown[] = ['before', null];
  compiled.pick(record, values);
  expect(values).toHaveLength(2 + compiled.width);
  expect(JSON.stringify(compiled.buildPicked(values, 2))).toBe(expected);
}

describe('compileRecord: every shipped mapping', () => {
  it('has mappings to check', () => {
    expect(shipped.length).toBeGreaterThanOrEqual(13);
  });

  it.each(shipped.map((m) => [m.method, m] as const))('%s: the same text as the plain engine for any v1 record', (_method, mapping) => {
    const { fields, nulls } = mapping.record;
    fc.assert(
      fc.property(v1RecordWith(sourceNames(fields)), (record) => expectSameText(record, fields, nulls)),
      { numRuns: 300 },
    );
  });

  it.each(shipped.map((m) => [m.method, m] as const))('%s: the same text with every field holding one kind of value', (_method, mapping) => {
    const { fields, nulls } = mapping.record;
    const names = sourceNames(fields);
    fc.assert(
      fc.property(anyValue, (value) => expectSameText(recordOf(names.map((n) => [n, value])), fields, nulls)),
      { numRuns: 100 },
    );
  });
});

describe('compileRecord: random field specs', () => {
  it('writes the same text as the plain engine for any specs, null policy and v1 record', () => {
    fc.assert(
      fc.property(
        // A view names each field once (record-views.ts refuses a repeat).
        fc.uniqueArray(fieldSpec, { maxLength: 8, selector: (f) => f.name }),
        fc.constantFrom('keep' as const, 'empty' as const),
        fc.array(fc.tuple(fc.constantFrom(...V1_NAMES), anyValue), { maxLength: 12 }),
        (fields, nulls, entries) => expectSameText(recordOf(entries), fields, nulls),
      ),
      { numRuns: 2000 },
    );
  });
});

describe('compileRecord: cases that matter', () => {
  const spec = (name: string, more: Partial<FieldSpec> = {}): FieldSpec => ({ name, ...more });

  it('escapes every JSON escape as JSON.stringify does, and keeps U+2028/U+2029 and paired surrogates', () => {
    const nasty = 'q"b\\s/n\nr\rt\tc\u0000\u001f d\u007f l\u2028p\u2029 h\ud800 l\udfff ok\ud83d\ude00';
    const fields = [spec('v'), spec('derived', { derive: { template: 'x{v}y' } })];
    expectSameText({ v: nasty }, fields, 'keep');
    expect(text(compileRecord(fields, 'keep'), { v: '\u2028' })).toBe('{"v":"\u2028","derived":"x\u2028y"}');
  });

  it('formats numbers, money, times, booleans, nulls and nested values as legacy-value.ts does', () => {
    const fields = [
      spec('n'), spec('m', { format: 'money' }), spec('t', { format: 'hhmm' }), spec('b'), spec('e', { nulls: 'empty' }),
      spec('o'), spec('d', { default: '08:00:00' }), spec('dn', { default: null, nulls: 'empty' }),
    ];
    const record = { n: -0, m: 45.005, t: '09:30:00', b: false, e: null, o: { a: [1, '"'] } };
    expect(text(compileRecord(fields, 'keep'), record)).toBe(
      '{"n":"0","m":"45.01","t":"09:30","b":"0","e":"","o":"{\\"a\\":[1,\\"\\\\\\"\\"]}","d":"08:00:00","dn":""}',
    );
    expectSameText(record, fields, 'keep');
    expectSameText({ n: 1e21, m: ' 12 ', t: 930, b: true, e: 5e-324, o: [] }, fields, 'empty');
  });

  it('writes keys where JSON.stringify puts them: index-like names first, ascending; no __proto__', () => {
    const fields = [spec('b'), spec('10'), spec('a'), spec('2'), spec('__proto__'), spec('01'), spec('4294967295')];
    const record = recordOf([['a', 'A'], ['b', 'B'], ['10', 'ten'], ['2', 'two'], ['__proto__', 'p'], ['01', 'z']]);
    expect(text(compileRecord(fields, 'keep'), record)).toBe('{"2":"two","10":"ten","b":"B","a":"A","01":"z","4294967295":null}');
    expectSameText(record, fields, 'keep');
    expectSameText(recordOf([['__proto__', null]]), fields, 'empty');
  });

  it('reads own fields only, and templates as sourceValue does (inherited names included)', () => {
    const fields = [spec('c', { from: 'constructor' }), spec('t', { derive: { template: '{constructor}|{toString}|{missing}|{x}' } })];
    expectSameText({ x: null }, fields, 'keep');
    expectSameText(recordOf([['constructor', 'own'], ['x', 0]]), fields, 'empty');
  });

  it('embeds names, defaults and templates as text, never as code', () => {
    const injected = '"); globalThis.injected = true; ("';
    const fields = [spec(injected, { default: injected }), spec('*/ x', { derive: { template: `${injected}{id}\`\${1}` } })];
    expectSameText({ id: 1 }, fields, 'keep');
    expect((globalThis as { injected?: boolean }).injected).toBeUndefined();
  });

  it('writes {} for a view with no own key', () => {
    expect(text(compileRecord([spec('__proto__')], 'keep'), {})).toBe('{}');
    expectSameText({}, [spec('__proto__')], 'keep');
  });
});
