// A list read translated from v1's page bytes straight to the legacy reply's bytes, without decoding the
// page, JSON.parse of it, the records as objects, JSON.stringify of the reply or encoding it again: the same
// bytes as the engine's list read of the decoded page (run.ts runList: JSON.parse, asV1List, the compiled
// records, listReplyText, encoded as UTF-8), reading the page once: whole, or as its bytes come
// (list-stream.ts, which both run).
//
// It declines (undefined) where it is not the right tool, and the caller then runs the engine on the page
// decoded, which gives the reply or refuses the page as it always has:
// - at compile time, a mapping that is not a plain list, or whose view has a derive template (it reads any
//   v1 field, inherited members included) or a format it does not know;
// - at run time, a page that is not valid UTF-8 (decoding replaces what is not, so its bytes are not the
//   text the engine reads), that is not valid JSON, or not a list envelope as v1-reply.ts's isListEnvelope
//   says (total a safe integer >= 0, has_more a boolean, data an array of objects), a page naming `data`
//   twice, or values nested deeper than the scanner follows. A page read as it comes is also declined
//   when a record of it is longer than the stream carries from one piece to the next: read whole, it is
//   written.
// Pure. The translations of one mapping share a scanner and a record reader: a record is read and written
// within one call.
import type { Mapping } from '../schema.js';
import { planFields } from './field-plan.js';
import { JsonScanner } from './json-scan.js';
import { ListPageStream, type PageReading, type TranslatedList } from './list-stream.js';
import { RecordReader } from './record-reader.js';

export type { TranslatedList } from './list-stream.js';

/** A page read as its bytes come: each piece written in order, then its end. */
export interface ListPageTranslation {
  write(piece: Buffer): void;
  /** The translation, or undefined: declined, read the page whole (the translation may still decline it). */
  end(): TranslatedList | undefined;
}

export interface ListByteTranslation {
  /** v1's page bytes to the legacy reply's bytes; undefined: declined, let the engine read the page. */
  (page: Buffer, accountTimezone: string | undefined): TranslatedList | undefined;
  /** A page of v1's bytes as they come, a byte order mark at its start skipped. */
  open(accountTimezone: string | undefined): ListPageTranslation;
  /** Unique to this translation (PageTranslation's id). */
  readonly id: string;
}

/** Numbers the translations compiled, for their ids. */
let compiled = 0;

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
    timezone,
  };
  const translate = (page: Buffer, accountTimezone: string | undefined): TranslatedList | undefined =>
    new ListPageStream(reading, accountTimezone, false).whole(page);
  return Object.assign(translate, {
    open: (accountTimezone: string | undefined) => new ListPageStream(reading, accountTimezone, true),
    id: `list-bytes-${++compiled}`,
  });
}
