// Reads JSON text one value at a time, accepting exactly the spellings JSON.parse accepts (ECMA-404: the
// four whitespace characters, strings without raw control characters and with only the nine escapes,
// numbers without leading zeros, the three literals), without building any value: it says where each value
// ends and what kind it is, so that the text translation can copy a value's spelling or convert it, and
// refuse (decline) a page JSON.parse would refuse. Pure.
//
// Strings are the bulk of a v1 page, so they are found with indexOf('"') and not character by character.
// That is only right for a string holding no backslash (an escaped quote would end it early), no control
// character (JSON.parse refuses one) and no surrogate (JSON.stringify escapes a lone one): the position of
// the next such character in the page is kept, searched natively and only again once passed, and a string
// reaching it is read by the full rule instead.

/** A string whose spelling is what JSON.stringify writes for its value: it may be copied as it is. */
export const COPYABLE_STRING = 1;
/** Any other string: escapes, or a lone surrogate (its value must be parsed and written again). */
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

// Control characters are what these look for: JSON.parse refuses them raw in a string.
/* eslint-disable no-control-regex */
const COPYABLE = /"(?:[^"\\\x00-\x1f\ud800-\udfff]|[\ud800-\udbff][\udc00-\udfff])*"/y;
const ANY_STRING = /"(?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
const CONTROL = /[\x00-\x1f]/g;
/* eslint-enable no-control-regex */
const SURROGATE = /[\ud800-\udfff]/g;

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;

/** JSON's whitespace: space, tab, line feed, carriage return (not every character String.trim removes). */
export const isJsonSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/**
 * One page's scan. Each reading method takes the position where a value starts and returns whether a valid
 * value is there; if so, `end` is the position after it and `kind` what it is. Reused from page to page
 * (`reset`); not shared by two scans at once.
 */
export class JsonScanner {
  text = '';
  /** After a successful read: the position just after the value. */
  end = 0;
  /** After a successful read: the value's kind (COPYABLE_STRING ... NESTED). */
  kind = 0;
  // The next backslash, control character and surrogate at or after the last search, and the least of them
  // (the text's length when there is none). A search runs again only once the scan has passed its answer.
  private nextBackslash = -1;
  private nextControl = -1;
  private nextSurrogate = -1;
  private nextSpecial = -1;

  reset(text: string): void {
    this.text = text;
    this.nextBackslash = -1;
    this.nextControl = -1;
    this.nextSurrogate = -1;
    this.nextSpecial = -1;
  }

  /** The first position at or after `p` that is not JSON whitespace. */
  skipSpace(p: number): number {
    const text = this.text;
    while (isJsonSpace(text.charCodeAt(p))) p++;
    return p;
  }

  /** A string starting at `p` (its opening quote). */
  string(p: number): boolean {
    const text = this.text;
    const close = text.indexOf('"', p + 1);
    if (close < 0) return false;
    if (this.nextSpecial < p) this.findSpecial(p);
    if (this.nextSpecial > close) {
      this.end = close + 1;
      this.kind = COPYABLE_STRING;
      return true;
    }
    return this.unusualString(p);
  }

  /** A string holding a backslash, a control character or a surrogate: read by the full rule. */
  private unusualString(p: number): boolean {
    COPYABLE.lastIndex = p;
    if (COPYABLE.test(this.text)) {
      this.end = COPYABLE.lastIndex;
      this.kind = COPYABLE_STRING;
      return true;
    }
    ANY_STRING.lastIndex = p;
    if (!ANY_STRING.test(this.text)) return false;
    this.end = ANY_STRING.lastIndex;
    this.kind = ESCAPED_STRING;
    return true;
  }

  private findSpecial(p: number): void {
    const text = this.text;
    const length = text.length;
    if (this.nextBackslash < p) {
      const at = text.indexOf('\\', p);
      this.nextBackslash = at < 0 ? length : at;
    }
    if (this.nextControl < p) {
      CONTROL.lastIndex = p;
      this.nextControl = CONTROL.test(text) ? CONTROL.lastIndex - 1 : length;
    }
    if (this.nextSurrogate < p) {
      SURROGATE.lastIndex = p;
      this.nextSurrogate = SURROGATE.test(text) ? SURROGATE.lastIndex - 1 : length;
    }
    this.nextSpecial = Math.min(this.nextBackslash, this.nextControl, this.nextSurrogate);
  }

  /** A number starting at `p` (a minus sign or a digit). */
  number(p: number): boolean {
    const text = this.text;
    let c = text.charCodeAt(p);
    if (c === 0x2d) c = text.charCodeAt(++p);
    if (c === 0x30) c = text.charCodeAt(++p);
    else if (c >= 0x31 && c <= 0x39) {
      do c = text.charCodeAt(++p);
      while (isDigit(c));
    } else return false;
    let kind = INTEGER;
    if (c === 0x2e) {
      if (!isDigit(text.charCodeAt(++p))) return false;
      do c = text.charCodeAt(++p);
      while (isDigit(c));
      kind = OTHER_NUMBER;
    }
    if (c === 0x65 || c === 0x45) {
      c = text.charCodeAt(++p);
      if (c === 0x2b || c === 0x2d) c = text.charCodeAt(++p);
      if (!isDigit(c)) return false;
      do c = text.charCodeAt(++p);
      while (isDigit(c));
      kind = OTHER_NUMBER;
    }
    this.end = p;
    this.kind = kind;
    return true;
  }

  /** Any value starting at `p`, inside `depth` objects or arrays. */
  value(p: number, depth: number): boolean {
    const text = this.text;
    const c = text.charCodeAt(p);
    if (c === 0x22) return this.string(p);
    if (c === 0x2d || isDigit(c)) return this.number(p);
    if (c === 0x6e) return this.literal(p, 'null', NULL);
    if (c === 0x74) return this.literal(p, 'true', TRUE);
    if (c === 0x66) return this.literal(p, 'false', FALSE);
    if (c === 0x7b || c === 0x5b) {
      if (!this.nested(p, depth + 1)) return false;
      this.kind = NESTED;
      return true;
    }
    return false;
  }

  private literal(p: number, word: string, kind: number): boolean {
    if (!this.text.startsWith(word, p)) return false;
    this.end = p + word.length;
    this.kind = kind;
    return true;
  }

  /** An object or an array starting at `p`, checked whole; its values are not kept. */
  private nested(p: number, depth: number): boolean {
    if (depth > MAX_DEPTH) return false;
    const text = this.text;
    const isObject = text.charCodeAt(p) === 0x7b;
    const close = isObject ? 0x7d : 0x5d;
    p = this.skipSpace(p + 1);
    if (text.charCodeAt(p) === close) {
      this.end = p + 1;
      return true;
    }
    for (;;) {
      if (isObject) {
        if (text.charCodeAt(p) !== 0x22 || !this.string(p)) return false;
        p = this.skipSpace(this.end);
        if (text.charCodeAt(p) !== 0x3a) return false;
        p = this.skipSpace(p + 1);
      }
      if (!this.value(p, depth)) return false;
      p = this.skipSpace(this.end);
      const c = text.charCodeAt(p);
      if (c === close) {
        this.end = p + 1;
        return true;
      }
      if (c !== 0x2c) return false;
      p = this.skipSpace(p + 1);
    }
  }
}
