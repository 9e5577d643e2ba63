// Loads the operator-supplied record files that stand in for data v1 does not have (testimonials),
// once at start-up. A bad file stops start-up with its name and the reason; its content is never logged.
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import type { V1Record } from '../../mapping/legacy-record.js';

const recordsFile = z.array(z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])));

export class StaticFileError extends Error {
  override name = 'StaticFileError';
}

export async function loadStaticRecords(setting: string, file: string): Promise<V1Record[]> {
  let data: unknown;
  try {
    data = JSON.parse(await readFile(file, 'utf8'));
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
