// A list read translated from v1's page text straight to the legacy reply's text, without JSON.parse of the
// page, the records as objects, or JSON.stringify of the reply: the same bytes as the engine's list read
// (run.ts runList: JSON.parse, asV1List, the compiled records, listReplyText), reading the page once.
//
// It declines (undefined) where it is not the right tool, and the caller then runs the engine on the same
// text, which gives the reply or refuses the page as it always has:
// - at compile time, a mapping that is not a plain list, or whose view has a derive template (it reads any
//   v1 field, inherited members included) or a format it does not know;
// - at run time, a page that is not valid JSON, or not a list envelope as v1-reply.ts's isListEnvelope
//   says (total a safe integer >= 0, has_more a boolean, data an array of objects), a page naming `data`
//   twice, values nested deeper than the scanner follows, or a page with line breaks (see below).
// Pure. A translation keeps its buffers from one call to the next: one call at a time.
import type { Mapping } from '../schema.js';
import { planFields, type FieldPlan } from './field-plan.js';
import { COPYABLE_STRING, ESCAPED_STRING, FALSE, INTEGER, JsonScanner, OTHER_NUMBER, TRUE } from './json-scan.js';
import { RecordReader } from './record-reader.js';
import { writeRecord } from './record-text.js';

/** A translated list page: v1's total, and the legacy reply's text. */
export interface TranslatedList {
  total: number;
  text: string;
}

/** v1's page text to the legacy reply's text; undefined: declined, let the engine read the page. */
export type ListTextTranslation = (v1Text: string, accountTimezone: string | undefined) => TranslatedList | undefined;

/** The envelope's members as read so far; the last of a repeated member counts, as with JSON.parse. */
interface Envelope {
  total: number | undefined;
  /** Whether has_more is a boolean. */
  hasMore: boolean;
  records: string[] | undefined;
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

/** The string value of the first record's timezone field, as the engine's timezoneOf reads it. */
function timezoneOf(reading: PageReading): string | undefined {
  const { scanner, reader, timezoneSource: source } = reading;
  if (source < 0 || !reader.has(source)) return undefined;
  const kind = reader.kindOf[source];
  if (kind !== COPYABLE_STRING && kind !== ESCAPED_STRING) return undefined;
  const value = JSON.parse(scanner.text.slice(reader.valueAt[source], reader.valueEnd[source])) as string;
  return value === '' ? undefined : value;
}

/** Reads the data array whose `[` is at `p`, writing each record: the position after it, or -1. */
function readData(reading: PageReading, p: number, envelope: Envelope): number {
  const { scanner, reader, fields } = reading;
  const text = scanner.text;
  const records: string[] = [];
  envelope.records = records;
  p = scanner.skipSpace(p + 1);
  if (text.charCodeAt(p) === 0x5d) return p + 1;
  for (;;) {
    if (text.charCodeAt(p) !== 0x7b) return -1;
    p = reader.read(scanner, p);
    if (p < 0) return -1;
    if (records.length === 0) envelope.timezone = timezoneOf(reading);
    records.push(writeRecord(text, fields, reader));
    p = scanner.skipSpace(p);
    const c = text.charCodeAt(p);
    if (c === 0x5d) return p + 1;
    if (c !== 0x2c) return -1;
    p = scanner.skipSpace(p + 1);
  }
}

/** Reads one envelope member's value at `p`: the position after it, or -1. */
function readMember(reading: PageReading, name: string, p: number, envelope: Envelope): number {
  const { scanner } = reading;
  if (name === 'data') {
    if (envelope.records !== undefined || scanner.text.charCodeAt(p) !== 0x5b) return -1;
    return readData(reading, p, envelope);
  }
  if (!scanner.value(p, 1)) return -1;
  const kind = scanner.kind;
  if (name === 'total') {
    envelope.total = kind === INTEGER || kind === OTHER_NUMBER ? (JSON.parse(scanner.text.slice(p, scanner.end)) as number) : undefined;
  } else if (name === 'has_more') envelope.hasMore = kind === TRUE || kind === FALSE;
  return scanner.end;
}

/** The page's envelope, read and checked whole; undefined when the translation declines the page. */
function readEnvelope(reading: PageReading): Envelope | undefined {
  const { scanner } = reading;
  const text = scanner.text;
  const envelope: Envelope = { total: undefined, hasMore: false, records: undefined, timezone: undefined };
  let p = scanner.skipSpace(0);
  if (text.charCodeAt(p) !== 0x7b) return undefined;
  p = scanner.skipSpace(p + 1);
  if (text.charCodeAt(p) !== 0x7d) {
    for (;;) {
      if (text.charCodeAt(p) !== 0x22 || !scanner.string(p)) return undefined;
      const spelled = text.slice(p, scanner.end);
      const name = scanner.kind === COPYABLE_STRING ? spelled.slice(1, -1) : (JSON.parse(spelled) as string);
      p = scanner.skipSpace(scanner.end);
      if (text.charCodeAt(p) !== 0x3a) return undefined;
      p = readMember(reading, name, scanner.skipSpace(p + 1), envelope);
      if (p < 0) return undefined;
      p = scanner.skipSpace(p);
      const c = text.charCodeAt(p);
      if (c === 0x7d) break;
      if (c !== 0x2c) return undefined;
      p = scanner.skipSpace(p + 1);
    }
  }
  if (scanner.skipSpace(p + 1) !== text.length) return undefined;
  const { total } = envelope;
  if (total === undefined || !Number.isSafeInteger(total) || total < 0 || !envelope.hasMore || !envelope.records) return undefined;
  return envelope;
}

/**
 * The reply: the head, the records and the closing brackets joined once. The records are written as
 * chains of pieces, many of them slices of the page; one join copies them into one flat text, which lets go
 * of the page and is what the reply's writing reads without copying it again.
 */
function replyText(head: string, records: string[]): string {
  if (records.length === 0) return `${head}]}`;
  records[0] = head + records[0]!;
  records[records.length - 1] += ']}';
  return records.join(',');
}

/** The list read's translation for `mapping`; undefined when the mapping is not one it covers. */
export function compileListTextTranslation(mapping: Mapping): ListTextTranslation | undefined {
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
  return (v1Text, accountTimezone) => {
    // A page on many lines (pretty-printed) is left to the engine: each line break sends the scanner back to
    // search for the next control character, and JSON.parse reads such a page faster than the scan does.
    if (v1Text.indexOf('\n') >= 0) return undefined;
    reading.scanner.reset(v1Text);
    const envelope = readEnvelope(reading);
    // The scanner lets go of the page, which the next call does not need.
    reading.scanner.reset('');
    if (!envelope) return undefined;
    const total = envelope.total!;
    const zone = timezone ? `"timezone":${JSON.stringify(envelope.timezone ?? accountTimezone ?? timezone.fallback)},` : '';
    return { total, text: replyText(`{"status":"success","total":"${String(total)}",${zone}"response":[`, envelope.records!) };
  };
}
