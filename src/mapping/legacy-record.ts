// Builds one legacy record from one v1 record, field by field in the mapping's (the reference's) order.
// Pure: no I/O, never throws on odd v1 data; v1's `object` field is never copied. This is the readable
// definition of a legacy record: the gateway builds records with the functions record-writer.ts compiles,
// whose JSON text must be JSON.stringify of what this builds, byte for byte (a property test holds them
// together).
import type { FieldSpec } from './record-schema.js';
import { plainText, toLegacyValue, type NullPolicy } from './legacy-value.js';

export type V1Record = Record<string, unknown>;
export type LegacyRecord = Record<string, string | null>;

/** A `{field}` placeholder of a derive template (record-writer.ts compiles templates with the same rule). */
export const TEMPLATE_PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** The v1 value behind one legacy field, before formatting (undefined = v1 has no such field). */
export function sourceValue(spec: FieldSpec, record: V1Record): unknown {
  if (spec.derive) {
    return spec.derive.template.replace(TEMPLATE_PLACEHOLDER, (_, name: string) => plainText(record[name]));
  }
  const key = spec.from ?? spec.name;
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

export function toLegacyRecord(record: V1Record, fields: readonly FieldSpec[], nulls: NullPolicy): LegacyRecord {
  const out: LegacyRecord = {};
  for (const spec of fields) {
    let value = sourceValue(spec, record);
    if (value === undefined && spec.default !== undefined) value = spec.default;
    out[spec.name] = toLegacyValue(value, spec.format ?? 'text', spec.nulls ?? nulls);
  }
  return out;
}
