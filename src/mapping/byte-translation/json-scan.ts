// Reads JSON as UTF-8 bytes one value at a time, accepting exactly the spellings JSON.parse accepts of the
// same bytes decoded (ECMA-404: the four whitespace characters, strings without raw control characters and
// with only the nine escapes, numbers without leading zeros, the three literals), without building any
// value: it says where each value ends and what kind it is, so that the translation can copy a value's
// bytes or convert it, and refuse (decline) a page JSON.parse would refuse. Pure.
//
// The bytes must be valid UTF-8 (the translation checks the page once, natively): then every byte below
// 0x80 is the ASCII character it spells, a string's other bytes are whole characters that JSON.stringify
// writes again as they are (valid UTF-8 holds no lone surrogate), and a string without a backslash or a
// control character is its own JSON.stringify spelling. Strings are read with a loop over their bytes: the
// values of a page are short, and a native search per string cost more than the loop.

/** A string whose bytes are what JSON.stringify writes for its value: it may be copied as it is. */
export const COPYABLE_STRING = 1;
/** A string with escapes: its value must be parsed and written again. */
export const ESCAPED_STRING = 2;
/** `-?(0|[1-9][0-9]*)`: no fraction, no exponent. */
export const INTEGER = 3;
/** A number with a fraction or an exponent. */
export const OTHER_NUMBER = 4;
export const TRUE = 5;
export const FALSE = 6;
export const NULL = 7;
/** An object or an array. */
export const NESTED = 8;

/** Deeper values are declined rather than read by recursion: JSON.parse itself has no such limit. */
const MAX_DEPTH = 64;

const EMPTY = Buffer.alloc(0);

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;

const isHexDigit = (c: number): boolean => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);

/** JSON's whitespace: space, tab, line feed, carriage return (not every character String.trim removes). */
const isJsonSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** The characters that may follow a backslash, besides `u`: `" \ / b f n r t`. */
const isShortEscape = (c: number): boolean =>
  c === 0x22 || c === 0x5c || c === 0x2f || c === 0x62 || c === 0x66 || c === 0x6e || c === 0x72 || c === 0x74;

/** Whether `word`'s bytes are at `p`. */
export function spells(bytes: Uint8Array, p: number, word: Uint8Array): boolean {
  if (p + word.length > bytes.length) return false;
  for (let i = 0; i < word.length; i++) if (bytes[p + i] !== word[i]) return false;
  return true;
}

const NULL_WORD = Buffer.from('null');
const TRUE_WORD = Buffer.from('true');
const FALSE_WORD = Buffer.from('false');

/**
 * One page's scan. Each reading method takes the position where a value starts and returns whether a valid
 * value is there; if so, `end` is the position after it and `kind` what it is. Reused from page to page
 * (`reset`); not shared by two scans at once.
 */
export class JsonScanner {
  bytes: Buffer = EMPTY;
  /** After a successful read: the position just after the value. */
  end = 0;
  /** After a successful read: the value's kind (COPYABLE_STRING ... NESTED). */
  kind = 0;

  reset(bytes: Buffer): void {
    this.bytes = bytes;
  }

  /** The byte at `p`, or -1 past the end. */
  at(p: number): number {
    return p < this.bytes.length ? this.bytes[p]! : -1;
  }

  /** The first position at or after `p` that is not JSON whitespace. */
  skipSpace(p: number): number {
    const bytes = this.bytes;
    const length = bytes.length;
    while (p < length && isJsonSpace(bytes[p]!)) p++;
    return p;
  }

  /** A string starting at `p` (its opening quote). */
  string(p: number): boolean {
    const bytes = this.bytes;
    const length = bytes.length;
    for (let i = p + 1; i < length; i++) {
      const c = bytes[i]!;
      if (c === 0x22) {
        this.end = i + 1;
        this.kind = COPYABLE_STRING;
        return true;
      }
      if (c === 0x5c || c < 0x20) return this.escapedString(i);
    }
    return false;
  }

  /** The rest of a string from its first backslash or control character at `i`, by the full rule. */
  private escapedString(i: number): boolean {
    const bytes = this.bytes;
    const length = bytes.length;
    while (i < length) {
      const c = bytes[i]!;
      if (c === 0x22) {
        this.end = i + 1;
        this.kind = ESCAPED_STRING;
        return true;
      }
      if (c < 0x20) return false;
      if (c !== 0x5c) {
        i++;
        continue;
      }
      const escaped = this.at(i + 1);
      if (isShortEscape(escaped)) i += 2;
      else if (escaped === 0x75 && isHexDigit(this.at(i + 2)) && isHexDigit(this.at(i + 3)) && isHexDigit(this.at(i + 4)) && isHexDigit(this.at(i + 5))) i += 6;
      else return false;
    }
    return false;
  }

  /** A number starting at `p` (a minus sign or a digit). */
  number(p: number): boolean {
    let c = this.at(p);
    if (c === 0x2d) c = this.at(++p);
    if (c === 0x30) c = this.at(++p);
    else if (c >= 0x31 && c <= 0x39) {
      do c = this.at(++p);
      while (isDigit(c));
    } else return false;
    let kind = INTEGER;
    if (c === 0x2e) {
      if (!isDigit(this.at(++p))) return false;
      do c = this.at(++p);
      while (isDigit(c));
      kind = OTHER_NUMBER;
    }
    if (c === 0x65 || c === 0x45) {
      c = this.at(++p);
      if (c === 0x2b || c === 0x2d) c = this.at(++p);
      if (!isDigit(c)) return false;
      do c = this.at(++p);
      while (isDigit(c));
      kind = OTHER_NUMBER;
    }
    this.end = p;
    this.kind = kind;
    return true;
  }

  /** Any value starting at `p`, inside `depth` objects or arrays. */
  value(p: number, depth: number): boolean {
    const c = this.at(p);
    if (c === 0x22) return this.string(p);
    if (c === 0x2d || isDigit(c)) return this.number(p);
    if (c === 0x6e) return this.literal(p, NULL_WORD, NULL);
    if (c === 0x74) return this.literal(p, TRUE_WORD, TRUE);
    if (c === 0x66) return this.literal(p, FALSE_WORD, FALSE);
    if (c === 0x7b || c === 0x5b) {
      if (!this.nested(p, depth + 1)) return false;
      this.kind = NESTED;
      return true;
    }
    return false;
  }

  private literal(p: number, word: Uint8Array, kind: number): boolean {
    if (!spells(this.bytes, p, word)) return false;
    this.end = p + word.length;
    this.kind = kind;
    return true;
  }

  /** An object or an array starting at `p`, checked whole; its values are not kept. */
  private nested(p: number, depth: number): boolean {
    if (depth > MAX_DEPTH) return false;
    const isObject = this.at(p) === 0x7b;
    const close = isObject ? 0x7d : 0x5d;
    p = this.skipSpace(p + 1);
    if (this.at(p) === close) {
      this.end = p + 1;
      return true;
    }
    for (;;) {
      if (isObject) {
        if (this.at(p) !== 0x22 || !this.string(p)) return false;
        p = this.skipSpace(this.end);
        if (this.at(p) !== 0x3a) return false;
        p = this.skipSpace(p + 1);
      }
      if (!this.value(p, depth)) return false;
      p = this.skipSpace(this.end);
      const c = this.at(p);
      if (c === close) {
        this.end = p + 1;
        return true;
      }
      if (c !== 0x2c) return false;
      p = this.skipSpace(p + 1);
    }
  }

  /** The value of the number scanned from `p` to `end`: its bytes are ASCII, and Number() reads JSON's
   * number spellings as JSON.parse does. */
  numberValue(p: number, end: number): number {
    return Number(this.bytes.toString('latin1', p, end));
  }

  /** The value of the string scanned from `p` to `end` (its quotes included). */
  stringValue(p: number, end: number, kind: number): string {
    return kind === COPYABLE_STRING ? this.bytes.toString('utf8', p + 1, end - 1) : (JSON.parse(this.bytes.toString('utf8', p, end)) as string);
  }
}
