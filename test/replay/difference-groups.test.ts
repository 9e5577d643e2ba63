// Difference groups across a run: indexes generalised into a rules-file pattern, an entry counted once per
// group however many records differ in it, replay-caused differences apart, and a bounded number of groups.
import { describe, expect, it } from 'vitest';
import type { ReplayDifference } from '../../src/replay/report/replay-difference.js';
import { DifferenceGroups, MAX_GROUPS, OTHER_PATHS } from '../../src/replay/report/difference-groups.js';
import { generalisePath, parsePathPattern } from '../../src/json-diff/json-path.js';
import type { ReportEntry } from '../../src/replay/report/entry.js';

const entry = (index: number, legacyMethod: string, diffs: ReplayDifference[]): ReportEntry => ({
  index,
  method: 'GET',
  url: `/api/${legacyMethod}`,
  legacyMethod,
  outcome: diffs.length > 0 ? 'different' : 'identical',
  diffs,
});

describe('difference groups', () => {
  it('generalises list positions and leaves quoted names alone', () => {
    expect(generalisePath('$.response[3].first_name')).toBe('$.response[*].first_name');
    expect(generalisePath('$.response[12].tags[0]')).toBe('$.response[*].tags[*]');
    expect(generalisePath('$["a[1]"][2]["say \\"[3]\\""]')).toBe('$["a[1]"][*]["say \\"[3]\\""]');
    expect(generalisePath('HTTP status')).toBe('HTTP status');
    // The result pastes into a rules file as is.
    expect(parsePathPattern(generalisePath('$.response[3]["hide costs"]')).source).toBe('$.response[*]["hide costs"]');
  });

  it('counts each entry once per group, with its differences, largest group first', () => {
    const groups = new DifferenceGroups();
    groups.add(
      entry(0, 'clients', [
        { path: '$.response[0].first_name', kind: 'value', expected: 'ADA', actual: 'Ada' },
        { path: '$.response[1].first_name', kind: 'value', expected: 'BEN', actual: 'Ben' },
        { path: '$.response[1].zip', kind: 'type', expected: 1, actual: '1' },
      ]),
    );
    groups.add(entry(1, 'clients', []));
    groups.add(entry(2, 'clients', [{ path: '$.response[4].first_name', kind: 'value', expected: 'CY', actual: 'Cy' }]));
    groups.add(entry(3, 'client', [{ path: '$.response.first_name', kind: 'value', expected: 'X', actual: 'x' }]));
    groups.add(entry(4, 'clients', [{ path: '$.response[0].first_name', kind: 'value', expected: 'D', actual: 'd', cause: 'replay' }]));
    expect(groups.list()).toEqual([
      { method: 'clients', path: '$.response[*].first_name', kind: 'value', entries: 2, differences: 3, firstEntry: 0, expected: '"ADA"', actual: '"Ada"' },
      { method: 'client', path: '$.response.first_name', kind: 'value', entries: 1, differences: 1, firstEntry: 3, expected: '"X"', actual: '"x"' },
      { method: 'clients', path: '$.response[*].first_name', kind: 'value', cause: 'replay', entries: 1, differences: 1, firstEntry: 4, expected: '"D"', actual: '"d"' },
      { method: 'clients', path: '$.response[*].zip', kind: 'type', entries: 1, differences: 1, firstEntry: 0, expected: '1', actual: '"1"' },
    ]);
  });

  it('keeps examples short and an absent side absent', () => {
    const groups = new DifferenceGroups();
    groups.add(entry(0, 'staff', [{ path: '$.response', kind: 'missing', expected: 'x'.repeat(500) }]));
    const [group] = groups.list();
    expect(group?.expected).toHaveLength(120);
    expect(group?.expected?.endsWith('…')).toBe(true);
    expect(group).not.toHaveProperty('actual');
  });

  it(`holds at most ${MAX_GROUPS} groups: later paths are counted under their method and kind`, () => {
    const groups = new DifferenceGroups();
    for (let i = 0; i < MAX_GROUPS + 50; i++) groups.add(entry(i, 'clients', [{ path: `$.response.field_${i}`, kind: 'extra', actual: 1 }]));
    const list = groups.list();
    expect(list).toHaveLength(MAX_GROUPS + 1);
    expect(list[0]).toMatchObject({ method: 'clients', path: OTHER_PATHS, kind: 'extra', entries: 50, firstEntry: MAX_GROUPS });
    // A path seen before the cap keeps its own group.
    groups.add(entry(9999, 'clients', [{ path: '$.response.field_3', kind: 'extra', actual: 1 }]));
    expect(groups.list().find((g) => g.path === '$.response.field_3')?.entries).toBe(2);
  });
});
