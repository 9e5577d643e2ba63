// JSON text of one string, exactly as JSON.stringify writes it: the engine writes legacy replies as text,
// and they must be the bytes JSON.stringify would give. Pure. It never writes its own escapes: a string
// that needs any (a quote, a backslash, a control character, a lone surrogate) goes to JSON.stringify.

/** What JSON.stringify escapes in a string: `"`, `\`, U+0000-U+001F and surrogates (paired ones it keeps,
 * but JSON.stringify itself tells them apart). U+2028 and U+2029 are written as they are. */
// eslint-disable-next-line no-control-regex -- the control characters are exactly what is looked for
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

export function jsonString(value: string): string {
  // Most legacy values need no escape: quoting them directly is about a third cheaper.
  return NEEDS_ESCAPE.test(value) ? JSON.stringify(value) : `"${value}"`;
}
