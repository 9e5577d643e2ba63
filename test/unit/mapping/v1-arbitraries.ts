// fast-check arbitraries for the engine's property tests: v1 values of every JSON type (texts with every JSON
// escape, numbers of every kind), v1 records with any of a set of fields present or missing, and field specs
// with every format, null policy, default, rename and derive template.
import fc from 'fast-check';
import type { FieldSpec } from '../../../src/mapping/record-schema.js';

/** Pieces that exercise JSON escaping, collation and money/time parsing. */
const TRICKY = [
  '"', '\\', '/', '\n', '\r', '\t', '\b', '\f', '\u0000', '\u0001', '\u001f', '\u007f', '\u0080', '\u00a0',
  '\u2028', '\u2029', '\ud800', '\udbff', '\udc00', '\udfff', '\ud83d\ude00', '\ufeff', '\u00ad', '\u200d',
  'é', 'É', 'e\u0301', 'ß', 'ø', 'Ł', 'æ', 'İ', 'ı', 'K', '中', ' ', "'", '-', '<', '>', '&', '${', '*/', '`',
  '09:30:00', '23:59:59.123', '9:30', '45.5', ' 12 ', '1e3', '1,000.00', '$5', '-0', '0x1f', 'NaN',
];

/** A text of any code points, lone surrogates and every JSON escape included. */
export const anyText: fc.Arbitrary<string> = fc
  .array(fc.oneof(fc.constantFrom(...TRICKY), fc.string({ unit: 'binary', maxLength: 4 }), fc.string({ maxLength: 6 })), { maxLength: 6 })
  .map((pieces) => pieces.join(''));

/** Numbers of every kind a v1 field could hold (NaN aside): negative, fractional, huge, tiny, -0, infinities. */
export const anyNumber: fc.Arbitrary<number> = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true }),
  fc.constantFrom(-0, 0, 1.005, 45.005, -0.001, -12.345, 0.1 + 0.2, 1e21, 1e-7, 123456789012345680000, Number.MAX_SAFE_INTEGER + 2, Number.MAX_VALUE, Number.MIN_VALUE),
);

/** Objects and arrays that JSON.parse makes and String() cannot spell: members named as Object.prototype's. */
export const HOSTILE_OBJECTS: readonly unknown[] = [
  JSON.parse('{"toString":0}'),
  JSON.parse('{"valueOf":1,"toString":"x"}'),
  JSON.parse('{"toJSON":0,"a":1}'),
  JSON.parse('[{"toString":null},2]'),
  JSON.parse('["5"]'),
  JSON.parse('[]'),
];

/** One v1 value: a scalar of any JSON type, or a nested object or array. */
export const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: anyText },
  { weight: 3, arbitrary: anyNumber },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 2, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  { weight: 1, arbitrary: fc.array(anyText, { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_OBJECTS) },
);

/** A v1 record as JSON.parse makes one: own properties only (`__proto__` too), in the given order. */
export function recordOf(entries: ReadonlyArray<readonly [string, unknown]>): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (const [name, value] of entries) Object.defineProperty(record, name, { value, enumerable: true, writable: true, configurable: true });
  return record;
}

/** A v1 record holding any of `names` (each present or missing) and a few other fields. */
export function v1RecordWith(names: readonly string[]): fc.Arbitrary<Record<string, unknown>> {
  const known = fc.array(fc.tuple(fc.constantFrom(...names), anyValue), { maxLength: names.length * 2 });
  const extra = fc.array(fc.tuple(fc.string({ minLength: 1, maxLength: 8 }), anyValue), { maxLength: 3 });
  return fc.tuple(known, extra).map(([a, b]) => recordOf([...a, ...b]));
}

/** v1 field names, JavaScript's own property names among them. */
export const V1_NAMES = ['id', 'first', 'last', 'cost', 'start', 'nickname', 'priority', 'constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf', '_x9'];

/** Legacy field names: the shipped kinds, and those that are hard to write as JSON keys or as code. */
export const LEGACY_NAMES = [
  'id', 'first_name', 'hide costs', 'minTime', 'constructor', '__proto__', 'toString', '0', '7', '42', '01', '-1', '4294967295',
  'a"b', 'a\\b', 'x\ny', '\u2028', '\ud800', '"); throw new Error("injected"); ("', '*/', '${first}', '`', 'é', '中文',
];

/** A derive template: text pieces (with braces that are not placeholders) and `{field}` placeholders. */
const template: fc.Arbitrary<string> = fc
  .array(fc.oneof(fc.constantFrom(...V1_NAMES).map((n) => `{${n}}`), fc.constantFrom(' ', ', ', '{', '}', '{ x}', '{1a}', '$&', '$1', '"', '\\'), anyText), { minLength: 1, maxLength: 5 })
  .map((pieces) => pieces.join(''))
  .filter((t) => t.length > 0);

/** One field spec, as a resolved view holds it: any source, format, null policy and default. */
export const fieldSpec: fc.Arbitrary<FieldSpec> = fc
  .record(
    {
      name: fc.oneof(fc.constantFrom(...LEGACY_NAMES), fc.constantFrom(...V1_NAMES)),
      source: fc.oneof(
        fc.constant({}),
        fc.constantFrom(...V1_NAMES).map((from) => ({ from })),
        template.map((t) => ({ derive: { template: t } })),
      ),
      default: fc.option(fc.option(anyText, { nil: null }), { nil: undefined }),
      format: fc.option(fc.constantFrom('text' as const, 'money' as const, 'hhmm' as const), { nil: undefined }),
      nulls: fc.option(fc.constantFrom('keep' as const, 'empty' as const), { nil: undefined }),
    },
    { requiredKeys: ['name', 'source'] },
  )
  .map(({ name, source, ...rest }) => {
    const spec: FieldSpec = { name, ...source };
    for (const [key, value] of Object.entries(rest)) if (value !== undefined) Object.assign(spec, { [key]: value });
    return spec;
  });

/** Every v1 field a list of specs reads: renamed sources, template placeholders, same-name fields. */
export function sourceNames(fields: readonly FieldSpec[]): string[] {
  const names = new Set<string>(['object']);
  for (const spec of fields) {
    if (spec.derive) for (const m of spec.derive.template.matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g)) names.add(m[1]!);
    else names.add(spec.from ?? spec.name);
  }
  return [...names];
}
