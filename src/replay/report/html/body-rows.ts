// Lines up the recorded reply and the gateway's, side by side, as rows of pretty-printed JSON: one row per
// line, the same path on both sides (object members by key, in the recorded order then the gateway's new
// keys; list items by position, as the diff compares them; a record whose key order differs, each side in
// its own order). A row that shows a difference, or lies inside a differing value, is `changed`; the lines that open the containers around a change are `context`; every
// other row is `same` and may be folded away by the view.
// Pure: must never do I/O; it must never throw on any pair of JSON values or texts.
import { isJsonObject, stringifyExact, type JsonValue } from '../../../shared/json-exact.js';
import { appendPath, ROOT_PATH } from '../../../json-diff/json-path.js';
import type { ReportBody } from '../body.js';

/** One side of a row: the line's text and its nesting depth. */
export interface SideLine {
  depth: number;
  text: string;
}

export interface BodyRow {
  /** Undefined: this side has nothing on this row. */
  left?: SideLine;
  right?: SideLine;
  mark: 'same' | 'changed' | 'context';
  /** The JSON path of the value the row starts. */
  path: string;
  /** The difference shown on this row (index into the entry's diffs), on the row its path starts. */
  diff?: number;
}

/** The parsed body, or the side's whole text as one text value when it is not JSON. */
export type BodyValue = { kind: 'json'; value: JsonValue } | { kind: 'text'; text: string } | { kind: 'none' };

/**
 * A record whose fields come in another order: each side is shown in its own order (aligning the members by
 * key would hide the very difference), every line marked.
 */
const OWN_ORDER_KINDS = new Set(['key-order']);

interface Walk {
  /** Differences by path: index into the entry's diffs and kind. */
  readonly diffs: ReadonlyMap<string, { index: number; kind: string }>;
  readonly rows: BodyRow[];
}

interface Place {
  path: string;
  depth: number;
  /** `"name": ` on the side's line, per side (a key is the same on both sides when both have it). */
  label: string;
  leftComma: boolean;
  rightComma: boolean;
  /** Inside a differing value: every row is changed. */
  inDiff: boolean;
}

/** Lines of one value, pretty-printed, for one side. */
export function valueLines(value: JsonValue, label: string, depth: number, comma: boolean): SideLine[] {
  const end = comma ? ',' : '';
  if (Array.isArray(value) || isJsonObject(value)) {
    const entries: Array<[string, JsonValue]> = Array.isArray(value)
      ? value.map((v) => ['', v])
      : Object.keys(value).map((k) => [`${JSON.stringify(k)}: `, value[k] as JsonValue]);
    const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
    if (entries.length === 0) return [{ depth, text: `${label}${open}${close}${end}` }];
    const lines: SideLine[] = [{ depth, text: `${label}${open}` }];
    entries.forEach(([key, v], i) => lines.push(...valueLines(v, key, depth + 1, i < entries.length - 1)));
    lines.push({ depth, text: `${close}${end}` });
    return lines;
  }
  return [{ depth, text: `${label}${stringifyExact(value)}${end}` }];
}

function textLines(text: string, depth: number): SideLine[] {
  return text.split(/\r?\n/).map((line) => ({ depth, text: line }));
}

function sideLines(value: BodyValue, place: Place, comma: boolean): SideLine[] {
  if (value.kind === 'none') return [];
  if (value.kind === 'text') return textLines(value.text, place.depth);
  return valueLines(value.value, place.label, place.depth, comma);
}

/** Two unrelated values (other types, or one side absent): each side's lines, zipped. */
function zipRows(walk: Walk, left: BodyValue, right: BodyValue, place: Place, mark: BodyRow['mark']): boolean {
  const l = sideLines(left, place, place.leftComma);
  const r = sideLines(right, place, place.rightComma);
  const diff = walk.diffs.get(place.path);
  for (let i = 0; i < Math.max(l.length, r.length); i++) {
    const row: BodyRow = { mark, path: place.path };
    if (l[i] !== undefined) row.left = l[i];
    if (r[i] !== undefined) row.right = r[i];
    if (i === 0 && diff !== undefined) row.diff = diff.index;
    walk.rows.push(row);
  }
  return mark === 'changed';
}

const json = (value: JsonValue | undefined): BodyValue => (value === undefined ? { kind: 'none' } : { kind: 'json', value });

/** Both sides hold a container of the same type: opening line, members aligned, closing line. */
function containerRows(walk: Walk, e: JsonValue[] | { [k: string]: JsonValue }, a: typeof e, place: Place, selfDiff: boolean): boolean {
  const isList = Array.isArray(e);
  const [open, close] = isList ? ['[', ']'] : ['{', '}'];
  const diff = walk.diffs.get(place.path);
  // An empty side is one line (`[]`, `{}`) on the opening row: the other side's members line up below it.
  const leftEmpty = Object.keys(e).length === 0;
  const rightEmpty = Object.keys(a).length === 0;
  const openText = (empty: boolean, comma: boolean): string => `${place.label}${open}${empty ? `${close}${comma ? ',' : ''}` : ''}`;
  const opener: BodyRow = {
    mark: selfDiff || place.inDiff ? 'changed' : 'same',
    path: place.path,
    left: { depth: place.depth, text: openText(leftEmpty, place.leftComma) },
    right: { depth: place.depth, text: openText(rightEmpty, place.rightComma) },
  };
  if (diff !== undefined) opener.diff = diff.index;
  walk.rows.push(opener);
  const inner = { ...place, depth: place.depth + 1, inDiff: place.inDiff || selfDiff };
  let changed = false;
  if (Array.isArray(e) && Array.isArray(a)) {
    for (let i = 0; i < Math.max(e.length, a.length); i++) {
      const at = { ...inner, path: appendPath(place.path, i), label: '', leftComma: i < e.length - 1, rightComma: i < a.length - 1 };
      changed = pairRows(walk, e[i], a[i], at) || changed;
    }
  } else if (!Array.isArray(e) && !Array.isArray(a)) {
    const leftKeys = Object.keys(e);
    const has = (o: object, key: string): boolean => Object.prototype.hasOwnProperty.call(o, key);
    const keys = [...leftKeys, ...Object.keys(a).filter((k) => !has(e, k))];
    // The gateway's members are shown in this merged order: its last line is the last of them here.
    const lastRight = keys.filter((k) => has(a, k)).at(-1);
    for (const key of keys) {
      const at = {
        ...inner,
        path: appendPath(place.path, key),
        label: `${JSON.stringify(key)}: `,
        leftComma: key !== leftKeys[leftKeys.length - 1],
        rightComma: key !== lastRight,
      };
      changed = pairRows(walk, has(e, key) ? e[key] : undefined, has(a, key) ? a[key] : undefined, at) || changed;
    }
  }
  if (changed && opener.mark === 'same') opener.mark = 'context';
  if (!leftEmpty || !rightEmpty) {
    const closer: BodyRow = { mark: inner.inDiff ? 'changed' : 'same', path: place.path };
    if (!leftEmpty) closer.left = { depth: place.depth, text: `${close}${place.leftComma ? ',' : ''}` };
    if (!rightEmpty) closer.right = { depth: place.depth, text: `${close}${place.rightComma ? ',' : ''}` };
    walk.rows.push(closer);
  }
  return changed || opener.mark === 'changed';
}

/** The rows of one path; true when any of them is changed. */
function pairRows(walk: Walk, e: JsonValue | undefined, a: JsonValue | undefined, place: Place): boolean {
  const selfDiff = walk.diffs.has(place.path);
  if (OWN_ORDER_KINDS.has(walk.diffs.get(place.path)?.kind ?? '')) return zipRows(walk, json(e), json(a), place, 'changed');
  const bothLists = Array.isArray(e) && Array.isArray(a);
  const bothObjects = e !== undefined && a !== undefined && isJsonObject(e) && isJsonObject(a);
  if (bothLists || bothObjects) return containerRows(walk, e as JsonValue[], a as JsonValue[], place, selfDiff);
  const mark = selfDiff || place.inDiff ? 'changed' : 'same';
  return zipRows(walk, json(e), json(a), place, mark);
}

/** A body as the view reads it: JSON parsed, text as text, nothing for an empty or left-out body. */
export function bodyValueOf(body: ReportBody, parse: (text: string) => JsonValue): BodyValue {
  if (body.kind === 'json') return { kind: 'json', value: parse(body.text) };
  if (body.kind === 'text') return { kind: 'text', text: body.text };
  return { kind: 'none' };
}

/**
 * The rows of two replies. `diffs` are the entry's differences; those whose path is not in either body
 * (the HTTP status) are simply not shown here.
 */
export function bodyRows(recorded: BodyValue, gateway: BodyValue, diffs: ReadonlyArray<{ path: string; kind: string }>): BodyRow[] {
  const byPath = new Map<string, { index: number; kind: string }>();
  diffs.forEach((d, index) => {
    if (!byPath.has(d.path)) byPath.set(d.path, { index, kind: d.kind });
  });
  const walk: Walk = { diffs: byPath, rows: [] };
  const place: Place = { path: ROOT_PATH, depth: 0, label: '', leftComma: false, rightComma: false, inDiff: false };
  if (recorded.kind === 'json' && gateway.kind === 'json') pairRows(walk, recorded.value, gateway.value, place);
  else zipRows(walk, recorded, gateway, place, byPath.has(ROOT_PATH) ? 'changed' : 'same');
  return walk.rows;
}
