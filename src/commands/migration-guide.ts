// `legacy-gateway migration-guide`: writes the migration guide (src/migration-guide/) as Markdown or one
// self-contained HTML page, for a list of legacy methods (offline, from the mappings), for one integration
// (its methods and call shapes read from a gateway's GET /usage), or for every integration (one file each).
// The mappings are MAPPINGS_DIR's or the shipped set, as the gateway loads them. Exit codes: 0 written,
// 1 the usage could not be fetched or the integration is not in it (the error names those it has), 2 a usage or
// input error.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { SHIPPED_MAPPINGS_DIR } from '../gateway/config.js';
import { integrationCalls, type IntegrationCalls } from '../migration-guide/call-shapes.js';
import { buildMigrationGuide, knownMethods } from '../migration-guide/guide.js';
import { renderHtml } from '../migration-guide/html.js';
import { renderMarkdown } from '../migration-guide/markdown.js';
import { guideFileBase } from '../retirement/guide-file-name.js';
import { loadCommandMappings, processIo, runReporting, UsageError, type CommandIo, type Environment } from './command-run.js';
import { fetchUsage, printable, usageUrl } from './usage.js';

export interface MigrationGuideOptions {
  methods?: string;
  integration?: string;
  fingerprint?: string;
  all?: boolean;
  url?: string;
  format?: string;
  out?: string;
  mappings?: string;
  legacyUrl?: string;
  v1Url?: string;
}

export type MigrationGuideIo = Pick<CommandIo, 'out' | 'err' | 'fetch'>;

const FORMATS = ['md', 'html'] as const;
type Format = (typeof FORMATS)[number];

/** Where the examples' calls go when no option says. */
const EXAMPLE_LEGACY_URL = 'https://legacy.example.com';
const EXAMPLE_V1_URL = 'https://api.example.com';

function formatOf(given: string | undefined): Format {
  const format = given ?? 'md';
  if (!(FORMATS as readonly string[]).includes(format)) throw new UsageError(`--format: md or html, not ${format}`, 2);
  return format as Format;
}

/** Exactly one of --methods, --integration, --fingerprint, --all; the last three need --url. */
function checkChoice(opts: MigrationGuideOptions): void {
  const chosen = [opts.methods !== undefined, opts.integration !== undefined, opts.fingerprint !== undefined, opts.all === true].filter(Boolean).length;
  if (chosen !== 1) throw new UsageError('give one of --methods, --integration, --fingerprint or --all', 2);
  if (opts.methods === undefined && opts.url === undefined) throw new UsageError('--url: required with --integration, --fingerprint or --all (the metrics listener of a gateway)', 2);
  if (opts.all && opts.out === undefined) throw new UsageError('--all: --out DIR is required (one file per integration)', 2);
}

function methodList(given: string, known: readonly string[]): string[] {
  const methods = [...new Set(given.split(',').map((m) => m.trim()).filter((m) => m !== ''))];
  const unknown = methods.filter((m) => !known.includes(m));
  if (methods.length === 0 || unknown.length > 0) {
    throw new UsageError(`--methods: ${unknown.length > 0 ? `unknown ${unknown.join(', ')}` : 'none given'} (the mappings have ${known.join(', ')})`, 2);
  }
  return methods;
}

async function integrationsOf(url: string, io: MigrationGuideIo): Promise<IntegrationCalls[]> {
  const { integrations } = await fetchUsage(usageUrl(url), io);
  return integrations.map((i) => integrationCalls(i as typeof i & { name?: unknown; shapes?: unknown; statuses?: unknown; paymentCodes?: unknown }));
}

/** The shortest fingerprint prefix taken for a whole one (the usage table and the guides' file names show 12). */
const MIN_PREFIX = 8;

/** The integration with this fingerprint, or the one whose fingerprint begins with it (at least 8 characters);
 * a prefix two fingerprints share is refused, naming both. */
function byFingerprint(integrations: readonly IntegrationCalls[], given: string): IntegrationCalls | undefined {
  const exact = integrations.find((i) => i.fingerprint === given);
  if (exact || given.length < MIN_PREFIX) return exact;
  const matches = integrations.filter((i) => i.fingerprint.startsWith(given));
  if (matches.length > 1) throw new UsageError(`--fingerprint ${given}: the start of ${matches.length} fingerprints (${matches.map((i) => i.fingerprint).join(', ')}); give more of it`, 2);
  return matches[0];
}

/** The integrations a usage report knows, for an error that names one it does not: their names, and the
 * fingerprints of the unnamed ones. */
export function knownIntegrations(integrations: readonly IntegrationCalls[]): string {
  if (integrations.length === 0) return 'the report counts no integration yet';
  const names = integrations.flatMap((i) => (i.name !== undefined ? [i.name] : [])).sort();
  const unnamed = integrations.filter((i) => i.name === undefined).map((i) => i.fingerprint);
  const parts = [names.length > 0 ? `named: ${names.join(', ')}` : 'none is named (INTEGRATIONS_FILE)'];
  if (unnamed.length > 0) parts.push(`unnamed, by fingerprint: ${unnamed.join(', ')}`);
  return printable(`the report has ${integrations.length} integration${integrations.length === 1 ? '' : 's'}: ${parts.join('; ')}`);
}

/** The file of an integration's guide (the retirement page links to the same name). */
export function guideFileName(i: IntegrationCalls, format: Format, taken: Set<string>): string {
  return `${guideFileBase(i, taken)}.${format}`;
}

async function run(opts: MigrationGuideOptions, env: Environment, io: MigrationGuideIo): Promise<void> {
  checkChoice(opts);
  const format = formatOf(opts.format);
  const dir = opts.mappings ?? (env.MAPPINGS_DIR || SHIPPED_MAPPINGS_DIR);
  const mappings = await loadCommandMappings(dir);
  const known = knownMethods(mappings.reads, mappings.payment);
  const base = {
    reads: mappings.reads,
    payment: mappings.payment,
    mappingsDigest: mappings.digest,
    bases: { legacy: opts.legacyUrl ?? EXAMPLE_LEGACY_URL, v1: opts.v1Url ?? (env.UPSTREAM_URL || EXAMPLE_V1_URL) },
  };
  const render = (integration: IntegrationCalls | undefined, methods: readonly string[]): string => {
    const doc = buildMigrationGuide({ ...base, integration, methods });
    return format === 'html' ? renderHtml(doc) : renderMarkdown(doc);
  };
  const ordered = (i: IntegrationCalls): string[] => known.filter((m) => i.methods.has(m)).concat([...i.methods.keys()].filter((m) => !known.includes(m)));
  if (opts.methods !== undefined) return write(render(undefined, methodList(opts.methods, known)), opts.out, io);
  const integrations = await integrationsOf(opts.url!, io);
  if (opts.all) {
    if (integrations.length === 0) {
      io.err('no integration in the usage report: no guide written\n');
      return;
    }
    await mkdir(opts.out!, { recursive: true });
    const taken = new Set<string>();
    for (const i of integrations) {
      const file = path.join(opts.out!, guideFileName(i, format, taken));
      await writeFile(file, render(i, ordered(i)));
      io.err(`${file}\n`);
    }
    return;
  }
  const found = opts.integration !== undefined ? integrations.find((i) => i.name === opts.integration) : byFingerprint(integrations, opts.fingerprint!);
  if (!found) {
    const what = opts.integration !== undefined ? `no integration named ${opts.integration}` : `no integration with fingerprint ${opts.fingerprint}`;
    throw new UsageError(`${what} in the usage report; ${knownIntegrations(integrations)}`, 1);
  }
  return write(render(found, ordered(found)), opts.out, io);
}

async function write(text: string, out: string | undefined, io: MigrationGuideIo): Promise<void> {
  if (out === undefined) io.out(text);
  else await writeFile(out, text);
}

export const runMigrationGuide = (opts: MigrationGuideOptions, env: Environment = process.env, io: MigrationGuideIo = processIo): Promise<void> =>
  runReporting('migration-guide', io, async () => {
    try {
      await run(opts, env, io);
    } catch (err) {
      // A guide that cannot be written (the system's error code: ENOENT, EACCES, ...) is an input error.
      const code = (err as NodeJS.ErrnoException).code;
      if (err instanceof UsageError || typeof code !== 'string' || !/^E[A-Z]+$/.test(code)) throw err;
      throw new UsageError(`cannot write: ${(err as Error).message}`, 2);
    }
  });
