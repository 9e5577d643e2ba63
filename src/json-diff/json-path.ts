// JSON paths for diff reports (`$.response[3].first_name`) and the path patterns rules are written in
// (`$.response[*].updated_at`, `$..timestamp`). One spelling for both, so a path copied from a report
// pastes into a rules file as is.
// Pure: must never do I/O or keep state between calls.

export type PathSegment = string | number;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

export const ROOT_PATH = '$';

/** `$.a` + `b` -> `$.a.b`; + 3 -> `$.a[3]`; + `hide costs` -> `$.a["hide costs"]`. */
export function appendPath(path: string, segment: PathSegment): string {
  if (typeof segment === 'number') return `${path}[${segment}]`;
  return IDENTIFIER.test(segment) && segment !== '*' ? `${path}.${segment}` : `${path}[${JSON.stringify(segment)}]`;
}

export function formatPath(segments: readonly PathSegment[]): string {
  let path = ROOT_PATH;
  for (const s of segments) path = appendPath(path, s);
  return path;
}

type PatternToken =
  | { kind: 'key'; key: string }
  | { kind: 'index'; index: number }
  | { kind: 'any' }
  | { kind: 'anyIndex' }
  | { kind: 'deep' };

export interface PathPattern {
  /** As written in the rules file. */
  source: string;
  tokens: readonly PatternToken[];
}

export class PathPatternError extends Error {
  override name = 'PathPatternError';
}

/**
 * Parses a pattern: `$` then any of `.name`, `["any name"]`, `[3]`, `.*` (any key or index), `[*]` (any
 * index), `..` (any depth, zero or more levels) followed by one of those.
 */
export function parsePathPattern(source: string): PathPattern {
  const tokens: PatternToken[] = [];
  if (!source.startsWith('$')) throw new PathPatternError(`a path must start with "$": ${source}`);
  let i = 1;
  const bad = (why: string): never => {
    throw new PathPatternError(`${why} at character ${i + 1} of ${JSON.stringify(source)}`);
  };
  while (i < source.length) {
    if (source.startsWith('..', i)) {
      tokens.push({ kind: 'deep' });
      // Leave the selector that must follow (`.name`, `.*` or `[...]`) for the next turn of the loop.
      i += source[i + 2] === '[' ? 2 : 1;
      continue;
    }
    const c = source[i];
    if (c === '.') {
      const m = /^(\*|[A-Za-z_$][A-Za-z0-9_$-]*)/.exec(source.slice(i + 1));
      if (!m) return bad('expected a name or "*" after "."');
      const name = m[1] as string;
      tokens.push(name === '*' ? { kind: 'any' } : { kind: 'key', key: name });
      i += 1 + name.length;
      continue;
    }
    if (c === '[') {
      const rest = source.slice(i);
      let m = /^\[\*\]/.exec(rest);
      if (m) {
        tokens.push({ kind: 'anyIndex' });
        i += m[0].length;
        continue;
      }
      m = /^\[(\d+)\]/.exec(rest);
      if (m) {
        tokens.push({ kind: 'index', index: Number(m[1]) });
        i += m[0].length;
        continue;
      }
      m = /^\[("(?:[^"\\]|\\.)*")\]/.exec(rest);
      if (m) {
        let key: unknown;
        try {
          key = JSON.parse(m[1] as string);
        } catch {
          return bad('bad quoted name');
        }
        tokens.push({ kind: 'key', key: key as string });
        i += m[0].length;
        continue;
      }
      return bad('expected [n], [*] or ["name"]');
    }
    return bad(`unexpected ${JSON.stringify(c)}`);
  }
  return { source, tokens };
}

/** Whether a concrete path (as segments) matches the pattern as a whole. */
export function matchesPattern(pattern: PathPattern, segments: readonly PathSegment[]): boolean {
  return matchFrom(pattern.tokens, 0, segments, 0);
}

function matchFrom(
  tokens: readonly PatternToken[],
  t: number,
  segments: readonly PathSegment[],
  s: number,
): boolean {
  if (t === tokens.length) return s === segments.length;
  const token = tokens[t] as PatternToken;
  if (token.kind === 'deep') {
    for (let skip = s; skip <= segments.length; skip++) {
      if (matchFrom(tokens, t + 1, segments, skip)) return true;
    }
    return false;
  }
  if (s === segments.length) return false;
  const seg = segments[s] as PathSegment;
  const ok =
    token.kind === 'any' ||
    (token.kind === 'anyIndex' && typeof seg === 'number') ||
    (token.kind === 'index' && seg === token.index) ||
    (token.kind === 'key' && seg === token.key);
  return ok && matchFrom(tokens, t + 1, segments, s + 1);
}

/**
 * A report path with every array index generalised: `$.response[3].first_name` -> `$.response[*].first_name`.
 * The result is a pattern the rules file accepts. Quoted names are kept as they are (`$["a[1]"]`).
 */
export function generalisePath(path: string): string {
  let out = '';
  let i = 0;
  while (i < path.length) {
    if (path.startsWith('["', i)) {
      // Copy the quoted name whole, escapes included, so brackets inside it stay.
      let j = i + 2;
      while (j < path.length && path[j] !== '"') j += path[j] === '\\' ? 2 : 1;
      out += path.slice(i, j + 2);
      i = j + 2;
      continue;
    }
    const index = /^\[\d+\]/.exec(path.slice(i, i + 24));
    if (index) {
      out += '[*]';
      i += index[0].length;
      continue;
    }
    out += path[i];
    i++;
  }
  return out;
}
