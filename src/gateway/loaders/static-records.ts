// Loads the operator-supplied record files that stand in for data v1 does not have (testimonials),
// once at start-up. A bad file stops start-up with its name and the reason; its content is never logged.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { V1Record } from '../../mapping/legacy-record.js';
import type { MappingSet } from '../../mapping/mapping-set.js';

const recordsFile = z.array(z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])));

export class StaticFileError extends Error {
  override name = 'StaticFileError';
}

export function loadStaticRecords(setting: string, file: string): V1Record[] {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new StaticFileError(`${setting} (${file}): not a readable JSON file: ${(err as Error).message.split('\n')[0]}`);
  }
  const parsed = recordsFile.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new StaticFileError(`${setting} (${file}): ${issue.path.join('.') || 'top level'}: ${issue.message} (expected an array of flat records)`);
  }
  return parsed.data;
}

/** The records of every operator file a static mapping names and a setting points at, by setting name. */
export function loadOperatorRecords(mappings: MappingSet, settings: Readonly<Record<string, string | undefined>>): Map<string, V1Record[]> {
  const loaded = new Map<string, V1Record[]>();
  for (const mapping of mappings.values()) {
    if (mapping.kind !== 'static') continue;
    const file = settings[mapping.source.setting];
    if (file !== undefined) loaded.set(mapping.source.setting, loadStaticRecords(mapping.source.setting, file));
  }
  return loaded;
}
