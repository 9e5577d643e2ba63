// Every legacy field of a method's reply, in legacy order, with the v1 field it comes from and how its value
// is converted: the coverage matrix's classification (copied, renamed, derived, defaulted, missing), with the
// value's format and null rule spelled for someone who now reads v1 directly. Pure.
import { classifyField, guessOf, type FieldSource } from '../mapping/coverage.js';
import { TEMPLATE_PLACEHOLDER } from '../mapping/legacy-record.js';
import type { FieldSpec, ResolvedRecord } from '../mapping/schema.js';

export interface FieldRow {
  /** The legacy field, as the legacy reply spells it. */
  legacy: string;
  source: FieldSource;
  /** The v1 fields read: one, several (a derived field), or the field v1 might send one day (defaulted, missing). */
  v1Fields: string[];
  /** The value's spelling in the legacy reply (its format), or undefined for a field v1 does not give. */
  format: 'text' | 'money' | 'hhmm';
  /** What a v1 null becomes. */
  nulls: 'keep' | 'empty';
  /** The template (derived) or the default (defaulted), as the mapping says it. */
  detail: string;
  /** Why the field's own line is a guess about the real service, if it is one (a guess about the whole record
   * is the record's: `recordGuessOf`). */
  guess?: string;
}

function v1FieldsOf(spec: FieldSpec): string[] {
  if (spec.derive) return [...spec.derive.template.matchAll(TEMPLATE_PLACEHOLDER)].map((m) => m[1]!);
  return [spec.from ?? spec.name];
}

export function fieldRows(record: ResolvedRecord): FieldRow[] {
  return record.fields.map((spec) => {
    const { source, detail } = classifyField(spec);
    const reason = guessOf(spec);
    const row: FieldRow = {
      legacy: spec.name,
      source,
      v1Fields: v1FieldsOf(spec),
      format: spec.format ?? 'text',
      nulls: spec.nulls ?? record.nulls,
      detail: source === 'derived' ? (spec.derive?.template ?? detail) : source === 'defaulted' ? (spec.default ?? 'null') : detail,
    };
    if (reason?.field !== undefined) row.guess = reason.field;
    return row;
  });
}
