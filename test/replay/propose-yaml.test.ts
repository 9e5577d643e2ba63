// The mapping proposal's writer (src/replay/propose/yaml-edits.ts): only the edited nodes change, each under
// a comment with its evidence, the rest of each file byte for byte; view entries that override what an edit
// decides follow it; a retired v1 field is renamed in the method files of its record; JSON files stay JSON.
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { validateMappingSet } from '../../src/mapping/mapping-set.js';
import type { Proposal, ProposedEdit } from '../../src/replay/propose/proposal.js';
import { applyProposals } from '../../src/replay/propose/yaml-edits.js';

const RECORD = `# The legacy team member.
nulls: keep
fields:
  - { name: id }
  - { name: first_name }
  # Phones, as the reference lists them:
  - { name: p_phone, guess: "a guess" }
  - { name: full, derive: { template: "{first_name} {last_name}" } }
  - name: rate
    format: money
  - { name: calendar, missing: true }
  - { name: limit, default: "10" }
views:
  list: [id .. p_phone]
  detail:
    - id .. first_name
    - { name: p_phone, from: phone }
    - full .. limit
  team: [id, { name: first_name, guess: "shown as is" }]
`;

const TEAM = `# The team listing.
method: team
description: Team listing
kind: sorted-list
source: { resource: members, pageSize: 1000, maxPages: 5 }
paging: { default: 20, max: 100 }
sort:
  - { field: priority, type: number, nulls: last }
  - { field: first_name, type: text, nulls: last }
record: member
view: team
`;

const OTHER = `method: others
description: Another record's listing
kind: sorted-list
source: { resource: others, pageSize: 1000, maxPages: 5 }
paging: { default: 20, max: 100 }
sort:
  - { field: first_name, type: text }
record: other
view: list
`;

const FILES = new Map([
  ['records/member.yaml', RECORD],
  ['team.yaml', TEAM],
  ['others.yaml', OTHER],
]);

function proposal(legacyField: string, edit: ProposedEdit, entries = [0, 3]): Proposal {
  return { record: 'member', legacyField, edit, evidence: { agreeing: 4, of: 4, entries }, methods: ['team'] };
}

function changedLines(before: string, after: string): { removed: string[]; added: string[] } {
  const a = before.split('\n');
  const b = after.split('\n');
  return { removed: a.filter((l) => !b.includes(l)), added: b.filter((l) => !a.includes(l)) };
}

describe('applyProposals', () => {
  it('rewrites only the edited field, under its evidence, after any comment already there', () => {
    const out = applyProposals(FILES, [{ proposal: proposal('p_phone', { kind: 'rename', from: 'p_phone', to: 'mobile' }) }]);
    expect([...out.keys()]).toEqual(['records/member.yaml']);
    const text = out.get('records/member.yaml')!;
    expect(text).toContain(
      [
        '  # Phones, as the reference lists them:',
        '  # replay proposal: read v1 `mobile` (was `p_phone`); 4 of 4 records agree (entries 0, 3)',
        '  - { name: p_phone, from: mobile, guess: "a guess" }',
      ].join('\n'),
    );
    // The view entry that read p_phone from another field follows; the others are untouched.
    expect(text).toContain('    # replay proposal: read v1 `mobile` (was `p_phone`); 4 of 4 records agree (entries 0, 3)\n    - { name: p_phone, from: mobile }\n');
    expect(changedLines(RECORD, text).removed).toEqual(['  - { name: p_phone, guess: "a guess" }', '    - { name: p_phone, from: phone }']);
  });

  it('reads a renamed field from its own name without `from`, drops derive and missing, and writes formats', () => {
    const out = applyProposals(FILES, [
      { proposal: proposal('full', { kind: 'rename', from: '{first_name} {last_name}', to: 'display_name' }) },
      { proposal: proposal('calendar', { kind: 'rename', from: 'calendar', to: 'calendar', format: 'hhmm' }) },
      { proposal: proposal('rate', { kind: 'format', field: 'rate', from: 'money', to: 'text' }) },
      { proposal: proposal('limit', { kind: 'default', value: '12', previous: '10' }) },
    ]);
    const text = out.get('records/member.yaml')!;
    const { added, removed } = changedLines(RECORD, text);
    expect(added.filter((l) => !l.trimStart().startsWith('#'))).toEqual([
      '  - { name: full, from: display_name }',
      '  - { name: calendar, format: hhmm }',
      '  - { name: limit, default: "12" }',
    ]);
    expect(removed).toEqual([
      '  - { name: full, derive: { template: "{first_name} {last_name}" } }',
      '    format: money',
      '  - { name: calendar, missing: true }',
      '  - { name: limit, default: "10" }',
    ]);
    expect(text).toContain('  # replay proposal: format text (was money); 4 of 4 records agree (entries 0, 3)\n  - name: rate\n  # replay proposal: read v1 `calendar`');
    expect(text).toContain('  # replay proposal: default "12" (v1 sends no such field); 4 of 4 records agree (entries 0, 3)\n');
    // The default stays text (a plain 12 would load as a number), and the file still loads.
    const data = parse(text) as { fields: Array<Record<string, unknown>> };
    expect(data.fields.find((f) => f.name === 'limit')).toEqual({ name: 'limit', default: '12' });
    expect(() => validateMappingSet({ records: [{ file: 'records/member.yaml', name: 'member', data }], methods: [{ file: 'team.yaml', data: parse(TEAM) }] })).not.toThrow();
  });

  it('keeps a block map a block map, at its indentation', () => {
    const out = applyProposals(FILES, [{ proposal: proposal('rate', { kind: 'rename', from: 'rate', to: 'hourly_rate' }) }]);
    expect(out.get('records/member.yaml')).toContain('  # replay proposal: read v1 `hourly_rate` (was `rate`); 4 of 4 records agree (entries 0, 3)\n  - name: rate\n    from: hourly_rate\n    format: money\n');
  });

  it('renames a retired v1 field where the method files of the same record name it, and says where', () => {
    const p = proposal('first_name', { kind: 'rename', from: 'first_name', to: 'given_name' });
    const out = applyProposals(FILES, [{ proposal: p, retiredV1Field: 'first_name' }]);
    expect(p.edit).toMatchObject({ alsoIn: ['team.yaml: sort.1.field'] });
    expect(changedLines(TEAM, out.get('team.yaml')!)).toEqual({
      removed: ['  - { field: first_name, type: text, nulls: last }'],
      added: [
        '  # replay proposal: v1 `first_name` is now `given_name` (member.first_name: 4 of 4 records agree (entries 0, 3))',
        '  - { field: given_name, type: text, nulls: last }',
      ],
    });
    expect(out.has('others.yaml')).toBe(false);
    // Without retiring (v1 still sends first_name), the method files are left alone.
    const kept = applyProposals(FILES, [{ proposal: proposal('first_name', { kind: 'rename', from: 'first_name', to: 'given_name' }) }]);
    expect([...kept.keys()]).toEqual(['records/member.yaml']);
  });

  it('shortens a long list of entries in a comment', () => {
    const out = applyProposals(FILES, [{ proposal: proposal('id', { kind: 'format', field: 'id', from: 'text', to: 'money' }, [...Array(12).keys()]) }]);
    expect(out.get('records/member.yaml')).toContain('(entries 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, ... (12 entries))');
  });

  it('writes a JSON record file as JSON, with the edits', () => {
    const json = JSON.stringify({ nulls: 'keep', fields: [{ name: 'id' }, { name: 'p_phone' }], views: { list: 'all' } });
    const out = applyProposals(new Map([['records/member.json', json]]), [{ proposal: proposal('p_phone', { kind: 'rename', from: 'p_phone', to: 'mobile' }) }]);
    expect(JSON.parse(out.get('records/member.json')!)).toEqual({ nulls: 'keep', fields: [{ name: 'id' }, { name: 'p_phone', from: 'mobile' }], views: { list: 'all' } });
  });
});
