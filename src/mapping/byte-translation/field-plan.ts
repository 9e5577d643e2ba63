// What the byte translation writes for each field of a view, worked out once from the mapping: the
// fields in the order JSON.stringify writes the record the engine builds, the v1 field each reads, and the
// constant pieces as UTF-8 (the member's name, its bytes when v1 has no such field, its value for null). A
// view the translation does not cover gives no plan. Pure.
import { toLegacyValue, type NullPolicy, type ValueFormat } from '../legacy-value.js';
import type { FieldSpec } from '../record-schema.js';

export interface FieldPlan {
  /** Nothing before the first member, `,` before the others. */
  readonly separator: Buffer;
  /** The separator and the member's name with its colon: `,"first_name":`. */
  readonly prefix: Buffer;
  /** The index of the v1 field it reads, in FieldPlans.sources. */
  readonly source: number;
  readonly format: ValueFormat;
  readonly nulls: NullPolicy;
  /** The whole member (prefix included) when the v1 record has no such field: its default, formatted. */
  readonly whenMissing: Buffer;
  /** The value's JSON when v1 sends null. */
  readonly whenNull: Buffer;
  /**
   * Whether v1's own member can be copied as it is when its value is a copyable string (or null that stays
   * null): a text field read under its own name, a name JSON.stringify writes without escapes.
   */
  readonly copiesMember: boolean;
  /** Whether v1's member with null may be copied too (null stays null). */
  readonly copiesNull: boolean;
  /** The length in bytes of `"name":`, so that a copied member can be told to be written without whitespace. */
  readonly nameLength: number;
}

export interface FieldPlans {
  readonly fields: readonly FieldPlan[];
  /** The v1 fields read, each once; a field's `source` indexes this. */
  readonly sources: ReadonlyMap<string, number>;
}

const FORMATS: ReadonlySet<string> = new Set<ValueFormat>(['text', 'money', 'hhmm']);

/**
 * The fields as the engine's compiled record writes them (record-writer.ts, slotsOf): a plain object filled
 * in view order says JSON.stringify's order exactly (array-index names first), the last spec of a repeated
 * name, and no `__proto__`, which is never an own key of the engine's record.
 */
function writtenOrder(fields: readonly FieldSpec[]): FieldSpec[] {
  const lastSpec: Record<string, number> = {};
  fields.forEach((spec, i) => {
    lastSpec[spec.name] = i;
  });
  return Object.keys(lastSpec).map((name) => fields[lastSpec[name]!]!);
}

/** Whether the translation covers these fields: no derive template (it reads any v1 field, own or not), known formats. */
const covered = (fields: readonly FieldSpec[]): boolean => fields.every((spec) => !spec.derive && FORMATS.has(spec.format ?? 'text'));

/** Sources the timezone field too when `alsoRead` is given, so the first record's value can be read. */
export function planFields(fields: readonly FieldSpec[], nulls: NullPolicy, alsoRead?: string): FieldPlans | undefined {
  if (!covered(fields)) return undefined;
  const sources = new Map<string, number>();
  const sourceOf = (name: string): number => {
    let index = sources.get(name);
    if (index === undefined) sources.set(name, (index = sources.size));
    return index;
  };
  const plans = writtenOrder(fields).map((spec, i): FieldPlan => {
    const format = spec.format ?? 'text';
    const policy = spec.nulls ?? nulls;
    const from = spec.from ?? spec.name;
    const separator = i === 0 ? '' : ',';
    const name = JSON.stringify(spec.name);
    const prefix = `${separator}${name}:`;
    const whenNull = JSON.stringify(toLegacyValue(null, format, policy));
    const copiesMember = format === 'text' && from === spec.name && name === `"${spec.name}"`;
    return {
      separator: Buffer.from(separator),
      prefix: Buffer.from(prefix),
      source: sourceOf(from),
      format,
      nulls: policy,
      whenMissing: Buffer.from(prefix + JSON.stringify(toLegacyValue(spec.default, format, policy))),
      whenNull: Buffer.from(whenNull),
      copiesMember,
      copiesNull: copiesMember && whenNull === 'null',
      nameLength: Buffer.byteLength(name) + 1,
    };
  });
  if (alsoRead !== undefined) sourceOf(alsoRead);
  return { fields: plans, sources };
}
