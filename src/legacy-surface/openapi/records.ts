// The schema of one legacy record, generated from a mapping's fields: every field a string (or null), in the
// legacy order, each described as copied, renamed, derived, defaulted or missing (the coverage rules), and where
// it is a guess about the real service (its own line, or its whole record: then every field says so) why.
// Pure; it never decides anything the engine does not: nullability follows legacy-record.ts and legacy-value.ts.
import { classifyField, recordGuessOf } from '../../mapping/coverage.js';
import type { FieldSpec, Mapping } from '../../mapping/schema.js';
import { orderedObject, type SchemaObject } from './types.js';

type NullPolicy = Mapping['record']['nulls'];

/** Whether the engine can write `null` for this field: a derived field is always text, `nulls: empty` writes "". */
export function isNullable(field: FieldSpec, recordNulls: NullPolicy): boolean {
  return !field.derive && (field.nulls ?? recordNulls) !== 'empty';
}

function sourceText(field: FieldSpec, nullable: boolean): string {
  const { source, detail } = classifyField(field);
  const v1Name = `\`${field.from ?? field.name}\``;
  switch (source) {
    case 'copied':
      return `Copied from v1's ${v1Name}.`;
    case 'renamed':
      return `Renamed: v1's ${v1Name}.`;
    case 'derived':
      return `Derived from v1 fields: \`${detail}\` (a field v1 lacks reads as empty).`;
    case 'defaulted':
      return `Defaulted: v1's ${v1Name} when v1 sends it, else the legacy reference's documented default ${detail}.`;
    case 'missing':
      return `Missing: v1 does not document ${v1Name}; ${nullable ? 'null' : 'an empty string'} unless v1 starts sending it.`;
  }
}

/** Only the formats that are not plain text are spelled out per field; the record says how text is written. */
function formatText(field: FieldSpec): string | undefined {
  switch (field.format ?? 'text') {
    case 'money':
      return 'Money with two decimals (45.5 -> "45.50").';
    case 'hhmm':
      return 'A time as HH:MM (v1\'s HH:MM:SS without the seconds).';
    default:
      return undefined;
  }
}

export function fieldSchema(field: FieldSpec, recordNulls: NullPolicy): SchemaObject {
  const nullable = isNullable(field, recordNulls);
  const parts = [sourceText(field, nullable)];
  const format = formatText(field);
  if (format) parts.push(format);
  if (!nullable && !field.derive && !field.missing) parts.push('An empty string when v1 has no value (null).');
  if (field.guess) parts.push(`Guess about the real service: ${field.guess}.`);
  if (field.recordGuess) parts.push(`Guess about the real service (the whole record is one): ${field.recordGuess}.`);
  return { type: nullable ? ['string', 'null'] : 'string', description: parts.join(' ') };
}

/** One record of a method's reply: every field always present, in the mapping's (the reference's) order. */
export function recordSchema(mapping: Mapping): SchemaObject {
  const { fields, nulls } = mapping.record;
  const recordGuess = recordGuessOf(mapping);
  return orderedObject(
    `One \`${mapping.method}\` record. Every field is always present. Every value is text (numbers as text, 5 -> "5"; ` +
      'booleans as "1"/"0") or null where v1 has no value (`type` says which fields may be null). The fields are ' +
      'written in the order listed (the legacy reference\'s order, given by `x-key-order`): old integrations may read ' +
      'them by position, so the order is part of the contract.' +
      (recordGuess ? ` The whole record is a guess about the real service, every field of it: ${recordGuess}.` : ''),
    fields.map((f): [string, SchemaObject] => [f.name, fieldSchema(f, nulls)]),
  );
}
