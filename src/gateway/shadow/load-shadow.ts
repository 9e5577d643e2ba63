// SHADOW_MAPPINGS_DIR at start: the candidate set loaded and validated as MAPPINGS_DIR is (a bad set stops
// the start, exit 2, each problem naming its file under the candidate directory), and SHADOW_DIFF_FILE opened
// for appending. Its read methods only: a candidate's payment file is validated and never used (the payment
// is never shadowed). `loadShadowSet` is also what a reload of SHADOW_MAPPINGS_DIR calls before
// `shadow.replace(set)`.
import path from 'node:path';
import type { Logger } from 'pino';
import { MappingSetError, type MappingSet } from '../../mapping/mapping-set.js';
import type { GatewayConfig } from '../config.js';
import { loadMappingDirectorySync } from '../loaders/mapping-files.js';
import type { ReloadableSet } from '../reload/mapping-reload.js';
import type { ShadowReads } from './shadow-reads.js';
import { openShadowDiffFile, prepareShadowDiffFile, type ShadowDiffFile } from './diff-file.js';

export interface ShadowFiles {
  candidates: MappingSet;
  diffFile?: ShadowDiffFile | undefined;
}

/** The candidate set's read methods; throws MappingSetError with every file named under `dir`. */
export function loadShadowSet(dir: string): MappingSet {
  return loadShadowDirectory(dir).reads;
}

function loadShadowDirectory(dir: string): { reads: MappingSet; digest: string } {
  try {
    return loadMappingDirectorySync(dir);
  } catch (err) {
    if (!(err instanceof MappingSetError)) throw err;
    throw new MappingSetError(err.problems.map((p) => ({ ...p, file: path.isAbsolute(p.file) ? p.file : path.join(dir, p.file) })));
  }
}

/** SHADOW_MAPPINGS_DIR as a set SIGHUP reloads (reload/mapping-reload.ts): read and validated again, then
 * swapped into the shadow reads; an invalid set throws, and the candidate in service stays. */
export function shadowReload(dir: string, shadow: Pick<ShadowReads, 'replace'>): ReloadableSet {
  return {
    name: 'SHADOW_MAPPINGS_DIR',
    async reload() {
      const next = loadShadowDirectory(dir);
      shadow.replace(next.reads);
      return { digest: next.digest, mappings: next.reads.size };
    },
  };
}

/** Undefined when SHADOW_MAPPINGS_DIR is unset (shadow off: SHADOW_DIFF_FILE alone does nothing). */
export function loadShadow(config: Pick<GatewayConfig, 'shadowMappingsDir' | 'shadowDiffFile'>, logger: Logger): ShadowFiles | undefined {
  if (config.shadowMappingsDir === undefined) {
    if (config.shadowDiffFile !== undefined) logger.warn('SHADOW_DIFF_FILE is set without SHADOW_MAPPINGS_DIR: nothing is compared, nothing written');
    return undefined;
  }
  const candidates = loadShadowSet(config.shadowMappingsDir);
  if (config.shadowDiffFile === undefined) return { candidates };
  const file = config.shadowDiffFile;
  prepareShadowDiffFile(file);
  const diffFile = openShadowDiffFile(file, {
    onFull: () => logger.warn({ file }, 'SHADOW_DIFF_FILE: size bound reached, no more lines are written'),
    onError: (err) => logger.warn({ err: err.message }, 'SHADOW_DIFF_FILE: write problem'),
  });
  return { candidates, diffFile };
}
