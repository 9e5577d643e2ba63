// fast-check arbitraries for v1 page *texts*, spelled every way JSON allows: every escape (lone surrogates
// escaped too), raw non-ASCII, astral and lone-surrogate characters, U+FFFD, odd number spellings,
// whitespace wherever JSON takes it, nested values, repeated and unknown members (`__proto__` among them),
// envelopes in any order; and the same texts broken in the ways JSON.parse refuses.
import fc from 'fast-check';

/** JSON's whitespace within a line, mostly none. */
export const space: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.constant('') },
  { weight: 1, arbitrary: fc.constantFrom(' ', '\t', '\r', '  ', ' \t\r ') },
);

/** JSON's whitespace, line breaks included (a page on many lines). */
export const lineSpace: fc.Arbitrary<string> = fc.oneof(
  { weight: 12, arbitrary: space },
  { weight: 1, arbitrary: fc.constantFrom('\n', '\r\n  ', ' \t\n ') },
);

const ESCAPES = [
  '\\"', '\\\\', '\\/', '\\b', '\\f', '\\n', '\\r', '\\t', '\\u0000', '\\u001f', '\\u001F', '\\u0041', '\\u00e9', '\\u00E9',
  '\\u2028', '\\ud800', '\\uDBFF', '\\udc00', '\\uDFFF', '\\ud83d\\ude00', '\\uD83D\\uDE00', '\\ud83d\\u0041', '\\ufffd',
  '\\u0022', '\\u005c', '\\u005C', '\\u007f', '\\u0030\\u0039:30:00',
];
const RAW = [
  'a', 'Z', ' ', 'é', '中', '😀', '\ud83d\ude00', '\ufffd', '\u2028', '\u2029', '\u007f', '\u0080', '\u00a0', '\ufeff', '\ud800',
  '\udfff', '\ud83d', "'", '/', '<', '09:30:00', '23:59:59.123', '9:30', '45.5', '45.005', ' 12 ', '1e3', '-0', 'NaN',
  'America/Chicago', 'null', 'true', '$5', '0x1f',
];

/** `text` without quotes, backslashes and control characters: what a string may hold raw, as it is. */
const rawOnly = (text: string): string => Array.from(text).filter((c) => c !== '"' && c !== '\\' && c.charCodeAt(0) >= 0x20).join('');

/** A raw piece of string content: anything but a quote, a backslash or a control character. */
const rawPiece: fc.Arbitrary<string> = fc.oneof(fc.constantFrom(...RAW), fc.string({ unit: 'binary', maxLength: 4 }).map(rawOnly));

/** A JSON string's spelling: escapes and raw characters mixed. */
export const spelledString: fc.Arbitrary<string> = fc
  .array(fc.oneof({ weight: 1, arbitrary: fc.constantFrom(...ESCAPES) }, { weight: 3, arbitrary: rawPiece }), { maxLength: 5 })
  .map((pieces) => `"${pieces.join('')}"`);

/** Plain strings (printable ASCII), as v1 mostly sends them: copyable as they are. */
const plainString: fc.Arbitrary<string> = fc.string({ maxLength: 12 }).map((s) => JSON.stringify(rawOnly(s)));

const NUMBERS = [
  '0', '-0', '0.0', '-0.0', '1', '5', '42', '-12', '1e2', '1E+2', '1e-2', '1E-0', '0e0', '1.50', '1.005', '45.005', '45.5', '-45.5',
  '1e400', '-1e400', '0.1e-5', '-1e-7', '1e21', '123456789012345', '-12345678901234', '-123456789012345', '1234567890123456',
  '9007199254740993', '12345678901234567890', '0.30000000000000004', '5e-324', '2.5e-324', '1.7976931348623157e308',
];

export const spelledNumber: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...NUMBERS),
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
);

const literal = fc.constantFrom('true', 'false', 'null');

/** Objects and arrays, spelled with whitespace and any member names (repeated, `__proto__`). */
const nested: fc.Arbitrary<string> = fc.letrec<{ value: string; container: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', maxDepth: 3, withCrossShrink: true },
    spelledString,
    spelledNumber,
    literal,
    tie('container'),
  ),
  container: fc.oneof(
    fc.array(fc.tuple(space, tie('value'), space), { maxLength: 3 }).map((items) => `[${items.map((i) => i.join('')).join(',')}]`),
    fc
      .array(fc.tuple(fc.oneof(spelledString, fc.constantFrom('"__proto__"', '"a"', '"toString"')), space, tie('value'), space), { maxLength: 3 })
      .map((members) => `{${members.map(([k, s, v, t]) => `${k}${s}:${s}${v}${t}`).join(',')}}`),
  ),
})).container;

/** Any value's spelling. */
export const spelledValue: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: plainString },
  { weight: 3, arbitrary: spelledString },
  { weight: 3, arbitrary: spelledNumber },
  { weight: 2, arbitrary: literal },
  { weight: 1, arbitrary: nested },
);

/**
 * A member name spelled as JSON.stringify would; with its \u escapes in upper-case hex (as long, other
 * bytes); or with its first character escaped.
 */
export function spelledName(name: string): fc.Arbitrary<string> {
  const plain = JSON.stringify(name);
  if (name === '') return fc.constant(plain);
  const upper = plain.replace(/\\u([0-9a-f]{4})/g, (_, hex: string) => `\\u${hex.toUpperCase()}`);
  const escaped = `"\\u${name.charCodeAt(0).toString(16).padStart(4, '0')}${JSON.stringify(name.slice(1)).slice(1)}`;
  return fc.oneof({ weight: 6, arbitrary: fc.constant(plain) }, { weight: 1, arbitrary: fc.constant(upper) }, { weight: 1, arbitrary: fc.constant(escaped) });
}

const member = (name: fc.Arbitrary<string>, value: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.tuple(name, space, space, value).map(([k, a, b, v]) => `${k}${a}:${b}${v}`);

const joinMembers = (members: readonly string[], spaces: readonly string[]): string =>
  members.map((m, i) => `${spaces[i % Math.max(1, spaces.length)] ?? ''}${m}`).join(',');

/** Member names a record may carry besides the view's: JavaScript's own names, envelope names, others. */
const OTHER_NAMES = ['__proto__', 'constructor', 'toString', 'object', 'data', 'total', 'created_at', 'x', ''];

/**
 * A v1 record: `names` (the v1 fields a view reads) and others, in any order, any of them repeated, with
 * values of every kind; or (as v1 writes them) the names in order, compact, with plain values.
 */
export function spelledRecord(names: readonly string[]): fc.Arbitrary<string> {
  const anyName = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...names) }, { weight: 1, arbitrary: fc.constantFrom(...OTHER_NAMES) }, { weight: 1, arbitrary: fc.string({ maxLength: 4 }) });
  const shuffled = fc
    .tuple(fc.array(member(anyName.chain(spelledName), spelledValue), { maxLength: names.length + 3 }), fc.array(space, { maxLength: 4 }), space)
    .map(([members, spaces, end]) => `{${joinMembers(members, spaces)}${end}}`);
  const ordered = fc
    .tuple(
      fc.subarray([...names]),
      fc.array(fc.oneof({ weight: 6, arbitrary: plainString }, { weight: 2, arbitrary: fc.constant('null') }, { weight: 2, arbitrary: spelledValue }), {
        minLength: names.length,
        maxLength: names.length,
      }),
      fc.option(fc.tuple(fc.nat(names.length), fc.constantFrom(...OTHER_NAMES), spelledValue), { nil: undefined }),
    )
    .map(([present, values, extra]) => {
      const members = present.map((n, i) => `${JSON.stringify(n)}:${values[i]}`);
      if (extra) members.splice(Math.min(extra[0], members.length), 0, `${JSON.stringify(extra[1])}:${extra[2]}`);
      return `{${members.join(',')}}`;
    });
  return fc.oneof(shuffled, ordered);
}

export interface SpelledPage {
  text: string;
  /** How many members of the envelope are named `data` (a repeated one may be declined). */
  dataMembers: number;
}

const TOTALS = ['0', '3', '100000', '1e2', '1.0', '-0', '9007199254740991', '9007199254740992', '-1', '1.5', '"5"', 'null', 'true', '1e400'];
const HAS_MORE = ['true', 'false', 'true', 'false', 'null', '0', '"true"'];

/** A v1 list page: the envelope's members in any order, maybe repeated, with unknown ones and bad ones. */
export function spelledPage(names: readonly string[]): fc.Arbitrary<SpelledPage> {
  const records = fc
    .tuple(fc.array(fc.tuple(space, spelledRecord(names), space), { maxLength: 5 }), space)
    .map(([items, empty]) => (items.length === 0 ? `[${empty}]` : `[${items.map((i) => i.join('')).join(',')}]`));
  const data = fc.oneof({ weight: 12, arbitrary: records }, { weight: 1, arbitrary: fc.constantFrom('[1]', '[null]', '[[]]', '{}', 'null', '[{}, "x"]') });
  const envelopeMember = fc.oneof(
    { weight: 2, arbitrary: member(spelledName('total'), fc.oneof(fc.constantFrom(...TOTALS), fc.nat().map(String))).map((m) => ({ m, data: 0 })) },
    { weight: 2, arbitrary: member(spelledName('has_more'), fc.constantFrom(...HAS_MORE)).map((m) => ({ m, data: 0 })) },
    { weight: 1, arbitrary: member(spelledName('data'), data).map((m) => ({ m, data: 1 })) },
    { weight: 1, arbitrary: member(fc.constantFrom('"object"', '"limit"', '"offset"', '"__proto__"', '"Data"'), spelledValue).map((m) => ({ m, data: 0 })) },
  );
  const required = fc.tuple(
    member(spelledName('total'), fc.oneof({ weight: 8, arbitrary: fc.nat().map(String) }, { weight: 1, arbitrary: fc.constantFrom(...TOTALS) })),
    member(spelledName('has_more'), fc.constantFrom('true', 'false')),
    member(spelledName('data'), records),
  );
  return fc
    .tuple(required, fc.array(envelopeMember, { maxLength: 3 }), fc.array(space, { maxLength: 5 }), fc.tuple(lineSpace, lineSpace, lineSpace))
    .chain(([[total, hasMore, dataMember], extra, spaces, [before, inside, after]]) =>
      fc
        .shuffledSubarray([{ m: total, data: 0 }, { m: hasMore, data: 0 }, { m: dataMember, data: 1 }, ...extra], { minLength: 3 + extra.length })
        .map((members) => ({
          text: `${before}{${joinMembers(members.map((x) => x.m), spaces)}${inside}}${after}`,
          dataMembers: members.reduce((n, x) => n + x.data, 0),
        })),
    );
}

/** Breaks JSON.parse would refuse (or, placed where they happen to be harmless, accept). */
const BREAKS = ['\\x', '\\u12', '\\', '\u0001', '\u001f', '\u0000', "'", 'NaN', 'Infinity', '01', '-', '.', '1.', '.5', 'e', '+1', 'tru', 'nul', ',', '}', ']', '"', ':', '{', '[', '\ufeff', '\u00a0', '\v', '\f', '//', '/**/'];

/** A text with one change: cut short, something added at the end, or a piece inserted or put in a character's place. */
export function broken(text: string): fc.Arbitrary<string> {
  const at = fc.nat(Math.max(0, text.length - 1));
  return fc.oneof(
    at.map((i) => text.slice(0, i)),
    fc.constantFrom('x', ',', '}', ' 1', '{}', '\u0000', 'null').map((tail) => text + tail),
    fc.tuple(at, fc.constantFrom(...BREAKS)).map(([i, piece]) => text.slice(0, i) + piece + text.slice(i)),
    fc.tuple(at, fc.constantFrom(...BREAKS)).map(([i, piece]) => text.slice(0, i) + piece + text.slice(i + 1)),
  );
}
