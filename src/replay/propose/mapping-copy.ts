// The files of `--propose-mappings <dir>`: before the replay, the mappings the replayed gateway reads
// (MAPPINGS_DIR, else the shipped mappings/) are loaded and the destination checked; after it, a complete
// copy of them is written with the edits applied, checked to load with the mapping schema, and only then
// renamed to <dir>. The source directory is only ever read; <dir> must be new or empty, never inside it.
import { cp, mkdir, readdir, readFile, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { MappingSet } from '../../mapping/mapping-set.js';
import type { ReplayGateway } from '../run/gateway-port.js';

/** The destination or the source mappings are unusable: a usage error (exit code 2). */
export class ProposalSetupError extends Error {
  override name = 'ProposalSetupError';
}

export interface ProposalSource {
  /** The mappings directory read (absolute). */
  dir: string;
  /** Its mapping files by relative path (`practitioners.yaml`, `records/practitioner.yaml`), as text. */
  files: Map<string, string>;
  mappings: MappingSet;
  /** Each record's views in the order its file declares them. */
  viewOrder: Map<string, string[]>;
  /** Where the copy goes (absolute). */
  outDir: string;
  /** Loads a mappings folder as the gateway does: the source, then the copy. */
  load: ReplayGateway['loadMappings'];
}

const MAPPING_FILE = /\.(ya?ml|json)$/i;
const RECORDS = 'records';

const isInside = (inner: string, outer: string): boolean => {
  const rel = path.relative(outer, inner);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
};

/** Where the copy is assembled before it is renamed to its name. */
export const partialDirOf = (outDir: string): string => `${path.resolve(outDir)}.partial`;

async function checkDestination(outDir: string, sourceDir: string): Promise<void> {
  if (isInside(outDir, sourceDir) || isInside(sourceDir, outDir)) {
    throw new ProposalSetupError(`--propose-mappings: ${outDir} must be outside the mappings it copies (${sourceDir})`);
  }
  const found = await stat(outDir).catch(() => undefined);
  if (found === undefined) return;
  if (!found.isDirectory() || (await readdir(outDir)).length > 0) {
    throw new ProposalSetupError(`--propose-mappings: ${outDir} already exists and is not an empty directory`);
  }
}

async function mappingTexts(dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const sub of ['', RECORDS]) {
    const names = await readdir(path.join(dir, sub)).catch(() => [] as string[]);
    for (const name of names.filter((n) => MAPPING_FILE.test(n)).sort()) {
      const rel = sub === '' ? name : `${sub}/${name}`;
      files.set(rel, await readFile(path.join(dir, rel), 'utf8'));
    }
  }
  return files;
}

function viewOrderOf(files: ReadonlyMap<string, string>): Map<string, string[]> {
  const order = new Map<string, string[]>();
  for (const [rel, text] of files) {
    if (!rel.startsWith(`${RECORDS}/`)) continue;
    const data = parseYaml(text) as { views?: unknown } | null;
    const views = data && typeof data.views === 'object' && data.views !== null ? Object.keys(data.views) : [];
    order.set(path.basename(rel).replace(MAPPING_FILE, ''), views);
  }
  return order;
}

/** Loads the mappings the replay's gateway reads and checks `<dir>`; throws ProposalSetupError. */
export async function prepareProposalSource(outDirOption: string, env: NodeJS.ProcessEnv, gateway: ReplayGateway): Promise<ProposalSource> {
  const dir = env.MAPPINGS_DIR?.trim() ? path.resolve(env.MAPPINGS_DIR) : gateway.shippedMappingsDir;
  const outDir = path.resolve(outDirOption);
  await checkDestination(outDir, dir);
  let mappings: MappingSet;
  try {
    mappings = (await gateway.loadMappings(dir)).reads;
  } catch (err) {
    throw new ProposalSetupError(`--propose-mappings: the mappings in ${dir} do not load: ${(err as Error).message}`);
  }
  const files = await mappingTexts(dir);
  return { dir, files, mappings, viewOrder: viewOrderOf(files), outDir, load: gateway.loadMappings };
}

/** Writes the whole copy with the edited files, checks that it loads, then gives it its name. */
export async function writeProposedMappings(source: ProposalSource, edited: ReadonlyMap<string, string>): Promise<void> {
  const partial = partialDirOf(source.outDir);
  await rm(partial, { recursive: true, force: true });
  try {
    await mkdir(path.dirname(partial), { recursive: true });
    await cp(source.dir, partial, { recursive: true });
    for (const [rel, text] of edited) await writeFile(path.join(partial, rel), text, 'utf8');
    try {
      await source.load(partial);
    } catch (err) {
      throw new Error(`the proposed mappings do not load: ${(err as Error).message}`);
    }
    // Checked empty before the run; rmdir (not rm -r) refuses if anything arrived in it since.
    if ((await stat(source.outDir).catch(() => undefined)) !== undefined) await rmdir(source.outDir);
    await rename(partial, source.outDir);
  } finally {
    await rm(partial, { recursive: true, force: true });
  }
}
