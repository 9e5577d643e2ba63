// A list read translated from v1's page bytes straight to the legacy reply's bytes, without decoding the
// page, JSON.parse of it, the records as objects, JSON.stringify of the reply or encoding it again: the same
// bytes as the engine's list read of the decoded page (run.ts runList: JSON.parse, asV1List, the compiled
// records, listReplyText, encoded as UTF-8), reading the page once.
//
// It declines (undefined) where it is not the right tool, and the caller then runs the engine on the page
// decoded, which gives the reply or refuses the page as it always has:
// - at compile time, a mapping that is not a plain list, or whose view has a derive template (it reads any
//   v1 field, inherited members included) or a format it does not know;
// - at run time, a page that is not valid UTF-8 (decoding replaces what is not, so its bytes are not the
//   text the engine reads), that is not valid JSON, or not a list envelope as v1-reply.ts's isListEnvelope
//   says (total a safe integer >= 0, has_more a boolean, data an array of objects), a page naming `data`
//   twice, or values nested deeper than the scanner follows.
// Pure. The translations share one reply buffer and each keeps its scanner: one call at a time.
import { isUtf8 } from 'node:buffer';
import type { Mapping } from '../schema.js';
import { ByteWriter } from './byte-writer.js';
import { planFields, type FieldPlan } from './field-plan.js';
import { COPYABLE_STRING, ESCAPED_STRING, FALSE, INTEGER, JsonScanner, OTHER_NUMBER, TRUE } from './json-scan.js';
import { RecordReader } from './record-reader.js';
import { writeRecord } from './record-bytes.js';

/** A translated list page: v1's total, and the legacy reply's bytes. */
export interface TranslatedList {
  total: number;
  bytes: Buffer;
}

/** v1's page bytes to the legacy reply's bytes; undefined: declined, let the engine read the page. */
export type ListByteTranslation = (page: Buffer, accountTimezone: string | undefined) => TranslatedList | undefined;

/** The envelope's members as read so far; the last of a repeated member counts, as with JSON.parse. */
interface Envelope {
  total: number | undefined;
  /** Whether has_more is a boolean. */
  hasMore: boolean;
  /** Whether `data` was read (its records are written as they are read). */
  hasData: boolean;
  /** The first record's timezone field, when it is a non-empty string. */
  timezone: string | undefined;
}

/** What reading a page takes, made once per translation and reused: the scanner, the record reader, the plan. */
interface PageReading {
  readonly scanner: JsonScanner;
  readonly reader: RecordReader;
  readonly fields: readonly FieldPlan[];
  /** The v1 field the reply's timezone is read from, in the reader's numbering; -1 without one. */
  readonly timezoneSource: number;
}

/** One buffer for every translation's reply: a translation runs whole, synchronously, one at a time. */
const out = new ByteWriter();
/** What closes the reply after its records. */
const CLOSE = Buffer.from(']}');
const EMPTY_PAGE = Buffer.alloc(0);

/** The string value of the first record's timezone field, as the engine's timezoneOf reads it. */
function timezoneOf(reading: PageReading): string | undefined {
  const { scanner, reader, timezoneSource: source } = reading;
  if (source < 0 || !reader.has(source)) return undefined;
  const kind = reader.kindOf[source]!;
  if (kind !== COPYABLE_STRING && kind !== ESCAPED_STRING) return undefined;
  const value = scanner.stringValue(reader.valueAt[source]!, reader.valueEnd[source]!, kind);
  return value === '' ? undefined : value;
}

/** Reads the data array whose `[` is at `p`, writing each record: the position after it, or -1. */
function readData(reading: PageReading, p: number, envelope: Envelope): number {
  const { scanner, reader, fields } = reading;
  envelope.hasData = true;
  p = scanner.skipSpace(p + 1);
  if (scanner.at(p) === 0x5d) return p + 1;
  for (let first = true; ; first = false) {
    if (scanner.at(p) !== 0x7b) return -1;
    p = reader.read(scanner, p);
    if (p < 0) return -1;
    if (first) envelope.timezone = timezoneOf(reading);
    else out.byte(0x2c);
    writeRecord(out, scanner, fields, reader);
    p = scanner.skipSpace(p);
    const c = scanner.at(p);
    if (c === 0x5d) return p + 1;
    if (c !== 0x2c) return -1;
    p = scanner.skipSpace(p + 1);
  }
}

/** Reads one envelope member's value at `p`: the position after it, or -1. */
function readMember(reading: PageReading, name: string, p: number, envelope: Envelope): number {
  const { scanner } = reading;
  if (name === 'data') {
    if (envelope.hasData || scanner.at(p) !== 0x5b) return -1;
    return readData(reading, p, envelope);
  }
  if (!scanner.value(p, 1)) return -1;
  const kind = scanner.kind;
  if (name === 'total') {
    envelope.total = kind === INTEGER || kind === OTHER_NUMBER ? scanner.numberValue(p, scanner.end) : undefined;
  } else if (name === 'has_more') envelope.hasMore = kind === TRUE || kind === FALSE;
  return scanner.end;
}

/** The page's envelope, read and checked whole, its records written; undefined when the page is declined. */
function readEnvelope(reading: PageReading): Envelope | undefined {
  const { scanner } = reading;
  const envelope: Envelope = { total: undefined, hasMore: false, hasData: false, timezone: undefined };
  let p = scanner.skipSpace(0);
  if (scanner.at(p) !== 0x7b) return undefined;
  p = scanner.skipSpace(p + 1);
  if (scanner.at(p) !== 0x7d) {
    for (;;) {
      if (scanner.at(p) !== 0x22 || !scanner.string(p)) return undefined;
      const name = scanner.stringValue(p, scanner.end, scanner.kind);
      p = scanner.skipSpace(scanner.end);
      if (scanner.at(p) !== 0x3a) return undefined;
      p = readMember(reading, name, scanner.skipSpace(p + 1), envelope);
      if (p < 0) return undefined;
      p = scanner.skipSpace(p);
      const c = scanner.at(p);
      if (c === 0x7d) break;
      if (c !== 0x2c) return undefined;
      p = scanner.skipSpace(p + 1);
    }
  }
  if (scanner.skipSpace(p + 1) !== scanner.bytes.length) return undefined;
  const { total } = envelope;
  if (total === undefined || !Number.isSafeInteger(total) || total < 0 || !envelope.hasMore || !envelope.hasData) return undefined;
  return envelope;
}

/** The list read's translation for `mapping`; undefined when the mapping is not one it covers. */
export function compileListByteTranslation(mapping: Mapping): ListByteTranslation | undefined {
  if (mapping.kind !== 'list') return undefined;
  const timezone = mapping.timezone;
  const plans = planFields(mapping.record.fields, mapping.record.nulls, timezone?.from);
  if (!plans) return undefined;
  const reading: PageReading = {
    scanner: new JsonScanner(),
    reader: new RecordReader(plans.sources),
    fields: plans.fields,
    timezoneSource: timezone ? plans.sources.get(timezone.from)! : -1,
  };
  return (page, accountTimezone) => {
    if (!isUtf8(page)) return undefined;
    out.reset();
    reading.scanner.reset(page);
    const envelope = readEnvelope(reading);
    // The scanner lets go of the page, which the next call does not need.
    reading.scanner.reset(EMPTY_PAGE);
    if (!envelope) return undefined;
    const total = envelope.total!;
    const zone = timezone ? `"timezone":${JSON.stringify(envelope.timezone ?? accountTimezone ?? timezone.fallback)},` : '';
    return { total, bytes: out.finish(`{"status":"success","total":"${String(total)}",${zone}"response":[`, CLOSE) };
  };
}
