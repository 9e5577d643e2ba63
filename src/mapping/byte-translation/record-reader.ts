// Reads one v1 record of a list page: checks the object whole, as JSON.parse would, and keeps, for each v1
// field the view reads, where its value lies in the page and what kind it is. A repeated member's last
// value is the one kept, as JSON.parse keeps it (`__proto__` included: JSON.parse makes it an own member
// like any other). Nothing is copied out of the page here. Pure.
//
// The records of one page (and of the next pages) nearly always name their members in the same order, so
// the reader expects each member's name to be the one the last record had in that place, compared byte for
// byte where it stands, and only decodes and looks up a name that is not.
import { COPYABLE_STRING, JsonScanner, spells } from './json-scan.js';

/** The envelope, its data array and the record: the values a record holds are inside three. */
const RECORD_DEPTH = 3;
/** Member places whose names are remembered: a record with more members reads the others' names each time. */
const REMEMBERED_PLACES = 256;
/** A generation count kept well inside an Int32Array's range, then started again. */
const LAST_GENERATION = 0x3fffffff;

export class RecordReader {
  /** Per v1 field read, in FieldPlans.sources' numbering: the generation of the last record that had it. */
  private readonly seenIn: Int32Array;
  /** Where the member begins (the opening quote of its name). */
  readonly nameAt: Int32Array;
  /** Where its value begins, and the position after it. */
  readonly valueAt: Int32Array;
  readonly valueEnd: Int32Array;
  /** The value's kind, as JsonScanner.kind gives it. */
  readonly kindOf: Uint8Array;
  private generation = 0;
  /** For each member place: the name the last record had there, spelled `"name":`, and the field it is. */
  private readonly expectedNames: Uint8Array[] = [];
  private readonly expectedSources: number[] = [];

  constructor(private readonly sources: ReadonlyMap<string, number>) {
    const count = sources.size;
    this.seenIn = new Int32Array(count);
    this.nameAt = new Int32Array(count);
    this.valueAt = new Int32Array(count);
    this.valueEnd = new Int32Array(count);
    this.kindOf = new Uint8Array(count);
  }

  /** Whether the record last read has the v1 field `source`. */
  has(source: number): boolean {
    return this.seenIn[source] === this.generation;
  }

  /** Reads the record whose `{` is at `p`: the position after it, or -1 where the bytes are not valid JSON. */
  read(scanner: JsonScanner, p: number): number {
    if (++this.generation === LAST_GENERATION) {
      this.seenIn.fill(0);
      this.generation = 1;
    }
    const bytes = scanner.bytes;
    p = scanner.skipSpace(p + 1);
    if (scanner.at(p) === 0x7d) return p + 1;
    for (let place = 0; ; place++) {
      const nameAt = p;
      let source: number;
      const expected = this.expectedNames[place];
      if (expected !== undefined && spells(bytes, p, expected)) {
        source = this.expectedSources[place]!;
        p = scanner.skipSpace(p + expected.length);
      } else {
        if (scanner.at(p) !== 0x22 || !scanner.string(p)) return -1;
        source = this.readName(scanner, p, place);
        p = scanner.skipSpace(scanner.end);
        if (scanner.at(p) !== 0x3a) return -1;
        p = scanner.skipSpace(p + 1);
      }
      if (!scanner.value(p, RECORD_DEPTH)) return -1;
      if (source >= 0) {
        this.seenIn[source] = this.generation;
        this.nameAt[source] = nameAt;
        this.valueAt[source] = p;
        this.valueEnd[source] = scanner.end;
        this.kindOf[source] = scanner.kind;
      }
      // Whitespace after a value is rare: looked for only when no comma or brace follows at once.
      p = scanner.end;
      let c = scanner.at(p);
      if (c !== 0x2c && c !== 0x7d) c = scanner.at((p = scanner.skipSpace(p)));
      if (c === 0x7d) return p + 1;
      if (c !== 0x2c) return -1;
      p = scanner.skipSpace(p + 1);
    }
  }

  /** The field a member name just scanned at `p` is (-1: none the view reads), remembered for its place. */
  private readName(scanner: JsonScanner, p: number, place: number): number {
    const end = scanner.end;
    const plain = scanner.kind === COPYABLE_STRING;
    const source = this.sources.get(scanner.stringValue(p, end, scanner.kind)) ?? -1;
    // Only a name spelled without escapes is remembered: another spelling of it is read as a new name.
    if (plain && place < REMEMBERED_PLACES && scanner.at(end) === 0x3a) {
      // A copy of its own: a view would keep the whole page alive as long as it is kept.
      this.expectedNames[place] = new Uint8Array(scanner.bytes.subarray(p, end + 1));
      this.expectedSources[place] = source;
    }
    return source;
  }
}
