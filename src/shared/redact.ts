// The one place that decides what a secret is and how it is hidden: API keys (`X-API-KEY`, `api_key=`),
// card tokens, passwords, `Authorization` and `Cookie`. Every output path uses it: replay reports (JSON,
// HTML), stdout and stderr lines, and the gateway's recorder. A secret is replaced by a marker of the same
// JSON type (a string by "[REDACTED]", a number by 0, ...) so a redacted record still has the shape a
// reader or a diff expects.
// Two layers: structural (by header, parameter or field name) and, for anything that escaped it, a
// scrubber that removes every secret value already seen wherever it appears in a string.
// Pure: must never do I/O or log; a scrubber holds only the secrets it is given (and the module keeps the
// patterns built for the last key lent, which is the gateway's own).
import { isJsonObject, NumberLiteral, parseJsonExact, stringifyExact, type JsonObject, type JsonValue } from './json-exact.js';

export const REDACTED = '[REDACTED]';

const SECRET_HEADERS = new Set(['x-api-key', 'authorization', 'proxy-authorization', 'cookie', 'set-cookie']);
/** Body fields and query parameters; compared case-insensitively. */
const SECRET_FIELDS = new Set(['api_key', 'token', 'password', 'password2']);

export function isSecretHeader(name: string): boolean {
  return SECRET_HEADERS.has(name.toLowerCase());
}

export function isSecretField(name: string): boolean {
  return SECRET_FIELDS.has(name.toLowerCase());
}

/** The marker that stands for a secret value: same JSON type, no content. */
export function redactedLike(value: JsonValue): JsonValue {
  if (value === null) return null;
  if (Array.isArray(value)) return [];
  if (value instanceof NumberLiteral || typeof value === 'number') return 0;
  if (typeof value === 'boolean') return false;
  if (typeof value === 'string') return REDACTED;
  return {};
}

/** A copy with every secret field (at any depth) replaced by its marker. */
export function redactJson(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(redactJson);
  if (!isJsonObject(value)) return value;
  const out: JsonObject = {};
  for (const [key, v] of Object.entries(value)) {
    const redacted = isSecretField(key) ? redactedLike(v) : redactJson(v);
    if (key === '__proto__') {
      Object.defineProperty(out, key, { value: redacted, enumerable: true, writable: true, configurable: true });
    } else {
      out[key] = redacted;
    }
  }
  return out;
}

/** A form-encoded component decoded (`+` as a space), or as it is when its escapes are broken. */
export function decodeFormComponent(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}

/** `a=1&token=abc` -> `a=1&token=[REDACTED]`, leaving every other byte as it was. */
export function redactFormText(text: string): string {
  return redactForm(text, isSecretField);
}

function redactForm(text: string, hidden: (name: string) => boolean): string {
  return text
    .split('&')
    .map((part) => {
      const eq = part.indexOf('=');
      const name = eq < 0 ? part : part.slice(0, eq);
      return eq >= 0 && hidden(decodeFormComponent(name)) ? `${name}=${REDACTED}` : part;
    })
    .join('&');
}

/** Query parameters that name a person (the client lookup's `/api/client?email=...`): not secrets (a recording
 * keeps them, to be replayed), but never written to a log line. Compared case-insensitively. */
const PERSONAL_PARAMS = new Set(['email', 'username', 'first_name', 'last_name']);

export function isPersonalParam(name: string): boolean {
  return PERSONAL_PARAMS.has(name.toLowerCase());
}

/** A URL as a log line may hold it: redactUrl's, and the values of the parameters that name a person masked too. */
export function redactLogUrl(url: string): string {
  return redactUrlWith(url, (name) => isSecretField(name) || isPersonalParam(name));
}

/** Redacts secret query parameters and URL credentials; works on absolute and path-only URLs. */
export function redactUrl(url: string): string {
  return redactUrlWith(url, isSecretField);
}

/** A path with neither query nor fragment (`/api/clients/0/50`): nothing in it to redact. */
const PLAIN_PATH = /^\/[^?#]*$/;

function redactUrlWith(url: string, hidden: (name: string) => boolean): string {
  // Every request's log line redacts its URL, most of which are plain paths.
  if (PLAIN_PATH.test(url)) return url;
  const hash = url.indexOf('#');
  const beforeHash = hash < 0 ? url : url.slice(0, hash);
  const fragment = hash < 0 ? '' : url.slice(hash);
  const q = beforeHash.indexOf('?');
  let base = q < 0 ? beforeHash : beforeHash.slice(0, q);
  const query = q < 0 ? undefined : beforeHash.slice(q + 1);
  base = base.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^@/?#]*@/i, `$1${REDACTED}@`);
  return base + (query === undefined ? '' : '?' + redactForm(query, hidden)) + fragment;
}

/** One field of a multipart body as text: its headers (group 1), its name (2) and its value (3). */
export const MULTIPART_FIELD = /(content-disposition:[^\r\n]*\bname="([^"]*)"[^\r\n]*\r?\n(?:[^\r\n]+\r?\n)*\r?\n)([\s\S]*?)(?=\r?\n--)/gi;

/** Redacts a request or reply body given as text, by its content type (or its look when none). */
export function redactBodyText(text: string, contentType: string | undefined): string {
  const type = (contentType ?? '').toLowerCase();
  if (type.includes('multipart/')) {
    return text.replace(MULTIPART_FIELD, (whole, head: string, name: string) =>
      isSecretField(name) ? head + REDACTED : whole,
    );
  }
  const trimmed = text.trimStart();
  if (type.includes('json') || trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      return stringifyExact(redactJson(parseJsonExact(text)));
    } catch {
      // Not JSON after all: fall through to the form rule, then the scrubber of the caller.
    }
  }
  if (type.includes('x-www-form-urlencoded') || (type === '' && /^[^\s=&]+=[^\s]*$/.test(text))) {
    return redactFormText(text);
  }
  return text;
}

export type HeaderPair = readonly [name: string, value: string];

export function redactHeaderPairs(headers: readonly HeaderPair[]): HeaderPair[] {
  return headers.map(([name, value]) => [name, isSecretHeader(name) ? REDACTED : value] as const);
}

export function redactHeaderRecord(
  headers: Readonly<Record<string, string | string[] | number | undefined>>,
): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    if (isSecretHeader(name)) out[name] = Array.isArray(value) ? value.map(() => REDACTED) : REDACTED;
    else out[name] = Array.isArray(value) ? value : String(value);
  }
  return out;
}

/** Every secret value carried by a request (for the scrubber): header values, query and body fields. */
export function secretsOfRequest(request: {
  url: string;
  headers: readonly HeaderPair[];
  bodyText?: string | undefined;
  bodyJson?: JsonValue | undefined;
  bodyForm?: readonly HeaderPair[] | undefined;
}): string[] {
  const found: string[] = [];
  for (const [name, value] of request.headers) {
    if (!isSecretHeader(name)) continue;
    found.push(value);
    // A cookie header also leaks each cookie's value on its own.
    if (/^(set-)?cookie$/i.test(name)) {
      for (const part of value.split(';')) {
        const eq = part.indexOf('=');
        if (eq > 0) found.push(part.slice(eq + 1).trim());
      }
    }
    const bearer = /^\s*\S+\s+(\S+)\s*$/.exec(value);
    if (/^(proxy-)?authorization$/i.test(name) && bearer) found.push(bearer[1] as string);
  }
  const q = request.url.indexOf('?');
  if (q >= 0) found.push(...formSecrets(request.url.slice(q + 1).split('#')[0] as string));
  if (request.bodyText !== undefined) {
    found.push(...formSecrets(request.bodyText));
    let m: RegExpExecArray | null;
    const multipart = new RegExp(MULTIPART_FIELD.source, 'gi');
    while ((m = multipart.exec(request.bodyText)) !== null) {
      if (isSecretField(m[2] as string)) found.push((m[3] as string).trim());
    }
    try {
      collectJsonSecrets(parseJsonExact(request.bodyText), found);
    } catch {
      // not JSON
    }
  }
  if (request.bodyJson !== undefined) collectJsonSecrets(request.bodyJson, found);
  for (const [name, value] of request.bodyForm ?? []) if (isSecretField(name)) found.push(value);
  return found.filter((s) => s !== '' && s !== REDACTED);
}

function formSecrets(text: string): string[] {
  const found: string[] = [];
  for (const part of text.split('&')) {
    const eq = part.indexOf('=');
    if (eq > 0 && isSecretField(decodeFormComponent(part.slice(0, eq)))) found.push(decodeFormComponent(part.slice(eq + 1)));
  }
  return found;
}

function collectJsonSecrets(value: JsonValue, found: string[]): void {
  if (Array.isArray(value)) {
    for (const v of value) collectJsonSecrets(v, found);
    return;
  }
  if (!isJsonObject(value)) return;
  for (const [key, v] of Object.entries(value)) {
    if (isSecretField(key) && (typeof v === 'string' || typeof v === 'number')) found.push(String(v));
    else collectJsonSecrets(v, found);
  }
}

/** Shorter values are not scrubbed by content (they would erase ordinary text); names still redact them. */
export const MIN_SCRUBBED_SECRET_LENGTH = 4;

/** Characters that stand for hidden ones in a masked key (`sk_l****wxyz`, `abcd…`, `abcd...`). */
const MASK = '(?:[*\u2022\u2026]+|\\.{2,})';
/** Where a word of a key starts and ends: keys are words of letters, digits, `_` and `-`. */
const WORD_START = '(?<![A-Za-z0-9_-])';
const WORD_END = '(?![A-Za-z0-9_-])';

/**
 * Removes known secret values from any text, in the spellings they travel in (as is, percent-encoded with
 * either case of hex digits, form-encoded, JSON-escaped). The last line of defence: reports, recordings,
 * logs and the gateway's replies pass every string through it. Secrets are taken in as they come; the
 * pattern is compiled on the first scrub after a change, so a scrubber that is never used costs nothing.
 */
export class SecretScrubber {
  /** Literal spellings of the secrets. */
  private readonly secrets = new Set<string>();
  /** Patterns for secrets that must not show even in part (addWithFragments), tried after the literals. */
  private readonly fragments = new Set<string>();
  private pattern: RegExp | undefined;

  add(...secrets: readonly string[]): this {
    for (const secret of secrets) {
      if (secret.length < MIN_SCRUBBED_SECRET_LENGTH || secret === REDACTED) continue;
      for (const spelling of spellingsOf(secret)) {
        if (!this.secrets.has(spelling)) {
          this.secrets.add(spelling);
          this.pattern = undefined;
        }
      }
    }
    return this;
  }

  /**
   * Adds a secret that must not show even in part: the gateway's own key, lent to a caller who sent none.
   * Besides the value in every spelling, a masked rendering of it (`sk_l****wxyz`, `…wxyz`, `sk_live_ab...`)
   * is removed with its mask, and so is a whole word that is a run of its first or last characters (at
   * least MIN_SCRUBBED_SECRET_LENGTH long). Only whole words: a fragment inside another word is ordinary
   * text. A value shorter than the minimum is removed where it stands as a word of its own.
   */
  addWithFragments(secret: string): this {
    if (secret === '' || secret === REDACTED) return this;
    if (secret.length < MIN_SCRUBBED_SECRET_LENGTH) {
      this.addPattern(`${WORD_START}${escapeRegExp(secret)}${WORD_END}`);
      return this;
    }
    this.add(secret);
    for (const source of fragmentPatterns(secret)) this.addPattern(source);
    return this;
  }

  private addPattern(source: string): void {
    if (this.fragments.has(source)) return;
    this.fragments.add(source);
    this.pattern = undefined;
  }

  get size(): number {
    return this.secrets.size + this.fragments.size;
  }

  scrub(text: string): string {
    if (this.size === 0) return text;
    if (this.pattern === undefined) {
      // Longest first, so a secret containing another is replaced whole; fragments only where no whole
      // secret starts.
      const alternatives = [...this.secrets].sort((a, b) => b.length - a.length).map(literalPattern);
      this.pattern = new RegExp([...alternatives, ...this.fragments].join('|'), 'g');
    }
    return text.replace(this.pattern, REDACTED);
  }

  scrubJson(value: JsonValue): JsonValue {
    if (this.size === 0) return value;
    if (typeof value === 'string') return this.scrub(value);
    if (Array.isArray(value)) return value.map((v) => this.scrubJson(v));
    if (!isJsonObject(value)) return value;
    const out: JsonObject = {};
    for (const [key, v] of Object.entries(value)) {
      const scrubbed = this.scrubJson(v);
      if (key === '__proto__') {
        Object.defineProperty(out, key, { value: scrubbed, enumerable: true, writable: true, configurable: true });
      } else {
        out[key] = scrubbed;
      }
    }
    return out;
  }
}

/** The fragment patterns of the last key asked for: a gateway lends the same key to every call that brings
 * none, and building them costs more than scrubbing. */
let lastFragments: { secret: string; sources: readonly string[] } | undefined;

/** A masked rendering of the secret with its mask, and a word made of its first or last characters. */
function fragmentPatterns(secret: string): readonly string[] {
  if (lastFragments?.secret === secret) return lastFragments.sources;
  const prefixes: string[] = [];
  const suffixes: string[] = [];
  for (let n = secret.length - 1; n >= 1; n--) {
    if (n >= MIN_SCRUBBED_SECRET_LENGTH) prefixes.push(escapeRegExp(secret.slice(0, n)));
    suffixes.push(escapeRegExp(secret.slice(secret.length - n)));
  }
  const anySuffix = `(?:${suffixes.join('|')})`;
  const sources: string[] = [];
  if (prefixes.length > 0) sources.push(`${WORD_START}(?:${prefixes.join('|')})(?:${MASK}(?:${anySuffix}${WORD_END})?|${WORD_END})`);
  sources.push(`${MASK}${anySuffix}${WORD_END}`);
  const longSuffixes = suffixes.slice(0, Math.max(0, secret.length - MIN_SCRUBBED_SECRET_LENGTH));
  if (longSuffixes.length > 0) sources.push(`${WORD_START}(?:${longSuffixes.join('|')})${WORD_END}`);
  lastFragments = { secret, sources };
  return sources;
}

/** The spellings a secret travels in: as is, percent-encoded (URI component and form), JSON-escaped. */
function spellingsOf(secret: string): string[] {
  const uri = encodeURIComponent(secret);
  return [secret, uri, uri.replace(/%20/g, '+'), new URLSearchParams([['', secret]]).toString().slice(1), JSON.stringify(secret).slice(1, -1)];
}

/** A literal spelling as a pattern; its percent-escapes match either case of hex digits (`%2F`, `%2f`). */
function literalPattern(spelling: string): string {
  return escapeRegExp(spelling).replace(/%([0-9A-F]{2})/g, (_, hex: string) =>
    '%' + [...hex].map((c) => (c >= 'A' ? `[${c}${c.toLowerCase()}]` : c)).join(''),
  );
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The last segment of a diff path when it names a field: `$.a.token` -> `token`, `$["x y"]` -> `x y`. */
export function lastFieldOfPath(path: string): string | undefined {
  const dotted = /\.([A-Za-z_$][A-Za-z0-9_$-]*)$/.exec(path);
  if (dotted) return dotted[1];
  const quoted = /\[("(?:[^"\\]|\\.)*")\]$/.exec(path);
  if (!quoted) return undefined;
  try {
    return JSON.parse(quoted[1] as string) as string;
  } catch {
    return undefined;
  }
}

/** A difference safe to show: secret fields by name (the path's own or nested), then known values. */
export function redactDifferenceValue(path: string, value: JsonValue, scrubber: SecretScrubber): JsonValue {
  const field = lastFieldOfPath(path);
  if (field !== undefined && isSecretField(field)) return redactedLike(value);
  return scrubber.scrubJson(redactJson(value));
}
