// The mapping proposal's decision rule and value search (src/replay/propose/decision-rule.ts, value-search.ts):
// an edit only when every examined record agrees, the field's own source preferred in another format, ties
// and shares unexplained, defaults only for a constant v1 never sends, nulls alone proving nothing.
import { describe, expect, it } from 'vitest';
import type { FieldSpec } from '../../src/mapping/record-schema.js';
import { decideField, MIN_DEFAULT_RECORDS, type FieldEvidence } from '../../src/replay/propose/decision-rule.js';
import { searchField, type Observation } from '../../src/replay/propose/value-search.js';
import type { JsonValue } from '../../src/shared/json-exact.js';

function evidence(spec: FieldSpec, rows: Array<[recorded: JsonValue, v1: Record<string, unknown>]>, entryOf = (i: number) => i): FieldEvidence {
  const observations: Observation[] = rows.map(([recorded, v1], i) => ({ entry: entryOf(i), recorded, v1 }));
  return {
    record: 'practitioner',
    legacyField: spec.name,
    spec,
    nulls: 'keep',
    observations,
    unpaired: 0,
    seen: [{ entry: 0, recorded: rows[0]?.[0] ?? null, gateway: null }],
    methods: ['practitioners', 'practitioner'],
    outsideView: false,
  };
}

describe('decideField', () => {
  it('proposes a rename when one v1 field writes every recorded value, with the entries it came from', () => {
    const verdict = decideField(
      evidence({ name: 'p_phone' }, [
        ['555-0101', { id: 1, phone_primary: '555-0101' }],
        [null, { id: 2, phone_primary: null }],
        ['555-0103', { id: 3, phone_primary: '555-0103' }],
      ], (i) => [4, 2, 4][i] as number),
    );
    expect(verdict).toEqual({
      kind: 'proposal',
      proposal: {
        record: 'practitioner',
        legacyField: 'p_phone',
        edit: { kind: 'rename', from: 'p_phone', to: 'phone_primary' },
        evidence: { agreeing: 3, of: 3, entries: [2, 4] },
        methods: ['practitioners', 'practitioner'],
      },
      retiredV1Field: 'p_phone',
    });
  });

  it('names a rename that changes the format, and does not retire an old field v1 still sends', () => {
    const verdict = decideField(
      evidence({ name: 'add_value', from: 'value' }, [
        ['45.50', { value: 'x', amount: 45.5 }],
        ['20.00', { value: 'y', amount: 20 }],
      ]),
    );
    expect(verdict).toMatchObject({ kind: 'proposal', proposal: { edit: { kind: 'rename', from: 'value', to: 'amount', format: 'money' } } });
    expect(verdict).not.toHaveProperty('retiredV1Field');
  });

  it('prefers the field own source in another format over another field that also writes every value', () => {
    const verdict = decideField(
      evidence({ name: 'min_duration' }, [
        ['01:00', { min_duration: '01:00:00', label: '01:00' }],
        ['00:45', { min_duration: '00:45:00', label: '00:45' }],
      ]),
    );
    expect(verdict).toMatchObject({ kind: 'proposal', proposal: { edit: { kind: 'format', field: 'min_duration', from: 'text', to: 'hhmm' } } });
  });

  it('lists a field as unexplained when the best v1 field writes only a share of the values', () => {
    const verdict = decideField(
      evidence({ name: 'p_phone' }, [
        ['555-0101', { phone_primary: '555-0101' }],
        ['555-0102', { phone_primary: '555-0102' }],
        ['555-0103', { phone_primary: '555-9999' }],
      ]),
    );
    expect(verdict).toMatchObject({
      kind: 'unexplained',
      unexplained: { record: 'practitioner', legacyField: 'p_phone', reason: 'best v1 field `phone_primary` (text) writes 2 of 3 recorded values' },
    });
  });

  it('lists a tie as unexplained, naming the v1 fields', () => {
    const verdict = decideField(evidence({ name: 'p_phone' }, [['555-0101', { mobile: '555-0101', phone: '555-0101' }]]));
    expect(verdict).toMatchObject({ kind: 'unexplained', unexplained: { reason: 'a tie: `mobile`, `phone` each hold every recorded value (1)' } });
  });

  it('takes no proof from nulls alone', () => {
    const verdict = decideField(evidence({ name: 's_phone' }, [[null, { id: 1, other: null, s_phone: 'x' }], [null, { id: 2, other: null, s_phone: 'y' }]]));
    expect(verdict).toMatchObject({ kind: 'unexplained', unexplained: { reason: 'no v1 field holds the recorded values (2 examined)' } });
  });

  it('proposes a default for one text on every record when v1 sends the field in none, from MIN_DEFAULT_RECORDS records', () => {
    const rows: Array<[JsonValue, Record<string, unknown>]> = [
      ['month', { id: 1 }],
      ['month', { id: 2 }],
    ];
    expect(MIN_DEFAULT_RECORDS).toBe(2);
    expect(decideField(evidence({ name: 'calendar', missing: true }, rows))).toMatchObject({
      kind: 'proposal',
      proposal: { edit: { kind: 'default', value: 'month' }, evidence: { agreeing: 2, of: 2 } },
    });
    expect(decideField(evidence({ name: 'sessionLimit', default: '10' }, [['12', { id: 1 }], ['12', { id: 2 }]]))).toMatchObject({
      proposal: { edit: { kind: 'default', value: '12', previous: '10' } },
    });
    // One record is no sign of a constant; nor is a field v1 sends (even as null); nor two texts.
    expect(decideField(evidence({ name: 'calendar' }, rows.slice(0, 1))).kind).toBe('unexplained');
    expect(decideField(evidence({ name: 'calendar' }, [['month', { id: 1, calendar: null }], ['month', { id: 2 }]])).kind).toBe('unexplained');
    expect(decideField(evidence({ name: 'calendar' }, [['month', { id: 1 }], ['week', { id: 2 }]])).kind).toBe('unexplained');
    // A default the field's format would write otherwise cannot give the recorded text back.
    expect(decideField(evidence({ name: 'start', format: 'hhmm' }, [['08:00:00', { id: 1 }], ['08:00:00', { id: 2 }]])).kind).toBe('unexplained');
  });

  it('renames a derived field from its template', () => {
    const verdict = decideField(evidence({ name: 'full', derive: { template: '{first} {last}' } }, [['Ada L', { first: 'Ada', last: 'Lovelace', display: 'Ada L' }]]));
    expect(verdict).toMatchObject({ kind: 'proposal', proposal: { edit: { kind: 'rename', from: '{first} {last}', to: 'display' } } });
    expect(verdict).not.toHaveProperty('retiredV1Field');
  });

  it('says so when v1 holds the values only in a spelling no format writes', () => {
    const verdict = decideField(evidence({ name: 'hire_date' }, [['2024-03-05', { hired_at: '2024-03-05T00:00:00Z' }]]));
    expect(verdict).toMatchObject({ kind: 'unexplained', unexplained: { reason: '`hired_at` holds them, some only in a spelling no mapping format writes' } });
  });

  it('has nothing to say about a field the mapping already writes from v1 (its difference came from elsewhere)', () => {
    expect(decideField(evidence({ name: 'last_name' }, [['Hopper', { last_name: 'Hopper' }]]))).toEqual({ kind: 'explained' });
  });

  it('lists fields it could not judge: none paired, or outside the view', () => {
    expect(decideField({ ...evidence({ name: 'x' }, []), unpaired: 3 })).toMatchObject({ kind: 'unexplained', unexplained: { reason: 'no v1 record behind its calls could be read (3 records)' } });
    expect(decideField({ ...evidence({ name: 'legacy_flag' }, []), outsideView: true })).toMatchObject({
      kind: 'unexplained',
      unexplained: { reason: 'the view of these methods does not write this field' },
    });
  });
});

describe('searchField', () => {
  it('writes each v1 field in each format with the engine, and never proposes a name a mapping cannot hold', () => {
    const search = searchField({ name: 'flag' }, [
      { entry: 0, recorded: '1', v1: { object: '1', active: true, 'has space': '1', count: 1 } },
      { entry: 1, recorded: '0', v1: { object: '0', active: false, 'has space': '0', count: 2 } },
    ], 'keep');
    expect(search.candidates.map((c) => `${c.field} ${c.format} ${c.agreeing}`)).toEqual(['active text 2', 'count text 1']);
    expect(search.currentAgreeing).toBe(0);
  });
});
