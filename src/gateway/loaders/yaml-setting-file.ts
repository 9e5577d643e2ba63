// An operator's YAML file that a setting names (INTEGRATIONS_FILE, BROWNOUTS_FILE): read, parsed with duplicate
// keys refused, validated by its schema, and hashed for the reload's log line. Every problem is one
// StaticFileError, `SETTING (file): place: reason`: at start it stops the gateway; on SIGHUP (`settingFileReload`,
// run by reload/mapping-reload.ts) it refuses the file and what is in service stays.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import type { ReloadableSet } from '../reload/mapping-reload.js';
import { StaticFileError } from './static-records.js';

export interface YamlSettingFile<T> {
  /** What the schema made of the file. */
  data: T;
  /** A short SHA-256 of the file, logged at each reload. */
  digest: string;
}

/** Where a problem is in the file: the issue's path (`brownouts.0.start`), or its top level. Given the data as
 * parsed, a file's own `placeOf` may say more (an entry's name). */
export type PlaceOf = (path: readonly PropertyKey[], data: unknown) => string;

const dottedPath: PlaceOf = (path) => path.map(String).join('.') || 'top level';

/** One problem of the file: `BROWNOUTS_FILE (/etc/lgw/brownouts.yaml): brownouts.0.methods: reason`. */
export function settingFileProblem(setting: string, file: string, place: string, reason: string): StaticFileError {
  return new StaticFileError(`${setting} (${file}): ${place}: ${reason}`);
}

/** Reads and validates the file; throws StaticFileError naming the setting, the file, the place and the
 * schema's first issue. */
export function loadYamlSettingFile<S extends z.ZodType>(setting: string, file: string, schema: S, placeOf: PlaceOf = dottedPath): YamlSettingFile<z.output<S>> {
  let text: string;
  let data: unknown;
  try {
    text = readFileSync(file, 'utf8');
    data = parseYaml(text, { uniqueKeys: true });
  } catch (err) {
    throw new StaticFileError(`${setting} (${file}): not a readable YAML file: ${(err as Error).message.split('\n')[0]}`);
  }
  const parsed = schema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw settingFileProblem(setting, file, placeOf(issue.path, data), issue.message);
  }
  return { data: parsed.data, digest: createHash('sha256').update(text).digest('hex').slice(0, 12) };
}

/** The file's reload on SIGHUP, registered with the other sets: `load` reads it again (throwing on a bad
 * file, before anything is swapped), `takeOver` puts what it gave in service. */
export function settingFileReload<T extends { digest: string }>(setting: string, load: () => T, takeOver: (loaded: T) => void): ReloadableSet {
  return {
    name: setting,
    async reload() {
      const loaded = load();
      takeOver(loaded);
      return { digest: loaded.digest };
    },
  };
}
