// Writes one legacy record's JSON text from the v1 record the reader just read, member by member in the
// plan's order: exactly JSON.stringify of what the engine's compiled record builds (record-writer.ts;
// legacy-record.ts and legacy-value.ts are the rule). Pure.
//
// A value is converted without being parsed where the rule is plain: a copyable string is itself (text),
// an integer of at most 15 characters is its own digits (every such integer is exact, and "-0" aside, as
// String() writes it), true and false are "1" and "0", null is the field's null; money goes to toMoney
// itself. Anything else (escapes, fractions and exponents in text, nested values) is parsed alone and given
// to toLegacyValue, the engine's own rule. Where the view's members are v1's own members, side by side in the page with nothing to change,
// they are copied as one slice.
import { toHourMinute, toLegacyValue, toMoney } from '../legacy-value.js';
import type { FieldPlan } from './field-plan.js';
import { COPYABLE_STRING, FALSE, INTEGER, NULL, OTHER_NUMBER, TRUE } from './json-scan.js';
import type { RecordReader } from './record-reader.js';

/** Whether v1's member for `field` can be copied as it is: its value unchanged, written without whitespace. */
function copiesAsIs(field: FieldPlan, values: RecordReader): boolean {
  const source = field.source;
  const kind = values.kindOf[source];
  return (
    ((kind === COPYABLE_STRING && field.copiesMember) || (kind === NULL && field.copiesNull)) &&
    values.valueAt[source] === values.nameAt[source]! + field.nameLength
  );
}

/** An integer whose digits String() of its value writes again: at most 15 characters, and not "-0". */
function writesItself(text: string, from: number, to: number): boolean {
  return to - from <= 15 && !(to - from === 2 && text.charCodeAt(from) === 0x2d && text.charCodeAt(from + 1) === 0x30);
}

/** `"0"` to `"999"`, so that the small integers v1's flags and counts hold are written without a new string. */
const SMALL_INTEGERS = Array.from({ length: 1000 }, (_, n) => `"${n}"`);

/** The value of an integer spelled with one to three digits and no sign; -1 for any other. */
function smallInteger(text: string, from: number, to: number): number {
  if (to - from > 3) return -1;
  let value = 0;
  for (let i = from; i < to; i++) {
    const digit = text.charCodeAt(i) - 0x30;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

/** The legacy value's JSON text of the field's v1 value. */
function valueText(text: string, field: FieldPlan, values: RecordReader): string {
  const source = field.source;
  const kind = values.kindOf[source];
  const from = values.valueAt[source]!;
  const to = values.valueEnd[source]!;
  if (kind === NULL) return field.whenNull;
  if (field.format === 'money') {
    // toLegacyValue's money rule without its JSON.stringify: two decimals, or the value as text, need no escape.
    if (kind === INTEGER || kind === OTHER_NUMBER) {
      const value = JSON.parse(text.slice(from, to)) as number;
      return `"${toMoney(value) ?? String(value)}"`;
    }
    if (kind === COPYABLE_STRING) {
      const value = text.slice(from + 1, to - 1);
      return `"${toMoney(value) ?? value}"`;
    }
  } else {
    switch (kind) {
      case COPYABLE_STRING: {
        if (field.format === 'text') return text.slice(from, to);
        // hh:mm of a copyable string is copyable too: its value, or its first five characters.
        const value = text.slice(from + 1, to - 1);
        const hourMinute = toHourMinute(value);
        return hourMinute === value ? text.slice(from, to) : `"${hourMinute}"`;
      }
      case INTEGER: {
        const small = smallInteger(text, from, to);
        if (small >= 0) return SMALL_INTEGERS[small]!;
        if (writesItself(text, from, to)) return `"${text.slice(from, to)}"`;
        break;
      }
      case TRUE:
        return '"1"';
      case FALSE:
        return '"0"';
    }
  }
  return JSON.stringify(toLegacyValue(JSON.parse(text.slice(from, to)), field.format, field.nulls));
}

/** The record's JSON text, `{` to `}`. */
export function writeRecord(text: string, fields: readonly FieldPlan[], values: RecordReader): string {
  let out = '{';
  const count = fields.length;
  for (let i = 0; i < count; ) {
    const field = fields[i]!;
    const source = field.source;
    if (!values.has(source)) {
      out += field.whenMissing;
      i++;
    } else if (copiesAsIs(field, values)) {
      // This member and those right after it in the page that are also the view's next ones, as one slice.
      let end = values.valueEnd[source]!;
      let next = i + 1;
      for (; next < count; next++) {
        const following = fields[next]!;
        const at = following.source;
        if (!values.has(at) || values.nameAt[at] !== end + 1 || !copiesAsIs(following, values)) break;
        end = values.valueEnd[at]!;
      }
      out += field.separator + text.slice(values.nameAt[source], end);
      i = next;
    } else {
      out += field.prefix + valueText(text, field, values);
      i++;
    }
  }
  return out + '}';
}
