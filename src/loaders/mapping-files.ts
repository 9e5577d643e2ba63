// Reads every mapping file (*.yaml, *.yml, *.json) of a directory and validates them as one set.
// The only file I/O of the mapping engine; it runs once at start-up, never per request.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { MappingSetError, validateMappingSet, type MappingSet, type MappingSource } from '../mapping/mapping-set.js';

export async function loadMappingFiles(dir: string): Promise<MappingSet> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => /\.(ya?ml|json)$/i.test(n)).sort();
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'directory not found' : 'directory cannot be read';
    throw new MappingSetError([{ file: dir, path: '', reason }]);
  }
  const sources: MappingSource[] = [];
  const problems: MappingSetError['problems'] = [];
  for (const name of names) {
    const file = path.join(dir, name);
    try {
      const text = await readFile(file, 'utf8');
      sources.push({ file: name, data: name.endsWith('.json') ? JSON.parse(text) : parseYaml(text, { uniqueKeys: true }) });
    } catch (err) {
      problems.push({ file: name, path: '', reason: `not readable as ${name.endsWith('.json') ? 'JSON' : 'YAML'}: ${(err as Error).message.split('\n')[0]}` });
    }
  }
  if (problems.length > 0) throw new MappingSetError(problems);
  return validateMappingSet(sources);
}
