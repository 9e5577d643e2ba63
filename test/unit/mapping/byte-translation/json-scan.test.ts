// The scanner against JSON.parse: for any spelled value, and the same broken, it accepts the value's UTF-8
// bytes exactly when JSON.parse accepts those bytes decoded, and the kind it gives is the value's.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  COPYABLE_STRING,
  ESCAPED_STRING,
  FALSE,
  INTEGER,
  JsonScanner,
  NESTED,
  NULL,
  OTHER_NUMBER,
  TRUE,
} from '../../../../src/mapping/byte-translation/json-scan.js';
import { broken, lineSpace, spelledValue } from './page-arbitraries.js';

/** The kind of the bytes of a whole text that is one value, or undefined when the scanner refuses them. */
function scanned(bytes: Buffer): number | undefined {
  const scanner = new JsonScanner();
  scanner.reset(bytes);
  const start = scanner.skipSpace(0);
  if (!scanner.value(start, 0)) return undefined;
  return scanner.skipSpace(scanner.end) === bytes.length ? scanner.kind : undefined;
}

function parses(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

/** What the kind says of the value and its spelling. */
function expectKind(kind: number, text: string, value: unknown): void {
  const spelling = text.trim();
  switch (kind) {
    case COPYABLE_STRING:
      expect(JSON.stringify(value)).toBe(spelling);
      break;
    case ESCAPED_STRING:
      expect(typeof value).toBe('string');
      break;
    case INTEGER:
      expect(spelling).toMatch(/^-?(0|[1-9][0-9]*)$/);
      break;
    case OTHER_NUMBER:
      expect(typeof value).toBe('number');
      expect(spelling).toMatch(/[.eE]/);
      break;
    case TRUE:
    case FALSE:
      expect(value).toBe(kind === TRUE);
      break;
    case NULL:
      expect(value).toBeNull();
      break;
    case NESTED:
      expect(typeof value).toBe('object');
      expect(value).not.toBeNull();
      break;
    default:
      throw new Error(`unknown kind ${kind}`);
  }
}

/** `text` as UTF-8 (a lone surrogate becomes U+FFFD, as on the wire), against JSON.parse of those bytes decoded. */
function expectAsJsonParse(written: string): void {
  const bytes = Buffer.from(written);
  const text = bytes.toString();
  const kind = scanned(bytes);
  const parsed = parses(text);
  expect(kind !== undefined, JSON.stringify(text)).toBe(parsed !== undefined);
  if (kind !== undefined && parsed) expectKind(kind, text, parsed.value);
}

const padded = fc.tuple(lineSpace, spelledValue, lineSpace).map((parts) => parts.join(''));

describe('JsonScanner', () => {
  it('accepts every spelled value, with the kind of its value', () => {
    fc.assert(fc.property(padded, expectAsJsonParse), { numRuns: 2000 });
  });

  it('refuses a broken value exactly when JSON.parse does', () => {
    fc.assert(fc.property(padded.chain(broken), expectAsJsonParse), { numRuns: 3000 });
  });

  it.each([
    ['"a\\x"'], ['"\\u12"'], ['"\\u12g4"'], ['"a\u0001"'], ['"\t"'], ["'a'"], ['NaN'], ['-Infinity'], ['01'], ['-01'], ['1.'], ['.5'],
    ['1e'], ['1e+'], ['+1'], ['-'], ['tru'], ['nulll'], ['[1,]'], ['{"a":1,}'], ['{"a"}'], ['{a:1}'], ['[1 2]'], ['\ufeff1'], ['\u00a01'],
    ['1\v'], ['"a'], ['['], ['{'], [''], [' '], ['"\ud800"'], ['"\\ud800"'], ['"😀"'], ['"\\/"'], ['-0'], ['0.0'], ['1E+2'], ['[]'], ['{}'],
    [' {"__proto__": [1, {"b": null}]} '], ['[1,\n2]'], ['{\n  "a"\r\n:\t1\n}'], ['"a\nb"'], ['"a\rb"'],
  ])('%j as JSON.parse', (text) => expectAsJsonParse(text));

  it('refuses values nested deeper than it follows, which JSON.parse accepts', () => {
    const deep = `${'['.repeat(100)}${']'.repeat(100)}`;
    expect(parses(deep)).toBeDefined();
    expect(scanned(Buffer.from(deep))).toBeUndefined();
    expect(scanned(Buffer.from(`${'['.repeat(60)}${']'.repeat(60)}`))).toBe(NESTED);
  });
});
