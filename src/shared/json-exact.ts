// Exact JSON: parse and print JSON text without losing how a number was spelled.
// JSON.parse turns `1.0`, `1` and `1e0` into the same double, and rounds 12345678901234567891; a client in
// Python or PHP sees those as different values, so the replay diff must too. Numbers whose spelling is
// JSON.stringify's own stay plain numbers (so ordinary JSON values are valid input everywhere); any other
// spelling becomes a NumberLiteral that keeps its source text.
// It must never depend on anything but its input: no I/O, no globals, no prototype pollution (`__proto__`
// keys become own properties, as with JSON.parse).

/** A JSON number whose source spelling JSON.stringify would not reproduce (`1.0`, `1e2`, big integers). */
export class NumberLiteral {
  constructor(readonly source: string) {}
  /** The nearest double, for tolerance arithmetic and for plain JSON output. */
  get value(): number {
    return Number(this.source);
  }
  toJSON(): number {
    return this.value;
  }
}

export type JsonValue =
  | null
  | boolean
  | number
  | NumberLiteral
  | string
  | JsonValue[]
  | { [key: string]: JsonValue };

export type JsonObject = { [key: string]: JsonValue };

export type JsonType = 'null' | 'boolean' | 'number' | 'string' | 'array' | 'object';

export function jsonTypeOf(value: JsonValue): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (value instanceof NumberLiteral) return 'number';
  switch (typeof value) {
    case 'boolean':
      return 'boolean';
    case 'number':
      return 'number';
    case 'string':
      return 'string';
    default:
      return 'object';
  }
}

export function isJsonObject(value: JsonValue): value is JsonObject {
  return jsonTypeOf(value) === 'object';
}

/** The number as it was spelled in the source (or as JSON.stringify spells a plain number). */
export function numberSpelling(value: number | NumberLiteral): string {
  return value instanceof NumberLiteral ? value.source : JSON.stringify(value);
}

export class JsonSyntaxError extends SyntaxError {
  override name = 'JsonSyntaxError';
  constructor(
    message: string,
    /** Offset in characters where parsing failed. */
    readonly position: number,
  ) {
    super(`${message} at position ${position}`);
  }
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const WHITESPACE = /[ \t\n\r]*/y;

// Strings (skipped whole) and number tokens, in document order.
const STRING_OR_NUMBER = /"[^"\\]*(?:\\.[^"\\]*)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

/** Whether every number in a (valid) JSON text is spelled as JSON.stringify spells it. */
function onlyCanonicalNumbers(text: string): boolean {
  STRING_OR_NUMBER.lastIndex = 0;
  for (let m = STRING_OR_NUMBER.exec(text); m !== null; m = STRING_OR_NUMBER.exec(text)) {
    const token = m[0];
    if (token.charCodeAt(0) !== 34 && JSON.stringify(Number(token)) !== token) return false;
  }
  return true;
}

/**
 * Parses one JSON text exactly (see the module comment). Throws JsonSyntaxError with the offset.
 * Most texts spell every number canonically; those go through the native JSON.parse (same result,
 * far faster), the others through the exact parser below.
 */
export function parseJsonExact(text: string): JsonValue {
  let native: unknown;
  try {
    native = JSON.parse(text);
  } catch {
    return parseJsonExactSlow(text); // throws the JsonSyntaxError with the position
  }
  return onlyCanonicalNumbers(text) ? (native as JsonValue) : parseJsonExactSlow(text);
}

function parseJsonExactSlow(text: string): JsonValue {
  return new ExactParser(text).document();
}

/** A recursive-descent JSON parser that keeps each number's spelling (NumberLiteral where it differs). */
class ExactParser {
  private pos = 0;

  constructor(private readonly text: string) {}

  document(): JsonValue {
    const value = this.value(0);
    this.skipWhitespace();
    if (this.pos < this.text.length) this.fail('expected end of JSON');
    return value;
  }

  private skipWhitespace(): void {
    WHITESPACE.lastIndex = this.pos;
    WHITESPACE.exec(this.text);
    this.pos = WHITESPACE.lastIndex;
  }

  private fail(what: string): never {
    const { pos, text } = this;
    throw new JsonSyntaxError(pos >= text.length ? `unexpected end of JSON (${what})` : `unexpected ${JSON.stringify(text[pos])} (${what})`, pos);
  }

  /** Consumes `char` when it is next; says whether it was. */
  private take(char: string): boolean {
    if (this.text[this.pos] !== char) return false;
    this.pos++;
    return true;
  }

  private string(): string {
    // Find the closing quote, then let JSON.parse validate and decode the escapes of that slice only.
    const { text } = this;
    const start = this.pos;
    let i = start + 1;
    for (;;) {
      const quote = text.indexOf('"', i);
      if (quote < 0) {
        this.pos = text.length;
        return this.fail('unterminated string');
      }
      let backslashes = 0;
      for (let j = quote - 1; j > start && text.charCodeAt(j) === 92; j--) backslashes++;
      if (backslashes % 2 === 0) {
        i = quote;
        break;
      }
      i = quote + 1;
    }
    try {
      const decoded: unknown = JSON.parse(text.slice(start, i + 1));
      this.pos = i + 1;
      return decoded as string;
    } catch {
      this.pos = start;
      return this.fail('invalid string');
    }
  }

  private object(depth: number): JsonObject {
    const obj: JsonObject = {};
    this.skipWhitespace();
    if (this.take('}')) return obj;
    for (;;) {
      this.skipWhitespace();
      if (this.text[this.pos] !== '"') this.fail('expected a property name');
      const key = this.string();
      this.skipWhitespace();
      if (!this.take(':')) this.fail('expected ":"');
      const value = this.value(depth + 1);
      if (key === '__proto__') {
        Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
      } else {
        obj[key] = value;
      }
      this.skipWhitespace();
      if (this.take(',')) continue;
      if (this.take('}')) return obj;
      return this.fail('expected "," or "}"');
    }
  }

  private array(depth: number): JsonValue[] {
    const arr: JsonValue[] = [];
    this.skipWhitespace();
    if (this.take(']')) return arr;
    for (;;) {
      arr.push(this.value(depth + 1));
      this.skipWhitespace();
      if (this.take(',')) continue;
      if (this.take(']')) return arr;
      return this.fail('expected "," or "]"');
    }
  }

  private literal<T extends JsonValue>(word: string, value: T): T {
    if (!this.text.startsWith(word, this.pos)) return this.fail('expected a value');
    this.pos += word.length;
    return value;
  }

  private number(): JsonValue {
    NUMBER.lastIndex = this.pos;
    const m = NUMBER.exec(this.text);
    if (!m) return this.fail('expected a value');
    this.pos = NUMBER.lastIndex;
    const source = m[0];
    const n = Number(source);
    return JSON.stringify(n) === source ? n : new NumberLiteral(source);
  }

  private value(depth: number): JsonValue {
    if (depth > 10_000) this.fail('nesting too deep');
    this.skipWhitespace();
    switch (this.text[this.pos]) {
      case '{':
        this.pos++;
        return this.object(depth);
      case '[':
        this.pos++;
        return this.array(depth);
      case '"':
        return this.string();
      case 't':
        return this.literal('true', true);
      case 'f':
        return this.literal('false', false);
      case 'n':
        return this.literal('null', null);
      default:
        return this.number();
    }
  }
}

/** JSON text for a value, numbers spelled as parsed. `indent` as in JSON.stringify. */
export function stringifyExact(value: JsonValue, indent = 0): string {
  const pad = (level: number): string => (indent > 0 ? '\n' + ' '.repeat(indent * level) : '');
  const colon = indent > 0 ? ': ' : ':';
  const write = (v: JsonValue, level: number): string => {
    if (v === null) return 'null';
    if (v instanceof NumberLiteral) return v.source;
    if (Array.isArray(v)) {
      if (v.length === 0) return '[]';
      return '[' + v.map((item) => pad(level + 1) + write(item, level + 1)).join(',') + pad(level) + ']';
    }
    if (typeof v === 'object') {
      const keys = Object.keys(v);
      if (keys.length === 0) return '{}';
      return (
        '{' +
        keys.map((k) => pad(level + 1) + JSON.stringify(k) + colon + write(v[k] as JsonValue, level + 1)).join(',') +
        pad(level) +
        '}'
      );
    }
    return JSON.stringify(v);
  };
  return write(value, 0);
}

/** Turns any JSON.parse-compatible value (unknown from zod, for instance) into a JsonValue, or undefined. */
export function asJsonValue(value: unknown): JsonValue | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (value instanceof NumberLiteral) return value;
  if (Array.isArray(value)) {
    const out: JsonValue[] = [];
    for (const item of value) {
      const v = asJsonValue(item);
      if (v === undefined) return undefined;
      out.push(v);
    }
    return out;
  }
  if (typeof value === 'object') {
    const out: JsonObject = {};
    for (const [k, item] of Object.entries(value)) {
      const v = asJsonValue(item);
      if (v === undefined) return undefined;
      if (k === '__proto__') {
        Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
      } else {
        out[k] = v;
      }
    }
    return out;
  }
  return undefined;
}
