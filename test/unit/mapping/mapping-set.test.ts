import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SHIPPED_MAPPINGS_DIR } from '../../../src/gateway/config.js';
import { loadMappingFiles } from '../../../src/gateway/loaders/mapping-files.js';
import { MappingSetError } from '../../../src/mapping/mapping-set.js';

async function dirWith(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'lgw-mappings-'));
  for (const [name, text] of Object.entries(files)) await writeFile(path.join(dir, name), text);
  return dir;
}

const good = `method: things
description: test
kind: detail
source: { resource: things }
record:
  fields:
    - { name: id }
`;

describe('the mapping set', () => {
  it('loads every shipped mapping: the 13 translated legacy GET methods', async () => {
    const set = await loadMappingFiles(SHIPPED_MAPPINGS_DIR);
    expect([...set.keys()].sort()).toEqual([
      'client', 'clients', 'meetourstaff', 'meetourteam', 'practitioner', 'practitioners', 'service', 'services', 'session', 'sessions', 'staff', 'staffs', 'testimonials',
    ]);
  });

  it('names the file, the path inside it and the reason for a bad file', async () => {
    const dir = await dirWith({ 'a.yaml': good, 'b.yaml': good.replace('things', 'others').replace('{ name: id }', '{ name: id, format: cents }') });
    const err = await loadMappingFiles(dir).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MappingSetError);
    expect((err as MappingSetError).problems).toEqual([
      { file: 'b.yaml', path: 'record.fields.0.format', reason: expect.stringContaining('"text"') },
    ]);
    expect((err as Error).message).toContain('b.yaml: record.fields.0.format:');
  });

  it('refuses unknown keys, duplicate methods, duplicate fields and unreadable YAML', async () => {
    const dir = await dirWith({
      'a.yaml': good,
      'b.yaml': good,
      'c.yaml': good.replace('things', 'c').replace('kind: detail', 'kind: detail\nextra: 1'),
      'd.yaml': good.replace('things', 'd').replace('    - { name: id }', '    - { name: id }\n    - { name: id }'),
      'e.yaml': 'method: [',
    });
    const err = (await loadMappingFiles(dir).catch((e: unknown) => e)) as MappingSetError;
    expect(err.problems.map((p) => p.file)).toEqual(['e.yaml']);
    const dir2 = await dirWith({ 'a.yaml': good, 'b.yaml': good, 'c.yaml': good.replace('things', 'c').replace('kind: detail', 'kind: detail\nextra: 1'), 'd.yaml': good.replace('things', 'd').replace('    - { name: id }', '    - { name: id }\n    - { name: id }') });
    const err2 = (await loadMappingFiles(dir2).catch((e: unknown) => e)) as MappingSetError;
    expect(err2.problems).toEqual([
      { file: 'b.yaml', path: 'method', reason: 'method "things" is also mapped by a.yaml' },
      { file: 'c.yaml', path: '', reason: expect.stringContaining('extra') },
      { file: 'd.yaml', path: 'record.fields.1.name', reason: 'duplicate field "id"' },
    ]);
  });

  it('refuses a missing or empty directory', async () => {
    await expect(loadMappingFiles('/nonexistent/dir')).rejects.toThrow('directory not found');
    await expect(loadMappingFiles(await dirWith({}))).rejects.toThrow('no mapping files found');
  });
});
