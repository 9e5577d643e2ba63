// The exact JSON diff, used by the replay and the gateway's shadow alike: compares an expected JSON value
// (a recorded reply) with an actual one (the gateway's), exactly, and names each difference by kind: `type`
// ("1" vs 1), `format` (same value spelled differently: "45.5" vs "45.50", "09:00" vs "09:00:00", 1 vs 1.0),
// `value`, `missing` (recorded, absent now), `extra` (absent then, present now),
// `order` (the same elements in another order), `key-order` (an object's keys in another order: old
// integrations read a record's fields by position). Key order is the relative order of the keys both
// objects have (a missing or extra key is reported as such, not also as key-order), and is checked unless
// checkKeyOrder is false. An object parsed into JavaScript lists integer-like keys ("1", "2") first,
// whatever their place in the text: their order cannot be checked (legacy records have none). Array order
// matters unless a rule (or checkOrder: false) says a list is unordered. Unlike Diffy, it never sorts a
// list before comparing. A `pattern` rule makes two strings (or number spellings) equal when they differ
// only where the pattern matched.
// Pure and total: it must never throw on any JSON input, never do I/O, and diff(x, x) is always empty.
import { jsonTypeOf, numberSpelling, NumberLiteral, type JsonObject, type JsonValue } from '../shared/json-exact.js';
import { appendPath, matchesPattern, ROOT_PATH, type PathSegment } from './json-path.js';
import { NO_RULES, type CompiledRule, type DiffRules } from './diff-rules.js';
import { canonicalDecimal, decimalStringValue, sameValueSpelledDifferently } from './value-spelling.js';

export const DIFF_KINDS = ['type', 'format', 'value', 'missing', 'extra', 'order', 'key-order', 'status'] as const;
export type DiffKind = (typeof DIFF_KINDS)[number];

export interface Difference {
  /** `$.response[3].first_name`; `HTTP status` for the status line. */
  path: string;
  kind: DiffKind;
  /** The recorded value; absent for `extra`. For `key-order`, the recorded keys in their order. */
  expected?: JsonValue;
  /** The gateway's value; absent for `missing`. For `key-order`, the gateway's keys in their order. */
  actual?: JsonValue;
}

export interface DiffOptions {
  rules?: DiffRules;
  /** false: every list is compared as unordered (`--no-check-order`). Default true. */
  checkOrder?: boolean;
  /** false: an object's key order is not compared (`--no-check-key-order`). Default true. */
  checkKeyOrder?: boolean;
}

export interface DiffResult {
  differences: Difference[];
  /** Ids of the rules that applied somewhere in this comparison (to report rules that never match). */
  matchedRuleIds: number[];
}

/** Compares two JSON values; see the module comment for the kinds. */
export function diffJson(expected: JsonValue, actual: JsonValue, options: DiffOptions = {}): DiffResult {
  const walker = new DiffWalker(options.rules ?? NO_RULES, options.checkOrder ?? true, options.checkKeyOrder ?? true);
  walker.walk(expected, actual, [], ROOT_PATH);
  return { differences: walker.out, matchedRuleIds: [...walker.matched].sort((a, b) => a - b) };
}

class DiffWalker {
  readonly out: Difference[] = [];
  readonly matched = new Set<number>();

  constructor(
    private readonly rules: DiffRules,
    private readonly checkOrder: boolean,
    private readonly checkKeyOrder: boolean,
  ) {}

  private firstMatch(list: readonly CompiledRule[], segments: readonly PathSegment[]): CompiledRule | undefined {
    for (const rule of list) {
      if (matchesPattern(rule.pattern, segments)) {
        this.matched.add(rule.id);
        return rule;
      }
    }
    return undefined;
  }

  private ignored(segments: readonly PathSegment[]): boolean {
    return this.rules.ignore.length > 0 && this.firstMatch(this.rules.ignore, segments) !== undefined;
  }

  /**
   * Two different spellings a pattern rule makes equal. A pattern rule counts as used only when it does
   * so (not whenever its path is met), so the runner's shortcut for byte-identical replies stays valid.
   */
  private equalByPattern(e: string, a: string, segments: readonly PathSegment[]): boolean {
    for (const rule of this.rules.pattern) {
      if (rule.regex === undefined || !matchesPattern(rule.pattern, segments)) continue;
      if (differOnlyWhereMatched(rule.regex, e, a)) {
        this.matched.add(rule.id);
        return true;
      }
    }
    return false;
  }

  walk(e: JsonValue, a: JsonValue, segments: PathSegment[], path: string): void {
    if (this.ignored(segments)) return;
    const te = jsonTypeOf(e);
    const ta = jsonTypeOf(a);
    if (te !== ta) {
      this.out.push({ path, kind: 'type', expected: e, actual: a });
      return;
    }
    switch (te) {
      case 'null':
        return;
      case 'boolean':
        if (e !== a) this.out.push({ path, kind: 'value', expected: e, actual: a });
        return;
      case 'number':
        this.compareNumbers(e as number | NumberLiteral, a as number | NumberLiteral, segments, path);
        return;
      case 'string':
        this.compareStrings(e as string, a as string, segments, path);
        return;
      case 'array':
        this.compareArrays(e as JsonValue[], a as JsonValue[], segments, path);
        return;
      case 'object':
        this.compareObjects(e as JsonObject, a as JsonObject, segments, path);
        return;
    }
  }

  private compareNumbers(
    e: number | NumberLiteral,
    a: number | NumberLiteral,
    segments: PathSegment[],
    path: string,
  ): void {
    const se = numberSpelling(e);
    const sa = numberSpelling(a);
    const tolerance = this.rules.tolerance.length > 0 ? this.firstMatch(this.rules.tolerance, segments) : undefined;
    if (se === sa) return;
    if (this.rules.pattern.length > 0 && this.equalByPattern(se, sa, segments)) return;
    if (canonicalDecimal(se) === canonicalDecimal(sa)) {
      this.out.push({ path, kind: 'format', expected: e, actual: a });
      return;
    }
    if (tolerance && withinTolerance(tolerance, Number(se), Number(sa))) return;
    this.out.push({ path, kind: 'value', expected: e, actual: a });
  }

  private compareStrings(e: string, a: string, segments: PathSegment[], path: string): void {
    const tolerance = this.rules.tolerance.length > 0 ? this.firstMatch(this.rules.tolerance, segments) : undefined;
    if (e === a) return;
    if (this.rules.pattern.length > 0 && this.equalByPattern(e, a, segments)) return;
    if (sameValueSpelledDifferently(e, a)) {
      this.out.push({ path, kind: 'format', expected: e, actual: a });
      return;
    }
    if (tolerance) {
      const ne = decimalStringValue(e);
      const na = decimalStringValue(a);
      if (ne !== undefined && na !== undefined && withinTolerance(tolerance, ne, na)) return;
    }
    this.out.push({ path, kind: 'value', expected: e, actual: a });
  }

  private compareObjects(e: JsonObject, a: JsonObject, segments: PathSegment[], path: string): void {
    if (this.checkKeyOrder) this.compareKeyOrder(e, a, segments, path);
    for (const key of Object.keys(e)) {
      segments.push(key);
      const childPath = appendPath(path, key);
      if (Object.hasOwn(a, key)) {
        this.walk(e[key] as JsonValue, a[key] as JsonValue, segments, childPath);
      } else if (!this.ignored(segments)) {
        this.out.push({ path: childPath, kind: 'missing', expected: e[key] as JsonValue });
      }
      segments.pop();
    }
    for (const key of Object.keys(a)) {
      if (Object.hasOwn(e, key)) continue;
      segments.push(key);
      if (!this.ignored(segments)) this.out.push({ path: appendPath(path, key), kind: 'extra', actual: a[key] as JsonValue });
      segments.pop();
    }
  }

  /** `key-order` at the object's path when the keys both have (and no rule ignores) come in another order. */
  private compareKeyOrder(e: JsonObject, a: JsonObject, segments: PathSegment[], path: string): void {
    const keysE = Object.keys(e);
    const keysA = Object.keys(a);
    const compared = (keys: string[], other: JsonObject): string[] =>
      keys.filter((key) => {
        if (!Object.hasOwn(other, key)) return false;
        segments.push(key);
        const ignored = this.ignored(segments);
        segments.pop();
        return !ignored;
      });
    const sharedE = compared(keysE, a);
    const sharedA = compared(keysA, e);
    if (sharedE.some((key, i) => key !== sharedA[i])) this.out.push({ path, kind: 'key-order', expected: keysE, actual: keysA });
  }

  private compareArrays(e: JsonValue[], a: JsonValue[], segments: PathSegment[], path: string): void {
    const unorderedRule = this.rules.unordered.length > 0 ? this.firstMatch(this.rules.unordered, segments) : undefined;
    const keysE = e.map((v, i) => this.canonicalElement(v, segments, i));
    const keysA = a.map((v, i) => this.canonicalElement(v, segments, i));
    if (unorderedRule || !this.checkOrder) {
      this.compareUnordered(e, a, keysE, keysA, unorderedRule?.key, segments, path);
      return;
    }
    if (e.length === a.length && keysE.some((k, i) => k !== keysA[i]) && sameMultiset(keysE, keysA)) {
      this.out.push({ path, kind: 'order', expected: e, actual: a });
      return;
    }
    const common = Math.min(e.length, a.length);
    for (let i = 0; i < common; i++) {
      segments.push(i);
      this.walk(e[i] as JsonValue, a[i] as JsonValue, segments, appendPath(path, i));
      segments.pop();
    }
    for (let i = common; i < e.length; i++) this.pushUnlessIgnored(segments, i, path, 'missing', e[i] as JsonValue);
    for (let i = common; i < a.length; i++) this.pushUnlessIgnored(segments, i, path, 'extra', a[i] as JsonValue);
  }

  private compareUnordered(
    e: JsonValue[],
    a: JsonValue[],
    keysE: string[],
    keysA: string[],
    pairBy: string | undefined,
    segments: PathSegment[],
    path: string,
  ): void {
    const byKey = new Map<string, number[]>();
    keysA.forEach((k, j) => {
      const list = byKey.get(k);
      if (list) list.push(j);
      else byKey.set(k, [j]);
    });
    const leftE: number[] = [];
    const usedA = new Set<number>();
    keysE.forEach((k, i) => {
      const j = byKey.get(k)?.shift();
      if (j === undefined) {
        leftE.push(i);
        return;
      }
      usedA.add(j);
      // Equal elements: walk anyway so the rules inside register as used; it reports nothing.
      segments.push(i);
      this.walk(e[i] as JsonValue, a[j] as JsonValue, segments, appendPath(path, i));
      segments.pop();
    });
    let leftA = a.map((_, j) => j).filter((j) => !usedA.has(j));
    const pairs: Array<[number, number]> = [];
    if (pairBy !== undefined) {
      const unpairedE: number[] = [];
      for (const i of leftE) {
        const id = fieldKey(e[i] as JsonValue, pairBy);
        const j = id === undefined ? undefined : leftA.find((x) => fieldKey(a[x] as JsonValue, pairBy) === id);
        if (j === undefined) {
          unpairedE.push(i);
        } else {
          pairs.push([i, j]);
          leftA = leftA.filter((x) => x !== j);
        }
      }
      for (const i of unpairedE) this.pushUnlessIgnored(segments, i, path, 'missing', e[i] as JsonValue);
    } else {
      const n = Math.min(leftE.length, leftA.length);
      for (let p = 0; p < n; p++) pairs.push([leftE[p] as number, leftA[p] as number]);
      for (const i of leftE.slice(n)) this.pushUnlessIgnored(segments, i, path, 'missing', e[i] as JsonValue);
      leftA = leftA.slice(n);
    }
    for (const [i, j] of pairs) {
      segments.push(i);
      this.walk(e[i] as JsonValue, a[j] as JsonValue, segments, appendPath(path, i));
      segments.pop();
    }
    for (const j of leftA) this.pushUnlessIgnored(segments, j, path, 'extra', a[j] as JsonValue);
  }

  private pushUnlessIgnored(
    segments: PathSegment[],
    index: number,
    path: string,
    kind: 'missing' | 'extra',
    value: JsonValue,
  ): void {
    segments.push(index);
    if (!this.ignored(segments)) {
      const p = appendPath(path, index);
      this.out.push(kind === 'missing' ? { path: p, kind, expected: value } : { path: p, kind, actual: value });
    }
    segments.pop();
  }

  private canonicalElement(value: JsonValue, segments: PathSegment[], index: number): string {
    segments.push(index);
    const key = this.canonical(value, segments) ?? '~';
    segments.pop();
    return key;
  }

  /**
   * A string equal for exactly-equal values (key order aside), leaving out ignored subtrees, so two lists
   * can be compared as multisets. undefined: the value itself is ignored.
   */
  private canonical(value: JsonValue, segments: PathSegment[]): string | undefined {
    if (this.ignored(segments)) return undefined;
    switch (jsonTypeOf(value)) {
      case 'null':
        return 'n';
      case 'boolean':
        return value ? 't' : 'f';
      case 'number':
        return '#' + numberSpelling(value as number | NumberLiteral);
      case 'string':
        return JSON.stringify(value);
      case 'array': {
        const items = (value as JsonValue[]).map((v, i) => this.canonicalElement(v, segments, i));
        return '[' + items.join(',') + ']';
      }
      case 'object': {
        const obj = value as JsonObject;
        const parts: string[] = [];
        for (const key of Object.keys(obj).sort()) {
          segments.push(key);
          const inner = this.canonical(obj[key] as JsonValue, segments);
          segments.pop();
          if (inner !== undefined) parts.push(JSON.stringify(key) + ':' + inner);
        }
        return '{' + parts.join(',') + '}';
      }
    }
  }
}

function withinTolerance(rule: CompiledRule, e: number, a: number): boolean {
  const delta = Math.abs(e - a);
  if (rule.absolute !== undefined && delta <= rule.absolute) return true;
  return rule.relative !== undefined && delta <= rule.relative * Math.max(Math.abs(e), Math.abs(a));
}

/**
 * Both values match `regex` and are the same once what it matched is set aside: the capturing groups'
 * text, or without groups the whole match. So `^payment added \(payment id (\d+)\)$` makes two payment
 * messages equal whatever their ids, and nothing else.
 */
function differOnlyWhereMatched(regex: RegExp, e: string, a: string): boolean {
  const me = regex.exec(e);
  const ma = regex.exec(a);
  return me !== null && ma !== null && withoutMatchedParts(e, me) === withoutMatchedParts(a, ma);
}

/** The value with each matched part (the groups, or the whole match) replaced by one marker character. */
function withoutMatchedParts(value: string, match: RegExpExecArray): string {
  const all = match.indices ?? [];
  const groups = all.slice(1).filter((span): span is [number, number] => span !== undefined);
  const spans = groups.length > 0 ? groups.sort((x, y) => x[0] - y[0]) : all.slice(0, 1).filter((s): s is [number, number] => s !== undefined);
  let out = '';
  let at = 0;
  for (const [start, end] of spans) {
    // A group nested in one already set aside is inside it.
    if (start < at) continue;
    out += value.slice(at, start) + '\u0000';
    at = end;
  }
  return out + value.slice(at);
}

function sameMultiset(a: readonly string[], b: readonly string[]): boolean {
  const counts = new Map<string, number>();
  for (const k of a) counts.set(k, (counts.get(k) ?? 0) + 1);
  for (const k of b) {
    const n = counts.get(k);
    if (!n) return false;
    counts.set(k, n - 1);
  }
  return true;
}

/** The pairing field of a list element, spelled exactly (so id 1 and id "1" do not pair). */
function fieldKey(value: JsonValue, field: string): string | undefined {
  if (jsonTypeOf(value) !== 'object' || !Object.hasOwn(value as JsonObject, field)) return undefined;
  const v = (value as JsonObject)[field] as JsonValue;
  switch (jsonTypeOf(v)) {
    case 'string':
      return 's' + (v as string);
    case 'number':
      return '#' + numberSpelling(v as number | NumberLiteral);
    case 'boolean':
    case 'null':
      return String(v);
    default:
      return undefined;
  }
}
