// Compiles a record mapping (a view's fields in legacy order, with their renames, derive templates,
// defaults, formats and null policies) once, at start, into functions that build the legacy record from a
// v1 record as one object literal, its keys in the legacy order and every value already a legacy string
// or null: JSON.stringify of it is exactly JSON.stringify(toLegacyRecord(...)), byte for byte
// (legacy-record.ts stays the readable definition). The engine then writes each whole reply with one
// JSON.stringify (reply-text.ts).
//
// As fastify's fast-json-stringify does, the functions are generated JavaScript, one member per field:
//   "first_name": (value = hasOwn(record, "first") ? record["first"] : undefined,
//                  typeof value === "string" ? value : ...),
// Every name, default and template piece from a mapping file is embedded as a JSON.stringify'd string
// literal, so no mapping can become code; formats other than text call legacy-value.ts itself. Generated
// code is faster than the same steps as a chain of closures (one call per field): each record is one
// function V8 optimises whole, with no call per field.
// Why an object and not the text itself: written piece by piece, a record's text cost a string per piece
// and a flat copy of the whole when written out; V8's JSON.stringify writes the reply in one pass, so the
// reply built this way allocates less and costs less CPU.
// Pure; the functions never throw on odd v1 data, whatever it holds.
import { TEMPLATE_PLACEHOLDER, type LegacyRecord, type V1Record } from './legacy-record.js';
import { plainText, toLegacyValue, type NullPolicy } from './legacy-value.js';
import type { FieldSpec } from './record-schema.js';

export interface CompiledRecord {
  /** The legacy record of one v1 record: a new object whose JSON text is the legacy record's. */
  build(record: V1Record): LegacyRecord;
  /** How many values `pick` gives for one record. */
  readonly width: number;
  /** Appends to `into` the `width` values the legacy record is built from (each field's value, renamed,
   * derived or defaulted, before formatting): all a roster keeps of a v1 record. */
  pick(record: V1Record, into: unknown[]): void;
  /** The legacy record from the values `pick` appended at `at`: the record `build` gives. */
  buildPicked(values: readonly unknown[], at: number): LegacyRecord;
}

/** One field of the legacy record: its legacy name and the spec its value comes from. */
interface Slot {
  name: string;
  spec: FieldSpec;
}

/**
 * The fields as JSON.stringify writes the object toLegacyRecord fills, which is not always the view's
 * order: array-index names ("0", "42") come first, ascending, and `__proto__` is never an own key. A plain
 * object, filled the same way, says so exactly. A view names each field once (record-views.ts refuses a
 * repeat). So no slot is named `__proto__`, which in an object literal would set the prototype.
 */
function slotsOf(fields: readonly FieldSpec[]): Slot[] {
  const lastSpec: Record<string, number> = {};
  fields.forEach((spec, i) => {
    lastSpec[spec.name] = i;
  });
  return Object.keys(lastSpec).map((name) => ({ name, spec: fields[lastSpec[name]!]! }));
}

/** A JavaScript string literal holding `text` (JSON string syntax is valid JavaScript since ES2019). */
const literal = (text: string): string => JSON.stringify(text);

/** The expression of a derive template: its text pieces and its fields' values, as sourceValue joins them. */
function templateExpression(template: string): string {
  const parts: string[] = [];
  let at = 0;
  for (const match of template.matchAll(TEMPLATE_PLACEHOLDER)) {
    if (match.index > at) parts.push(literal(template.slice(at, match.index)));
    parts.push(`derivedPart(record[${literal(match[1]!)}])`);
    at = match.index + match[0].length;
  }
  if (at < template.length || parts.length === 0) parts.push(literal(template.slice(at)));
  return parts.join(' + ');
}

/** The expression of a field's value before formatting: sourceValue, then the default where v1 has none. */
function readExpression(spec: FieldSpec): string {
  if (spec.derive) return templateExpression(spec.derive.template);
  const key = literal(spec.from ?? spec.name);
  const own = `hasOwn(record, ${key})`;
  if (spec.default === undefined) return `(${own} ? record[${key}] : undefined)`;
  const fallback = spec.default === null ? 'null' : literal(spec.default);
  return `(${own} && record[${key}] !== undefined ? record[${key}] : ${fallback})`;
}

/** The expression of a field's legacy value (a string, or null) from `value`, as toLegacyValue gives it. */
function valueExpression(spec: FieldSpec, nulls: NullPolicy): string {
  const format = spec.format ?? 'text';
  const policy = spec.nulls ?? nulls;
  if (format !== 'text') return `legacyValue(value, ${literal(format)}, ${literal(policy)})`;
  // Text, inline: a string as it is, a number as JavaScript prints it.
  const none = policy === 'empty' ? '""' : 'null';
  return `(typeof value === "string" ? value : typeof value === "number" ? "" + value : value == null ? ${none} : legacyValue(value, "text", "keep"))`;
}

/** The helpers the generated code calls, under the names it calls them by. */
const helpers = {
  hasOwn: Object.hasOwn,
  derivedPart: plainText,
  legacyValue: toLegacyValue,
};

type Generated<F> = (h: typeof helpers) => F;

function generate<F>(params: string, body: string[]): F {
  const source = [
    '"use strict";',
    `const { ${Object.keys(helpers).join(', ')} } = h;`,
    `return function (${params}) {\n  ${body.join('\n  ')}\n};`,
  ].join('\n');
  const make = new Function('h', source) as Generated<F>;
  return make(helpers);
}

export function compileRecord(fields: readonly FieldSpec[], nulls: NullPolicy): CompiledRecord {
  const slots = slotsOf(fields);
  const members = (read: (i: number) => string): string =>
    slots.map(({ name, spec }, i) => `${literal(name)}: (value = ${read(i)}, ${valueExpression(spec, nulls)})`).join(',\n    ');
  const reads = slots.map(({ spec }) => readExpression(spec));
  const build = generate<CompiledRecord['build']>('record', ['let value;', `return {\n    ${members((i) => reads[i]!)}\n  };`]);
  const pick = generate<CompiledRecord['pick']>('record, into', [`into.push(${reads.join(', ')});`]);
  const buildPicked = generate<CompiledRecord['buildPicked']>('values, at', ['let value;', `return {\n    ${members((i) => `values[at + ${i}]`)}\n  };`]);
  return { build, width: slots.length, pick, buildPicked };
}
