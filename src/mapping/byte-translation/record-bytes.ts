// Writes one legacy record's JSON, as UTF-8, from the v1 record the reader just read, member by member in
// the plan's order: exactly the bytes of JSON.stringify of what the engine's compiled record builds
// (record-writer.ts; legacy-record.ts and legacy-value.ts are the rule). Pure.
//
// A value is converted without being parsed where the rule is plain: a copyable string is itself (text),
// an integer of at most 15 characters is its own digits (every such integer is exact, and "-0" aside, as
// String() writes it), true and false are "1" and "0", null is the field's null; money goes to toMoney
// itself. Anything else (escapes, fractions and exponents in text, nested values) is parsed alone and given
// to toLegacyValue, the engine's own rule. Where the view's members are v1's own members, side by side in
// the page with nothing to change, they are copied as one run of bytes.
import { toHourMinute, toLegacyValue, toMoney } from '../legacy-value.js';
import type { ByteWriter } from './byte-writer.js';
import type { FieldPlan } from './field-plan.js';
import { COPYABLE_STRING, FALSE, INTEGER, NULL, OTHER_NUMBER, TRUE, type JsonScanner } from './json-scan.js';
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
function writesItself(bytes: Uint8Array, from: number, to: number): boolean {
  return to - from <= 15 && !(to - from === 2 && bytes[from] === 0x2d && bytes[from + 1] === 0x30);
}

/** `"0"` to `"999"`, so that the small integers v1's flags and counts hold are written from a table. */
const SMALL_INTEGERS = Array.from({ length: 1000 }, (_, n) => Buffer.from(`"${n}"`));
const ONE = Buffer.from('"1"');
const ZERO = Buffer.from('"0"');

/** The value of an integer spelled with one to three digits and no sign; -1 for any other. */
function smallInteger(bytes: Uint8Array, from: number, to: number): number {
  if (to - from > 3) return -1;
  let value = 0;
  for (let i = from; i < to; i++) {
    const digit = bytes[i]! - 0x30;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

/** Writes the legacy value's JSON of the field's v1 value. */
function writeValue(out: ByteWriter, scanner: JsonScanner, field: FieldPlan, values: RecordReader): void {
  const bytes = scanner.bytes;
  const source = field.source;
  const kind = values.kindOf[source]!;
  const from = values.valueAt[source]!;
  const to = values.valueEnd[source]!;
  if (kind === NULL) return out.bytes(field.whenNull);
  if (field.format === 'money') {
    // toLegacyValue's money rule without its JSON.stringify: two decimals, or the value as text, need no escape.
    if (kind === INTEGER || kind === OTHER_NUMBER) {
      const value = scanner.numberValue(from, to);
      return out.ascii(`"${toMoney(value) ?? String(value)}"`);
    }
    if (kind === COPYABLE_STRING) {
      const value = scanner.stringValue(from, to, kind);
      return out.text(`"${toMoney(value) ?? value}"`);
    }
  } else {
    switch (kind) {
      case COPYABLE_STRING: {
        if (field.format === 'text') return out.range(bytes, from, to);
        // hh:mm of a copyable string is copyable too: its value, or its first five characters.
        const value = scanner.stringValue(from, to, kind);
        const hourMinute = toHourMinute(value);
        return hourMinute === value ? out.range(bytes, from, to) : out.text(`"${hourMinute}"`);
      }
      case INTEGER: {
        const small = smallInteger(bytes, from, to);
        if (small >= 0) return out.bytes(SMALL_INTEGERS[small]!);
        if (writesItself(bytes, from, to)) {
          out.byte(0x22);
          out.range(bytes, from, to);
          return out.byte(0x22);
        }
        break;
      }
      case TRUE:
        return out.bytes(ONE);
      case FALSE:
        return out.bytes(ZERO);
    }
  }
  out.text(JSON.stringify(toLegacyValue(JSON.parse(bytes.toString('utf8', from, to)), field.format, field.nulls)));
}

/** Writes the record's JSON, `{` to `}`. */
export function writeRecord(out: ByteWriter, scanner: JsonScanner, fields: readonly FieldPlan[], values: RecordReader): void {
  const bytes = scanner.bytes;
  out.byte(0x7b);
  const count = fields.length;
  for (let i = 0; i < count; ) {
    const field = fields[i]!;
    const source = field.source;
    if (!values.has(source)) {
      out.bytes(field.whenMissing);
      i++;
    } else if (copiesAsIs(field, values)) {
      // This member and those right after it in the page that are also the view's next ones, as one run.
      let end = values.valueEnd[source]!;
      let next = i + 1;
      for (; next < count; next++) {
        const following = fields[next]!;
        const at = following.source;
        if (!values.has(at) || values.nameAt[at] !== end + 1 || !copiesAsIs(following, values)) break;
        end = values.valueEnd[at]!;
      }
      out.bytes(field.separator);
      out.range(bytes, values.nameAt[source]!, end);
      i = next;
    } else {
      out.bytes(field.prefix);
      writeValue(out, scanner, field, values);
      i++;
    }
  }
  out.byte(0x7d);
}
