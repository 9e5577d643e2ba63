// The pure replay diff: kinds (type, format, value, missing, extra, order, key-order), nested paths,
// rules (ignore, unordered, tolerance, pattern), symmetry, and the properties that it never throws and
// that diff(x, x) is empty.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { diffJson, type Difference } from '../../src/json-diff/json-diff.js';
import { NumberLiteral, parseJsonExact, type JsonValue } from '../../src/shared/json-exact.js';
import { parseRules, rulesForMethod } from '../../src/replay/rules/rules-file.js';

const diff = (e: JsonValue, a: JsonValue, rulesYaml?: string, method?: string): Difference[] =>
  diffJson(e, a, rulesYaml ? { rules: rulesForMethod(parseRules(rulesYaml, 'rules.yaml'), method) } : {}).differences;

describe('diffJson kinds', () => {
  it('reports "1" vs 1 as type, never as equal', () => {
    expect(diff({ id: '1' }, { id: 1 })).toEqual([{ path: '$.id', kind: 'type', expected: '1', actual: 1 }]);
    expect(diff(null, '')).toEqual([{ path: '$', kind: 'type', expected: null, actual: '' }]);
    expect(diff(['0'], [false])).toEqual([{ path: '$[0]', kind: 'type', expected: '0', actual: false }]);
  });

  it('reports the same value spelled differently as format', () => {
    expect(diff({ service_cost: '45.5' }, { service_cost: '45.50' })).toEqual([
      { path: '$.service_cost', kind: 'format', expected: '45.5', actual: '45.50' },
    ]);
    expect(diff('45', '45.00')[0]?.kind).toBe('format');
    expect(diff('09:00', '09:00:00')[0]?.kind).toBe('format');
    expect(diff('9:00', '09:00')[0]?.kind).toBe('format');
    expect(diff('2024-03-05', '2024-03-05T00:00:00')[0]?.kind).toBe('format');
    expect(diff('2024-03-05T10:00:00Z', '2024-03-05T11:00:00+01:00')[0]?.kind).toBe('format');
    expect(diff('2024-03-05 10:00:00', '2024-03-05T10:00:00Z')[0]?.kind).toBe('format');
    expect(diff('Tue, 05 Mar 2024 10:00:00 GMT', '2024-03-05T10:00:00Z')[0]?.kind).toBe('format');
    expect(diff(1, parseJsonExact('1.0'))[0]).toEqual({ path: '$', kind: 'format', expected: 1, actual: new NumberLiteral('1.0') });
    expect(diff(100, parseJsonExact('1e2'))[0]?.kind).toBe('format');
  });

  it('keeps real changes as value, including ones that look like spellings', () => {
    expect(diff('45.5', '45.6')[0]?.kind).toBe('value');
    expect(diff('02134', '2134')[0]?.kind).toBe('value'); // leading zeros of a zip code matter
    expect(diff('09:00', '09:01')[0]?.kind).toBe('value');
    expect(diff('2024-03-05', '2024-03-06')[0]?.kind).toBe('value');
    expect(diff('2024-03-05T10:00:00', '2024-03-05T10:00:00-05:00')[0]?.kind).toBe('value');
    expect(diff(true, false)[0]?.kind).toBe('value');
    expect(diff('1', '0')[0]?.kind).toBe('value');
    // Beyond 2^53 JSON.parse would call these equal; the exact parser does not.
    expect(diff(parseJsonExact('12345678901234567891'), parseJsonExact('12345678901234567892'))[0]?.kind).toBe('value');
  });

  it('reports missing and extra fields with the recorded value as expected', () => {
    expect(diff({ a: 1, b: 2 }, { a: 1, c: 3 })).toEqual([
      { path: '$.b', kind: 'missing', expected: 2 },
      { path: '$.c', kind: 'extra', actual: 3 },
    ]);
    expect(diff([1, 2, 3], [1, 2])).toEqual([{ path: '$[2]', kind: 'missing', expected: 3 }]);
    expect(diff([1], [1, 4])).toEqual([{ path: '$[1]', kind: 'extra', actual: 4 }]);
  });

  it('reports an object whose keys come in another order as key-order, with both key lists', () => {
    expect(diff({ status: 'success', total: '2', response: [] }, { response: [], total: '2', status: 'success' })).toEqual([
      { path: '$', kind: 'key-order', expected: ['status', 'total', 'response'], actual: ['response', 'total', 'status'] },
    ]);
    // Each record on its own, at its own path, beside its other differences.
    const e = { response: [{ id: '1', first_name: 'Ann', last_name: 'Lee' }, { id: '2', first_name: 'Bo', last_name: 'Ng' }] };
    const a = { response: [{ id: '1', first_name: 'Ann', last_name: 'Lee' }, { id: '2', last_name: 'Ng', first_name: 'Bob' }] };
    expect(diff(e, a)).toEqual([
      { path: '$.response[1]', kind: 'key-order', expected: ['id', 'first_name', 'last_name'], actual: ['id', 'last_name', 'first_name'] },
      { path: '$.response[1].first_name', kind: 'value', expected: 'Bo', actual: 'Bob' },
    ]);
  });

  it('compares the order of the keys both objects have: a missing or extra key is not also key-order', () => {
    expect(diff({ a: 1, b: 2, c: 3 }, { a: 1, c: 3 }).map((d) => d.kind)).toEqual(['missing']);
    expect(diff({ a: 1, c: 3 }, { a: 1, x: 0, c: 3 }).map((d) => d.kind)).toEqual(['extra']);
    expect(diff({ a: 1, b: 2, c: 3 }, { c: 3, a: 1 }).map((d) => d.kind)).toEqual(['key-order', 'missing']);
  });

  it('leaves ignored keys out of the key order, and --no-check-key-order leaves key order out', () => {
    expect(diff({ ts: 'x', a: 1, b: 2 }, { a: 1, b: 2, ts: 'y' }, 'ignore:\n  - path: $.ts\n')).toEqual([]);
    expect(diffJson({ a: 1, b: 2 }, { b: 2, a: 1 }, { checkKeyOrder: false }).differences).toEqual([]);
  });

  it('reports a reordered list as one order difference, never sorting it away', () => {
    const recorded = [{ id: '1' }, { id: '2' }];
    const replayed = [{ id: '2' }, { id: '1' }];
    expect(diff({ response: recorded }, { response: replayed })).toEqual([
      { path: '$.response', kind: 'order', expected: recorded, actual: replayed },
    ]);
    // Key order inside the elements does not make them different elements.
    expect(diff([{ a: 1, b: 2 }, 3], [3, { b: 2, a: 1 }])).toEqual([{ path: '$', kind: 'order', expected: [{ a: 1, b: 2 }, 3], actual: [3, { b: 2, a: 1 }] }]);
  });

  it('names nested paths the way a rules file writes them', () => {
    const e: JsonValue = { status: 'success', response: [{ id: '1' }, { id: '2', 'hide costs': '0', first_name: 'Ann' }] };
    const a: JsonValue = { status: 'success', response: [{ id: '1' }, { id: '2', 'hide costs': 0, first_name: 'Anne' }] };
    expect(diff(e, a).map((d) => `${d.kind} ${d.path}`)).toEqual([
      'type $.response[1]["hide costs"]',
      'value $.response[1].first_name',
    ]);
  });

  it('compares each element of lists that differ, by position', () => {
    expect(diff([{ id: '1', n: 'a' }], [{ id: '1', n: 'b' }])).toEqual([{ path: '$[0].n', kind: 'value', expected: 'a', actual: 'b' }]);
  });
});

describe('diffJson rules', () => {
  it('ignores paths, with wildcards and any depth, and reports which rules applied', () => {
    const rules = parseRules('ignore:\n  - path: $.response[*].updated_at\n  - path: $..request_id\n  - path: $.never.there\n', 'r.yaml');
    const result = diffJson(
      { response: [{ id: '1', updated_at: 'x' }], meta: { request_id: 'a' } },
      { response: [{ id: '1', updated_at: 'y' }], meta: { request_id: 'b' } },
      { rules: rulesForMethod(rules, 'clients') },
    );
    expect(result.differences).toEqual([]);
    expect(result.matchedRuleIds).toEqual([0, 1]);
  });

  it('an ignored field may also be missing or extra', () => {
    expect(diff({ a: 1, ts: 'x' }, { a: 1 }, 'ignore:\n  - path: $.ts\n')).toEqual([]);
  });

  it('compares unordered lists as multisets and pairs changed elements by key', () => {
    const rules = 'unordered:\n  - path: $.response\n    key: id\n';
    expect(diff({ response: [{ id: '1' }, { id: '2' }] }, { response: [{ id: '2' }, { id: '1' }] }, rules)).toEqual([]);
    expect(
      diff({ response: [{ id: '1', n: 'a' }, { id: '2', n: 'b' }] }, { response: [{ id: '2', n: 'B' }, { id: '1', n: 'a' }, { id: '3', n: 'c' }] }, rules),
    ).toEqual([
      { path: '$.response[1].n', kind: 'value', expected: 'b', actual: 'B' },
      { path: '$.response[2]', kind: 'extra', actual: { id: '3', n: 'c' } },
    ]);
    // The multiset counts duplicates.
    expect(diff({ response: [1, 1, 2] }, { response: [2, 1, 2] }, 'unordered:\n  - path: $.response\n')).toEqual([
      { path: '$.response[1]', kind: 'value', expected: 1, actual: 2 },
    ]);
  });

  it('limits a rule to the legacy methods it names', () => {
    const rules = 'unordered:\n  - path: $.response\n    methods: [meetourteam]\n';
    expect(diff({ response: [1, 2] }, { response: [2, 1] }, rules, 'meetourteam')).toEqual([]);
    expect(diff({ response: [1, 2] }, { response: [2, 1] }, rules, 'staffs')[0]?.kind).toBe('order');
  });

  it('applies numeric tolerance to numbers and decimal strings, never across types', () => {
    const rules = 'tolerance:\n  - path: $..latitude\n    absolute: 0.001\n';
    expect(diff({ latitude: 40.7128 }, { latitude: 40.7131 }, rules)).toEqual([]);
    expect(diff({ latitude: '40.7128' }, { latitude: '40.7131' }, rules)).toEqual([]);
    expect(diff({ latitude: '40.7128' }, { latitude: '40.72' }, rules)[0]?.kind).toBe('value');
    expect(diff({ latitude: '40.7128' }, { latitude: 40.7128 }, rules)[0]?.kind).toBe('type');
    expect(diff({ x: { latitude: 1 } }, { x: { latitude: 1.5 } }, 'tolerance:\n  - path: $..latitude\n    relative: 0.5\n')).toEqual([]);
  });

  it('--no-check-order compares every list as unordered', () => {
    expect(diffJson([1, 2], [2, 1], { checkOrder: false }).differences).toEqual([]);
  });

  it('pattern: two values that both match are equal; with groups, only the groups may differ', () => {
    const rules = rulesForMethod(
      parseRules(
        [
          'pattern:',
          "  - path: $.response",
          "    regex: '^payment added \\(payment id (\\d+)\\)$'",
          '    methods: [payment]',
          "  - path: $.response",
          "    regex: ' \\(client (\\d+)\\)$'",
          '    methods: [payment]',
          "  - path: $..ref",
          "    regex: '^R-\\d+$'",
          "  - path: $.n",
          "    regex: '^\\d{2}$'",
        ].join('\n'),
        'rules.yaml',
      ),
      'payment',
    );
    const run = (e: JsonValue, a: JsonValue) => diffJson(e, a, { rules });
    const paid = run({ response: 'payment added (payment id 41)' }, { response: 'payment added (payment id 97)' });
    expect(paid).toEqual({ differences: [], matchedRuleIds: [0] });
    // The text around the group is compared: another message is a value difference.
    expect(run({ response: 'card declined (client 4)' }, { response: 'payment refused (client 9)' }).differences.map((d) => d.kind)).toEqual(['value']);
    expect(run({ response: 'card declined (client 4)' }, { response: 'card declined (client 9)' })).toEqual({ differences: [], matchedRuleIds: [1] });
    // Only one side matching is a difference; a number is matched by its spelling; a type change stays a type.
    expect(run({ response: 'payment added (payment id 41)' }, { response: 'payment added' }).differences.map((d) => d.kind)).toEqual(['value']);
    expect(run({ x: { ref: 'R-1' } }, { x: { ref: 'R-2' } }).differences).toEqual([]);
    expect(run({ n: 41 }, { n: 97 }).differences).toEqual([]);
    expect(run({ n: 41 }, { n: 970 }).differences.map((d) => d.kind)).toEqual(['value']);
    expect(run({ response: 'payment added (payment id 41)' }, { response: 7 }).differences.map((d) => d.kind)).toEqual(['type']);
    // Equal values never count as a use of the pattern (the runner's shortcut for equal bytes relies on it).
    expect(run({ response: 'payment added (payment id 41)' }, { response: 'payment added (payment id 41)' }).matchedRuleIds).toEqual([]);
    // Limited to the methods it names.
    const other = rulesForMethod(parseRules("pattern:\n  - path: $.response\n    regex: '^a\\d$'\n    methods: [payment]\n", 'r.yaml'), 'clients');
    expect(diffJson({ response: 'a1' }, { response: 'a2' }, { rules: other }).differences.map((d) => d.kind)).toEqual(['value']);
  });
});

const swap = (d: Difference): Difference => {
  const kind = d.kind === 'missing' ? 'extra' : d.kind === 'extra' ? 'missing' : d.kind;
  const out: Difference = { path: d.path, kind };
  if (d.actual !== undefined) out.expected = d.actual;
  if (d.expected !== undefined) out.actual = d.expected;
  return out;
};
const key = (d: Difference): string => `${d.path} ${d.kind} ${JSON.stringify(d.expected)} ${JSON.stringify(d.actual)}`;

describe('diffJson properties', () => {
  const json = fc.jsonValue({ maxDepth: 4 }) as fc.Arbitrary<JsonValue>;

  it('never throws and diff(x, x) is empty', () => {
    fc.assert(
      fc.property(json, (x) => {
        expect(diffJson(x, x).differences).toEqual([]);
        expect(diffJson(x, structuredClone(x)).differences).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('never throws on any pair, with or without rules', () => {
    const rules = rulesForMethod(parseRules('ignore:\n  - path: $..a\nunordered:\n  - path: $.*\n    key: id\ntolerance:\n  - path: $..*\n    absolute: 1\n', 'r'), undefined);
    fc.assert(
      fc.property(json, json, fc.boolean(), (a, b, checkOrder) => {
        diffJson(a, b, { rules, checkOrder });
        diffJson(a, b);
      }),
      { numRuns: 300 },
    );
  });

  it('is symmetric: diff(b, a) is diff(a, b) with expected/actual and missing/extra swapped', () => {
    fc.assert(
      fc.property(json, json, (a, b) => {
        const forward = diffJson(a, b).differences.map(swap).map(key).sort();
        const backward = diffJson(b, a).differences.map(key).sort();
        expect(backward).toEqual(forward);
      }),
      { numRuns: 300 },
    );
  });

  it('is symmetric on near-identical values too (the interesting cases)', () => {
    const mutate = fc.tuple(json, fc.constantFrom('"1"', '1', '"45.50"', '"09:00:00"', '[2,1]', '{"b":1,"a":2}'));
    fc.assert(
      fc.property(mutate, ([x, replacement]) => {
        const a = { v: x, w: [1, 2], s: '45.5' } as JsonValue;
        const b = { v: parseJsonExact(replacement), w: [2, 1], s: '45.50' } as JsonValue;
        const forward = diffJson(a, b).differences.map(swap).map(key).sort();
        expect(diffJson(b, a).differences.map(key).sort()).toEqual(forward);
      }),
    );
  });
});
