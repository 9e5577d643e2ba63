import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SHIPPED_MAPPINGS_DIR } from '../../../src/gateway/config.js';
import { loadMappingDirectorySync, loadMappingFiles } from '../../../src/gateway/loaders/mapping-files.js';
import { MappingSetError, validateMappingSet } from '../../../src/mapping/mapping-set.js';

const BAD = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/bad-mappings');

/** A mappings directory holding these files (`records/x.yaml` lands in records/). */
async function dirWith(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'lgw-mappings-'));
  for (const [name, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), text);
  }
  return dir;
}

const good = `method: things
description: test
kind: detail
source: { resource: things }
record: thing
view: detail
`;

const thing = `fields:
  - { name: id }
  - { name: name }
views:
  detail: all
`;

const parseGood = () => ({ method: 'things', description: 'test', kind: 'detail', source: { resource: 'things' } });

const problemsOf = async (dir: string): Promise<MappingSetError['problems']> => {
  const err = await loadMappingFiles(dir).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(MappingSetError);
  return (err as MappingSetError).problems;
};

describe('the mapping set', () => {
  it('loads every shipped mapping: the 13 translated legacy GET methods, each naming its record and view', async () => {
    const set = await loadMappingFiles(SHIPPED_MAPPINGS_DIR);
    expect([...set.keys()].sort()).toEqual([
      'client', 'clients', 'meetourstaff', 'meetourteam', 'practitioner', 'practitioners', 'service', 'services', 'session', 'sessions', 'staff', 'staffs', 'testimonials',
    ]);
    const views = Object.fromEntries([...set.values()].map((m) => [m.method, `${m.record.name}.${m.record.view}`]));
    expect(views).toMatchObject({ clients: 'client.list', client: 'client.detail', meetourteam: 'practitioner.team', meetourstaff: 'staff.team', testimonials: 'testimonial.list' });
  });

  it('gives each method its view of the record: the list is the start of the detail, the detail alone carries its guess', async () => {
    const set = await loadMappingFiles(SHIPPED_MAPPINGS_DIR);
    const names = (method: string) => set.get(method)!.record.fields.map((f) => f.name);
    expect(names('client').slice(0, names('clients').length)).toEqual(names('clients'));
    expect(names('client')).toHaveLength(49);
    expect(set.get('clients')!.record.fields.find((f) => f.name === 'email')?.guess).toBeUndefined();
    expect(set.get('client')!.record.fields.find((f) => f.name === 'email')?.guess).toContain('lists email twice');
    expect(names('staff')).not.toContain('admin_id');
    expect(names('meetourstaff')).toEqual(['admin_id', 'staff_settings_id', 'staff_id', 'first_name', 'last_name', 'position', 'excerpt', 'priority', 'headshot_url']);
    // The practitioner record is a guess as a whole (its `guess:`), so every field of every view carries why.
    const recordGuess = "v1's practitioner record is not documented; field names are taken to be the legacy ones";
    expect(set.get('meetourteam')!.record.fields[1]).toEqual({ name: 'pract_id', from: 'id', recordGuess });
    expect(set.get('session')!.record.fields).toEqual(set.get('sessions')!.record.fields);
  });

  it('loads the same set synchronously (start-up of a library factory)', async () => {
    const { reads, payment } = loadMappingDirectorySync(SHIPPED_MAPPINGS_DIR);
    expect(reads).toEqual(await loadMappingFiles(SHIPPED_MAPPINGS_DIR));
    expect(payment).toBeDefined();
    expect(() => loadMappingDirectorySync('/nonexistent/dir')).toThrow(MappingSetError);
  });

  it('names the file, the path inside it and the reason for a bad file', async () => {
    const dir = await dirWith({ 'a.yaml': good, 'b.yaml': good.replace('things', 'others'), 'records/thing.yaml': thing.replace('{ name: name }', '{ name: name, format: cents }') });
    const err = await loadMappingFiles(dir).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MappingSetError);
    expect((err as MappingSetError).problems).toEqual([
      { file: 'records/thing.yaml', path: 'fields.1.format', reason: 'must be one of text, money, hhmm; got "cents"' },
    ]);
    expect((err as Error).message).toContain('records/thing.yaml: fields.1.format:');
  });

  it('refuses unreadable YAML before anything else', async () => {
    const dir = await dirWith({ 'a.yaml': good, 'b.yaml': good, 'e.yaml': 'method: [', 'records/thing.yaml': thing, 'records/r.yaml': 'fields: [' });
    expect((await problemsOf(dir)).map((p) => p.file)).toEqual(['records/r.yaml', 'e.yaml']);
  });

  it('refuses unknown keys, duplicate methods, duplicate fields and duplicate records', async () => {
    const dir = await dirWith({
      'a.yaml': good,
      'b.yaml': good,
      'c.yaml': good.replace('things', 'c').replace('kind: detail', 'kind: detail\nextra: 1'),
      'd.yaml': good.replace('things', 'd').replace('record: thing', 'record: twice'),
      'records/thing.yaml': thing,
      'records/twice.yaml': thing.replace('  - { name: id }', '  - { name: id }\n  - { name: id }'),
      'records/thing.json': '{"fields": [{"name": "id"}], "views": {"detail": "all"}}',
    });
    expect(await problemsOf(dir)).toEqual([
      { file: 'records/thing.yaml', path: '', reason: 'record "thing" is also described by records/thing.json' },
      { file: 'records/twice.yaml', path: 'fields.1.name', reason: 'duplicate field "id"' },
      { file: 'b.yaml', path: 'method', reason: 'method "things" is also mapped by a.yaml' },
      { file: 'c.yaml', path: '', reason: expect.stringContaining('extra') },
    ]);
  });

  it('refuses a method naming an unknown record, or a view its record does not have', async () => {
    expect(await problemsOf(path.join(BAD, 'unknown-record'))).toEqual([
      { file: 'staffs.yaml', path: 'record', reason: 'unknown record "staffs" (records: staff)' },
    ]);
    expect(await problemsOf(path.join(BAD, 'unknown-view'))).toEqual([
      { file: 'staffs.yaml', path: 'view', reason: 'record "staff" has no view "summary" (its views: list, team)' },
    ]);
  });

  it('refuses a view naming a field the record does not describe, in the record file only', async () => {
    const err = await loadMappingFiles(path.join(BAD, 'unknown-field')).catch((e: unknown) => e);
    expect((err as MappingSetError).problems).toEqual([
      { file: 'records/staff.yaml', path: 'views.team.5', reason: 'unknown field "headshot_url"' },
    ]);
    expect((err as Error).message).toBe('invalid mappings:\n  records/staff.yaml: views.team.5: unknown field "headshot_url"');
  });

  it('reports a bad view entry at its own path, not as a shape that matched nothing', () => {
    const problems = (views: unknown) => {
      const record = { file: 'records/r.yaml', name: 'r', data: { fields: [{ name: 'id' }], views } };
      try {
        validateMappingSet({ records: [record], methods: [{ file: 'm.yaml', data: { ...parseGood(), record: 'r', view: 'v' } }] });
      } catch (err) {
        return (err as MappingSetError).problems;
      }
      return [];
    };
    expect(problems({ v: ['id', { name: 'id', format: 'cents' }] })).toEqual([
      { file: 'records/r.yaml', path: 'views.v.1.format', reason: 'must be one of text, money, hhmm; got "cents"' },
    ]);
    expect(problems({ v: 'every' })).toEqual([{ file: 'records/r.yaml', path: 'views.v', reason: 'a view written as one word must be `all`, got "every"' }]);
    expect(problems({ v: ['id', 5] })).toEqual([{ file: 'records/r.yaml', path: 'views.v.1', reason: expect.stringContaining('a view entry is a field name') }]);
  });

  it('refuses the serve fixture for its paging maximum alone', async () => {
    expect(await problemsOf(BAD)).toEqual([
      { file: 'staff.yaml', path: 'paging.max', reason: 'must be a whole number from 1 to 1000, got 5000' },
    ]);
  });

  it('refuses a missing or empty directory, and methods when records/ is missing', async () => {
    await expect(loadMappingFiles('/nonexistent/dir')).rejects.toThrow('directory not found');
    await expect(loadMappingFiles(await dirWith({}))).rejects.toThrow('no mapping files found');
    expect(await problemsOf(await dirWith({ 'a.yaml': good }))).toEqual([
      { file: 'a.yaml', path: 'record', reason: 'unknown record "thing" (records: none)' },
    ]);
  });
});
