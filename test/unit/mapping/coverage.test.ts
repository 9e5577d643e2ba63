// The coverage matrix's guesses: a field is a guess when its own line says so, or when its whole record does
// (`guess:` at the top of the record file), in every view and method that carries it.
import { describe, expect, it } from 'vitest';
import { SHIPPED_MAPPINGS_DIR } from '../../../src/gateway/config.js';
import { loadMappingFiles } from '../../../src/gateway/loaders/mapping-files.js';
import { coverageRows, coverageText, guessOf } from '../../../src/mapping/coverage.js';
import { validateMappingSet, type MappingSet } from '../../../src/mapping/mapping-set.js';
import { recordFileSchema } from '../../../src/mapping/record-schema.js';

const method = (name: string, record: string, view: string) => ({
  file: `${name}.yaml`,
  data: { method: name, description: 'test', kind: 'detail', source: { resource: 'things' }, record, view },
});

/** A set of two methods on two records: `things` (a guess as a whole) and `widgets` (one field guessed). */
function setOf(): MappingSet {
  return validateMappingSet({
    methods: [method('thing', 'thing', 'detail'), method('things', 'thing', 'list'), method('widget', 'widget', 'detail')],
    records: [
      {
        name: 'thing',
        file: 'records/thing.yaml',
        data: {
          guess: 'v1 does not document things',
          fields: [{ name: 'id' }, { name: 'label', from: 'name', guess: 'the legacy sample spells it so' }, { name: 'size', default: '1' }],
          views: { detail: 'all', list: ['id', { name: 'size', format: 'money' }] },
        },
      },
      {
        name: 'widget',
        file: 'records/widget.yaml',
        data: { fields: [{ name: 'id' }, { name: 'colour', missing: true, guess: 'v1 has no colour' }], views: { detail: 'all' } },
      },
    ],
  });
}

const rowsOf = (name: string) => coverageRows(setOf()).filter((r) => r.method === name);

describe('coverage guesses', () => {
  it('a record-level guess makes every field of the record a guess, in every view, keeping a field\'s own reason', () => {
    expect(rowsOf('thing').map((r) => [r.field, r.source, r.guess, r.reason])).toEqual([
      ['id', 'copied', true, { record: 'v1 does not document things' }],
      ['label', 'renamed', true, { field: 'the legacy sample spells it so', record: 'v1 does not document things' }],
      ['size', 'defaulted', true, { record: 'v1 does not document things' }],
    ]);
    // A view's override of a field keeps the record's guess.
    expect(rowsOf('things').map((r) => [r.field, r.format, r.guess, r.reason])).toEqual([
      ['id', 'text', true, { record: 'v1 does not document things' }],
      ['size', 'money', true, { record: 'v1 does not document things' }],
    ]);
  });

  it('a field-level guess makes only that field a guess', () => {
    expect(rowsOf('widget').map((r) => [r.field, r.guess, r.reason])).toEqual([
      ['id', false, undefined],
      ['colour', true, { field: 'v1 has no colour' }],
    ]);
    expect(Object.keys(rowsOf('widget')[0]!)).not.toContain('reason');
  });

  it('the text counts the guesses per method and in all, says why a whole record is one, and marks each field', () => {
    const text = coverageText(setOf());
    expect(text).toContain('/api/thing  <-  /api/v1/things/{id}   (3 fields: copied 1, renamed 1, derived 0, defaulted 1, missing 0; guesses 3)\n  the whole thing record is a guess: v1 does not document things\n');
    expect(text).toMatch(/^ {2}id +copied +id +\[guess: whole record\]$/m);
    expect(text).toMatch(/^ {2}label +renamed +name +\[guess: the legacy sample spells it so\]$/m);
    expect(text).toContain('/api/widget  <-  /api/v1/things/{id}   (2 fields: copied 1, renamed 0, derived 0, defaulted 0, missing 1; guesses 1)\n  id      copied     id\n');
    expect(text).not.toContain('the whole widget record');
    expect(text.split('\n').at(-1)).toBe('3 methods, 7 legacy fields: copied 3, renamed 1, derived 0, defaulted 2, missing 1; guesses 6');
  });

  it('a record guess cannot be written in a field line, and must say why', () => {
    const fields = [{ name: 'id', recordGuess: 'x' }];
    expect(recordFileSchema.safeParse({ fields, views: { list: 'all' } }).success).toBe(false);
    expect(recordFileSchema.safeParse({ guess: '', fields: [{ name: 'id' }], views: { list: 'all' } }).success).toBe(false);
    expect(guessOf({ name: 'id' })).toBeUndefined();
  });

  it('the shipped staff, practitioner, service and session records are guesses as a whole; client and testimonial are not', async () => {
    const set = await loadMappingFiles(SHIPPED_MAPPINGS_DIR);
    const rows = coverageRows(set);
    for (const m of set.values()) {
      const mine = rows.filter((r) => r.method === m.method);
      const whole = ['staff', 'practitioner', 'service', 'session'].includes(m.record.name);
      expect(mine.every((r) => r.guess), m.method).toBe(whole);
      if (whole) expect(mine.every((r) => r.reason?.record?.startsWith(`v1's ${m.record.name} record is not documented`)), m.method).toBe(true);
      else expect(mine.some((r) => r.reason?.record !== undefined), m.method).toBe(false);
    }
    expect(rows.find((r) => r.method === 'staff' && r.field === 'calendar')?.reason).toEqual({
      field: 'v1 has no calendar view setting; the reference documents no default',
      record: "v1's staff record is not documented; field names are taken to be the legacy ones",
    });
    expect(rows.find((r) => r.method === 'client' && r.field === 'email')).toMatchObject({ guess: true, reason: { field: expect.stringContaining('lists email twice') } });
    expect(rows.find((r) => r.method === 'client' && r.field === 'id')).toMatchObject({ guess: false });
  });
});
