// Whether a request path could climb out of the path it is appended to (UPSTREAM_URL's path prefix, for
// the passthrough): a `.` or `..` segment, as the upstream may read it once it has decoded the path once.
// `%2e` (any case) is a dot; an encoded slash or backslash (`%2f`, `%5c`) and a raw backslash are taken as
// separators, since a server may decode or normalise them into one; a servlet container reads `..;x` as
// `..`, so what follows a `;` in a segment is ignored. Legacy paths never hold such a segment. An encoded
// slash between ordinary segments (`/api/clients%2F0`) cannot climb, and is left to the upstream. Pure.

/** Only a path holding one of these can hold a dot segment, raw or encoded. */
const MAY_HOLD_DOTS = /[.%]/;
const ENCODED_DOT = /%2e/gi;
const SEPARATOR = /\/|\\|%2f|%5c/i;

export function hasDotSegment(path: string): boolean {
  if (!MAY_HOLD_DOTS.test(path)) return false;
  for (const raw of path.replace(ENCODED_DOT, '.').split(SEPARATOR)) {
    const semicolon = raw.indexOf(';');
    const segment = semicolon < 0 ? raw : raw.slice(0, semicolon);
    if (segment === '.' || segment === '..') return true;
  }
  return false;
}
