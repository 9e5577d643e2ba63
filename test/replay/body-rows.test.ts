// The side-by-side rows of two replies: each side reads back as its own pretty-printed JSON (nothing lost,
// nothing invented), the rows of a path line up, the rows of a difference are marked with it, and the
// unchanged runs fold.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isJsonObject, NumberLiteral, stringifyExact, type JsonValue } from '../../src/shared/json-exact.js';
import { diffJson } from '../../src/json-diff/json-diff.js';
import { appendPath, ROOT_PATH } from '../../src/json-diff/json-path.js';
import { bodyRows, type BodyRow, type SideLine } from '../../src/replay/report/html/body-rows.js';
import { foldedRowsHtml, MIN_FOLD } from '../../src/replay/report/html/body-view.js';

const json = (value: JsonValue) => ({ kind: 'json' as const, value });
const text = (t: string) => ({ kind: 'text' as const, text: t });

/** One side's lines as the text they spell, indented two spaces a level. */
function sideText(rows: readonly BodyRow[], side: 'left' | 'right'): string {
  return rows
    .map((r) => r[side])
    .filter((l): l is SideLine => l !== undefined)
    .map((l) => `${'  '.repeat(l.depth)}${l.text}`)
    .join('\n');
}

/**
 * The gateway's value as indented JSON with its object keys in the order the rows show them: the recorded
 * ones first (a plain object cannot hold that order: integer-like keys always come first), except in an
 * object whose keys differ in order only (`ownOrder`), which shows each side in its own order.
 */
function inRecordedOrder(recorded: JsonValue | undefined, gateway: JsonValue, ownOrder: ReadonlySet<string>, level = 0, at = ROOT_PATH): string {
  const pad = (n: number): string => '\n' + '  '.repeat(n);
  if (Array.isArray(gateway)) {
    if (gateway.length === 0) return '[]';
    const items = gateway.map((v, i) => pad(level + 1) + inRecordedOrder(Array.isArray(recorded) ? recorded[i] : undefined, v, ownOrder, level + 1, appendPath(at, i)));
    return `[${items.join(',')}${pad(level)}]`;
  }
  if (!isJsonObject(gateway)) return stringifyExact(gateway);
  if (ownOrder.has(at)) return stringifyExact(gateway, 2).replaceAll('\n', pad(level));
  const old = recorded !== undefined && isJsonObject(recorded) ? recorded : undefined;
  const first = old === undefined ? [] : Object.keys(old).filter((k) => Object.hasOwn(gateway, k));
  const keys = [...first, ...Object.keys(gateway).filter((k) => !first.includes(k))];
  if (keys.length === 0) return '{}';
  const members = keys.map((k) => `${pad(level + 1)}${JSON.stringify(k)}: ${inRecordedOrder(old?.[k], gateway[k] as JsonValue, ownOrder, level + 1, appendPath(at, k))}`);
  return `{${members.join(',')}${pad(level)}}`;
}

const mark = (rows: readonly BodyRow[], leftText: string): BodyRow['mark'] | undefined => rows.find((r) => r.left?.text === leftText)?.mark;

describe('side-by-side body rows', () => {
  it('each side reads back as its own JSON, and the gateway side in the recorded key order', () => {
    const value = fc.jsonValue({ maxDepth: 4 }) as fc.Arbitrary<JsonValue>;
    fc.assert(
      fc.property(value, value, (e, a) => {
        const diffs = diffJson(e, a).differences;
        const rows = bodyRows(json(e), json(a), diffs);
        const ownOrder = new Set(diffs.filter((d) => d.kind === 'key-order').map((d) => d.path));
        expect(sideText(rows, 'left')).toBe(stringifyExact(e, 2));
        expect(sideText(rows, 'right')).toBe(inRecordedOrder(e, a, ownOrder));
        // Every difference of the body starts a marked row, but those inside an object shown in each side's
        // own order, whose every line is marked with the order's difference.
        const inOwnOrder = (path: string) => [...ownOrder].some((o) => path !== o && (path.startsWith(`${o}.`) || path.startsWith(`${o}[`)));
        for (const [i, d] of diffs.entries()) {
          if (inOwnOrder(d.path)) continue;
          const first = diffs.findIndex((x) => x.path === d.path);
          const row = rows.find((r) => r.diff === first);
          expect(row?.mark, `${d.kind} ${d.path} (${i})`).toBe('changed');
        }
      }),
      { numRuns: 300, examples: [[{ h: null, '': '' }, { '': 0, h: '' }]] },
    );
  });

  it('lines up members by key and items by position, marking what differs and the containers around it', () => {
    const recorded: JsonValue = { status: 'success', response: [{ id: '1', first_name: 'Olive', cost: '45.5' }, { id: '2', first_name: 'Ben', gone: '0' }] };
    const gateway: JsonValue = { status: 'success', response: [{ id: '1', first_name: 'Olivia', cost: new NumberLiteral('45.50') }, { id: '2', first_name: 'Ben', phone: 'x' }] };
    const diffs = diffJson(recorded, gateway).differences;
    const rows = bodyRows(json(recorded), json(gateway), diffs);
    const row = (leftText: string) => rows.find((r) => r.left?.text === leftText);
    expect(row('"first_name": "Olive",')).toMatchObject({ right: { depth: 3, text: '"first_name": "Olivia",' }, mark: 'changed', path: '$.response[0].first_name' });
    expect(row('"cost": "45.5"')).toMatchObject({ right: { text: '"cost": 45.50' }, mark: 'changed' });
    expect(row('"gone": "0"')).toMatchObject({ mark: 'changed', path: '$.response[1].gone' });
    expect(row('"gone": "0"')?.right).toBeUndefined();
    expect(rows.find((r) => r.right?.text === '"phone": "x"')).toMatchObject({ mark: 'changed', path: '$.response[1].phone' });
    expect(rows.find((r) => r.right?.text === '"phone": "x"')?.left).toBeUndefined();
    // The lines that open the containers around a change stay as context; the rest is unchanged.
    expect(mark(rows, '"response": [')).toBe('context');
    expect(mark(rows, '"status": "success",')).toBe('same');
    expect(mark(rows, '"id": "1",')).toBe('same');
    // A comma ends a line where its side has a next member, whatever the other side has.
    expect(row('"id": "2",')?.right?.text).toBe('"id": "2",');
    expect(row('"first_name": "Ben",')?.right?.text).toBe('"first_name": "Ben",');
  });

  it('shows a value of another type, a list in another order and a text body whole, as changed', () => {
    const typeRows = bodyRows(json({ response: [{ a: 1 }] }), json({ response: 'not available' }), [{ path: '$.response', kind: 'type' }]);
    expect(typeRows.filter((r) => r.mark === 'changed').map((r) => [r.left?.text, r.right?.text])).toEqual([
      ['"response": [', '"response": "not available"'],
      ['{', undefined],
      ['"a": 1', undefined],
      ['}', undefined],
      [']', undefined],
    ]);
    const orderRows = bodyRows(json(['a', 'b']), json(['b', 'a']), [{ path: '$', kind: 'order' }]);
    expect(orderRows.every((r) => r.mark === 'changed')).toBe(true);
    // A record whose keys come in another order shows each side in its own order.
    const keyOrder = bodyRows(json({ a: 1, b: 2 }), json({ b: 2, a: 1 }), [{ path: '$', kind: 'key-order' }]);
    expect(keyOrder.map((r) => [r.left?.text, r.right?.text, r.mark])).toEqual([
      ['{', '{', 'changed'],
      ['"a": 1,', '"b": 2,', 'changed'],
      ['"b": 2', '"a": 1', 'changed'],
      ['}', '}', 'changed'],
    ]);
    const textRows = bodyRows(text('<html>\n<p>down</p>'), json({ status: 'success' }), [{ path: '$', kind: 'type' }]);
    expect(textRows.map((r) => [r.left?.text, r.right?.text, r.mark])).toEqual([
      ['<html>', '{', 'changed'],
      ['<p>down</p>', '"status": "success"', 'changed'],
      [undefined, '}', 'changed'],
    ]);
    expect(bodyRows({ kind: 'none' }, { kind: 'none' }, [])).toEqual([]);
  });

  it('folds each run of unchanged lines, keeping two lines of context around a change', () => {
    const recorded = { list: Array.from({ length: 20 }, (_, i) => i) };
    const gateway = { list: recorded.list.map((v) => (v === 10 ? 99 : v)) };
    const diffs = diffJson(recorded, gateway).differences;
    const rows = bodyRows(json(recorded), json(gateway), diffs);
    const html = foldedRowsHtml(rows, { entryIndex: 4, diffs, groupIds: [7] });
    // 24 rows: `{`, `"list": [` (context), items 0-9, item 10 (changed), items 11-19, `]`, `}`.
    const folds = [...html.matchAll(/<details class="fold"><summary>([^<]*)<\/summary>/g)].map((m) => m[1]);
    expect(folds).toEqual(['8 unchanged lines', '9 unchanged lines']);
    expect(html).toContain('<div class="ln chg" id="e4-d0" data-group="7" title="$.list[10]: value"><pre class="l" style="--d:2">10,</pre><pre class="r" style="--d:2">99,</pre></div>');
    // A run shorter than MIN_FOLD stays open; a body without any change is one fold.
    const same = bodyRows(json({ a: 1, b: 2 }), json({ a: 1, b: 2 }), []);
    expect(same).toHaveLength(4);
    expect(MIN_FOLD).toBe(4);
    expect(foldedRowsHtml(same, { entryIndex: 0, diffs: [], groupIds: [] })).toMatch(/^<details class="fold"><summary>4 lines, the same on both sides<\/summary>/);
    const short = bodyRows(json({ a: 1 }), json({ a: 1 }), []);
    expect(foldedRowsHtml(short, { entryIndex: 0, diffs: [], groupIds: [] })).not.toContain('<details');
  });
});
