// One list page translated as its bytes come, piece by piece, into the legacy reply's bytes: the same bytes
// as reading the page whole (list-translation.ts calls this with the page as its one and last piece), and
// declined in exactly the same cases. Each record is read and written as soon as its last byte is there,
// so no more of the page is kept than the record (or envelope member) a piece ends in: those bytes are
// carried and read again with the start of the next piece. A value or record longer than CARRY_LIMIT ends
// the streaming (declined): the page is then read whole by the caller, which is never wrong, only slower.
// The reply is written into a writer of its own (writer-pool.ts), and copied out once, at the end, behind
// its head (`total` first, known only once the page is read). Pure; the pieces of one page in order.
import type { TranslatedPage } from '../v1-reply.js';
import type { ByteWriter } from './byte-writer.js';
import type { FieldPlan } from './field-plan.js';
import { COPYABLE_STRING, ESCAPED_STRING, FALSE, INTEGER, JsonScanner, OTHER_NUMBER, TRUE } from './json-scan.js';
import type { RecordReader } from './record-reader.js';
import { writeRecord } from './record-bytes.js';
import { Utf8Check } from './utf8-check.js';
import { takeWriter, giveBackWriter } from './writer-pool.js';

/** A translated list page: v1's total, and the legacy reply's bytes. */
export type TranslatedList = TranslatedPage;

/** What reading a page takes, made once per translation and shared by its streams: a record is read and
 * written within one call, so no two pages use them at once. */
export interface PageReading {
  readonly scanner: JsonScanner;
  readonly reader: RecordReader;
  readonly fields: readonly FieldPlan[];
  /** The v1 field the reply's timezone is read from, in the reader's numbering; -1 without one. */
  readonly timezoneSource: number;
  /** The mapping's timezone: whether the reply has one, and its fallback. */
  readonly timezone: { fallback: string } | undefined;
}

/** The most bytes carried from one piece to the next (a record or member cut by the piece's end). */
const CARRY_LIMIT = 64 * 1024;

// Where the page's reading stands, between two steps.
/** Before a byte order mark (a stream only: a whole page comes without one). */
const AT_MARK = 0;
/** Before the envelope's `{`. */
const AT_START = 1;
/** After `{`: a member's name, or `}`. */
const AT_FIRST_NAME = 2;
/** After `,`: a member's name. */
const AT_NAME = 3;
/** After a member's name: `:`. */
const AT_COLON = 4;
/** After `:`: the member's value (the data array's `[`). */
const AT_VALUE = 5;
/** After a member's value: `,` or `}`. */
const AFTER_VALUE = 6;
/** After the data array's `[`: a record, or `]`. */
const AT_FIRST_RECORD = 7;
/** After `,` in the data array: a record. */
const AT_RECORD = 8;
/** After a record: `,` or `]`. */
const AFTER_RECORD = 9;
/** After the envelope's `}`: whitespace only. */
const AT_END = 10;
/** Declined: nothing more is read. */
const DECLINED = 11;

/** What closes the reply after its records. */
const CLOSE = Buffer.from(']}');
const EMPTY_PAGE = Buffer.alloc(0);
/** A step that needs bytes the piece does not have yet. */
const NEEDS_MORE = -1;

export class ListPageStream {
  private state: number;
  /** The bytes of the step a piece ended in, read again with the next piece. */
  private carry: Buffer | undefined;
  private readonly utf8 = new Utf8Check();
  private out: ByteWriter | undefined = takeWriter();
  /** The member whose value comes next. */
  private name = '';
  // The envelope's members as read so far; the last of a repeated member counts, as with JSON.parse.
  private total: number | undefined;
  /** Whether has_more is a boolean. */
  private hasMore = false;
  private hasData = false;
  private records = 0;
  /** The first record's timezone field, when it is a non-empty string. */
  private zone: string | undefined;

  constructor(
    private readonly reading: PageReading,
    private readonly accountTimezone: string | undefined,
    /** Whether the page may begin with a byte order mark, skipped (a stream of v1's bytes as they come). */
    skipsMark: boolean,
  ) {
    this.state = skipsMark ? AT_MARK : AT_START;
  }

  /** Reads the page's next piece. */
  write(piece: Buffer): void {
    if (this.state === DECLINED) return;
    if (!this.utf8.write(piece)) return this.decline();
    const carry = this.carry;
    let p = 0;
    if (carry !== undefined) p = this.resume(carry, piece);
    if (p >= 0) this.steps(piece, p, false);
    // The scanner lets go of the piece, which the next step does not need.
    this.reading.scanner.reset(EMPTY_PAGE);
  }

  /** The page's end: its translation, or undefined when declined (the page is then read whole). */
  end(): TranslatedList | undefined {
    const whole = this.state === AT_END && this.carry === undefined && this.utf8.end();
    const total = this.total;
    const out = this.out;
    this.out = undefined;
    this.decline();
    if (!whole || out === undefined || total === undefined || !Number.isSafeInteger(total) || total < 0 || !this.hasMore || !this.hasData) {
      if (out) giveBackWriter(out);
      return undefined;
    }
    const timezone = this.reading.timezone;
    const zone = timezone ? `"timezone":${JSON.stringify(this.zone ?? this.accountTimezone ?? timezone.fallback)},` : '';
    const bytes = out.finish(`{"status":"success","total":"${String(total)}",${zone}"response":[`, CLOSE);
    giveBackWriter(out);
    return { total, bytes };
  }

  /** Reads a whole page, `page` its one and last piece: its translation, or undefined (declined). */
  whole(page: Buffer): TranslatedList | undefined {
    if (!this.utf8.write(page)) this.decline();
    else this.steps(page, 0, true);
    this.reading.scanner.reset(EMPTY_PAGE);
    return this.end();
  }

  /** Declines the page: nothing more is read, and the writer goes back. */
  private decline(): void {
    this.state = DECLINED;
    this.carry = undefined;
    const out = this.out;
    this.out = undefined;
    if (out) giveBackWriter(out);
  }

  /**
   * The step the last piece ended in, read from the carried bytes and as much of `piece` as it needs: the
   * position in `piece` after it, or -1 (still cut: carried on, or declined).
   */
  private resume(carry: Buffer, piece: Buffer): number {
    // A step is short: the carried bytes are read with a few KB of the piece, more only when it needs them.
    for (let take = Math.min(piece.length, carry.length + 4096); ; take = Math.min(piece.length, take * 2)) {
      const joined = Buffer.concat([carry, piece.subarray(0, take)], carry.length + take);
      const after = this.step(joined, 0, false, true);
      if (this.state === DECLINED) return -1;
      if (after !== NEEDS_MORE) {
        this.carry = undefined;
        return after - carry.length;
      }
      if (take === piece.length) {
        if (joined.length > CARRY_LIMIT) this.decline();
        else this.carry = joined;
        return -1;
      }
    }
  }

  /** Reads steps from `p` to the piece's end; what a step cut at the end needs is carried. */
  private steps(piece: Buffer, p: number, last: boolean): void {
    const length = piece.length;
    while (p < length) {
      const after = this.step(piece, p, last);
      if (after === NEEDS_MORE) {
        if (this.state === DECLINED) return;
        const rest = length - this.stepStart;
        if (rest > CARRY_LIMIT) return this.decline();
        // A copy of its own: a view would keep the whole piece alive.
        this.carry = Buffer.from(piece.subarray(this.stepStart));
        return;
      }
      p = after;
    }
  }

  /** Where the step that needed more bytes began. */
  private stepStart = 0;

  /** A step cut by the piece's end: declined when it is the page's last piece, else carried. */
  private needsMore(at: number, last: boolean): number {
    if (last) this.decline();
    this.stepStart = at;
    return NEEDS_MORE;
  }

  /**
   * One step from `p` (whitespace and punctuation, a member's name, a member's value, the records that
   * follow, or only one record when `once`): the position after it, or NEEDS_MORE when the piece ends
   * within it or the page is declined. A name or a value must be followed by a byte in the piece: a number
   * at its end may go on in the next piece.
   */
  private step(piece: Buffer, p: number, last: boolean, once = false): number {
    const { scanner } = this.reading;
    scanner.reset(piece);
    const length = piece.length;
    const state = this.state;
    if (state === AT_MARK) {
      this.state = AT_START;
      if (piece[p] !== 0xef) return p;
      // A page that begins with 0xEF and no whole mark is no JSON: declined, and the engine refuses it.
      if (length - p >= 3) return piece[p + 1] === 0xbb && piece[p + 2] === 0xbf ? p + 3 : this.declined();
      this.state = AT_MARK;
      return length - p === 1 || piece[p + 1] === 0xbb ? this.needsMore(p, last) : this.declined();
    }
    p = scanner.skipSpace(p);
    if (p === length) return p;
    const c = piece[p]!;
    switch (state) {
      case AT_START:
        if (c !== 0x7b) return this.declined();
        this.state = AT_FIRST_NAME;
        return p + 1;
      case AT_FIRST_NAME:
      case AT_NAME: {
        if (c === 0x7d && state === AT_FIRST_NAME) {
          this.state = AT_END;
          return p + 1;
        }
        if (c !== 0x22) return this.declined();
        if (!scanner.string(p) || (scanner.end === length && !last)) return this.needsMore(p, last);
        this.name = scanner.stringValue(p, scanner.end, scanner.kind);
        this.state = AT_COLON;
        return scanner.end;
      }
      case AT_COLON:
        if (c !== 0x3a) return this.declined();
        this.state = AT_VALUE;
        return p + 1;
      case AT_VALUE:
        return this.value(piece, p, last);
      case AFTER_VALUE:
        if (c === 0x7d) this.state = AT_END;
        else if (c === 0x2c) this.state = AT_NAME;
        else return this.declined();
        return p + 1;
      case AT_FIRST_RECORD:
        if (c === 0x5d) {
          this.state = AFTER_VALUE;
          return p + 1;
        }
        return this.record(p, last, once);
      case AT_RECORD:
        return this.record(p, last, once);
      case AFTER_RECORD:
        if (c === 0x5d) this.state = AFTER_VALUE;
        else if (c === 0x2c) this.state = AT_RECORD;
        else return this.declined();
        return p + 1;
      default:
        // AT_END: anything but whitespace after the envelope.
        return this.declined();
    }
  }

  private declined(): number {
    this.decline();
    return NEEDS_MORE;
  }

  /** An envelope member's value at `p`: the data array's `[`, or any other value, read whole. */
  private value(piece: Buffer, p: number, last: boolean): number {
    const { scanner } = this.reading;
    if (this.name === 'data') {
      // A page naming data twice is left to the engine (JSON.parse keeps the last; its records were written).
      if (this.hasData || piece[p] !== 0x5b) return this.declined();
      this.hasData = true;
      this.state = AT_FIRST_RECORD;
      return p + 1;
    }
    if (!scanner.value(p, 1) || (scanner.end === piece.length && !last)) return this.needsMore(p, last);
    const kind = scanner.kind;
    if (this.name === 'total') this.total = kind === INTEGER || kind === OTHER_NUMBER ? scanner.numberValue(p, scanner.end) : undefined;
    else if (this.name === 'has_more') this.hasMore = kind === TRUE || kind === FALSE;
    this.state = AFTER_VALUE;
    return scanner.end;
  }

  /** A record at `p`, read and written: the position after it. */
  /**
   * The records from `p` on, each read and written, with the commas between them, until the data array's
   * `]` or the piece's end (a step per record cost a tenth more): the position after the last read. Only
   * the first when `once` (a carried record, read with the start of the next piece).
   */
  private record(p: number, last: boolean, once: boolean): number {
    const { scanner, reader, fields } = this.reading;
    const out = this.out!;
    const length = scanner.bytes.length;
    for (;;) {
      if (scanner.at(p) !== 0x7b) return this.declined();
      const after = reader.read(scanner, p);
      if (after < 0) return this.needsMore(p, last);
      if (this.records++ === 0) this.zone = this.timezoneOfFirst();
      else out.byte(0x2c);
      writeRecord(out, scanner, fields, reader);
      this.state = AFTER_RECORD;
      if (once) return after;
      p = after;
      let c = scanner.at(p);
      if (c !== 0x2c && c !== 0x5d) {
        p = scanner.skipSpace(p);
        if (p === length) return p;
        c = scanner.at(p);
      }
      if (c === 0x5d) {
        this.state = AFTER_VALUE;
        return p + 1;
      }
      if (c !== 0x2c) return this.declined();
      this.state = AT_RECORD;
      p = scanner.skipSpace(p + 1);
      if (p === length) return p;
    }
  }

  /** The string value of the first record's timezone field, as the engine's timezoneOf reads it. */
  private timezoneOfFirst(): string | undefined {
    const { scanner, reader, timezoneSource: source } = this.reading;
    if (source < 0 || !reader.has(source)) return undefined;
    const kind = reader.kindOf[source]!;
    if (kind !== COPYABLE_STRING && kind !== ESCAPED_STRING) return undefined;
    const value = scanner.stringValue(reader.valueAt[source]!, reader.valueEnd[source]!, kind);
    return value === '' ? undefined : value;
  }
}
