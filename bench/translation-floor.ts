// The translation measured in this process, one call at a time, with no HTTP around it: a v1 page's bytes
// in, the legacy reply out. For the client list (10, 100, 1000 records) it times the bytes decoded and
// parsed alone (the floor of any translation that reads the whole reply with JSON.parse), the minimal
// reshaper's work (minimal-reshape.ts), the gateway's engine (dist/mapping, the shipped mappings) and the
// engine's translation from bytes to bytes (dist/mapping/byte-translation; checked first to give the UTF-8
// of the engine's text, so that a declined or wrong page is never what is timed); for the team listing, the engine reading every
// page of a 10,000-member roster, sorting and cutting. The load
// rows say what the whole gateway does under load; these say where the floor lies, so a target can be
// judged against what no translation can go below.
import path from 'node:path';
import { client, listText, practitioner } from './fake-records.js';
import { reshapeList, type V1ListPage } from './minimal-reshape.js';

/** The engine's port: each reply handed off in a box it takes once (src/shared/hand-off.ts). */
type V1Get = (call: { path: string; query: Record<string, string> }) => Promise<{ take(): unknown }>;
const boxed = (value: unknown) => ({ take: () => value });
type Call = { segments: string[]; query: Array<[string, string]> };
interface Engine {
  compileMapping(mapping: unknown): unknown;
  runMappingText(compiled: unknown, call: Call, deps: { v1Get: V1Get; accountTimezone: undefined; staticRecords: () => undefined }): Promise<{ take(): string | Buffer }>;
}
type ByteTranslation = (page: Buffer, accountTimezone: undefined) => { bytes: Buffer } | undefined;
interface ByteTranslationModule {
  compileListByteTranslation(mapping: unknown): ByteTranslation | undefined;
}
interface Loader {
  loadMappingDirectorySync(dir: string): { reads: ReadonlyMap<string, unknown> };
}

export interface FloorFigure {
  records: number;
  decodeParseMs: number;
  minimalMs: number;
  engineMs: number;
  /** The bytes translated to the reply's bytes (list-translation.ts), without decoding or JSON.parse. */
  bytesMs: number;
}

export interface TranslationFloor {
  lists: FloorFigure[];
  team: { members: number; decodeParseMs: number; engineMs: number };
}

/** Median milliseconds of one call of `work`, over batches run for about `budgetMs` after a warm-up. */
async function timeOf(work: () => unknown, budgetMs = 400): Promise<number> {
  const batch = async (n: number): Promise<number> => {
    const start = process.hrtime.bigint();
    for (let i = 0; i < n; i++) await work();
    return Number(process.hrtime.bigint() - start) / 1e6 / n;
  };
  const once = await batch(3);
  const perBatch = Math.max(1, Math.round(20 / Math.max(once, 0.001)));
  for (let warm = performance.now(); performance.now() - warm < budgetMs / 4; ) await batch(perBatch);
  const samples: number[] = [];
  for (let start = performance.now(); performance.now() - start < budgetMs || samples.length < 5; ) samples.push(await batch(perBatch));
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)]!;
}

const decodeParse = (bytes: Buffer): unknown => JSON.parse(bytes.toString('utf8'));

/** Every page of `members` practitioners at v1's largest page size, as the team listing reads them. */
function teamPages(members: number): Map<string, Buffer> {
  const pages = new Map<string, Buffer>();
  for (let offset = 0; offset < members; offset += 1000) pages.set(String(offset), Buffer.from(listText(members, offset, 1000, practitioner)));
  return pages;
}

/** `distDir`: the built project's dist/ (the engine and the mapping loader are read from there). */
export async function measureTranslationFloor(distDir: string, mappingsDir: string): Promise<TranslationFloor> {
  const engine = (await import(path.join(distDir, 'mapping', 'run.js'))) as Engine;
  const loader = (await import(path.join(distDir, 'gateway', 'loaders', 'mapping-files.js'))) as Loader;
  const translations = (await import(path.join(distDir, 'mapping', 'byte-translation', 'list-translation.js'))) as ByteTranslationModule;
  const { reads } = loader.loadMappingDirectorySync(mappingsDir);
  const compiled = (method: string) => engine.compileMapping(reads.get(method));
  const clients = compiled('clients');
  const translate = translations.compileListByteTranslation(reads.get('clients'));
  if (!translate) throw new Error('the clients mapping has no byte translation');
  const lists: FloorFigure[] = [];
  for (const records of [10, 100, 1000]) {
    const bytes = Buffer.from(listText(100_000, 0, records, client));
    const call: Call = { segments: ['0', String(records)], query: [] };
    const v1Get: V1Get = async () => boxed(decodeParse(bytes));
    const engineText = (await engine.runMappingText(clients, call, { v1Get, accountTimezone: undefined, staticRecords: () => undefined })).take();
    if (!translate(bytes, undefined)?.bytes.equals(Buffer.from(engineText))) throw new Error(`clients ${records}: the byte translation does not give the engine's bytes`);
    lists.push({
      records,
      decodeParseMs: await timeOf(() => decodeParse(bytes)),
      minimalMs: await timeOf(() => reshapeList(decodeParse(bytes) as V1ListPage)),
      engineMs: await timeOf(() => engine.runMappingText(clients, call, { v1Get, accountTimezone: undefined, staticRecords: () => undefined })),
      bytesMs: await timeOf(() => translate(bytes, undefined)),
    });
  }
  const members = 10_000;
  const pages = teamPages(members);
  const pageOf: V1Get = async ({ query }) => boxed(decodeParse(pages.get(query.offset ?? '0')!));
  const team = compiled('meetourteam');
  const teamCall: Call = { segments: ['0', '20'], query: [] };
  return {
    lists,
    team: {
      members,
      decodeParseMs: await timeOf(() => [...pages.values()].forEach(decodeParse), 800),
      engineMs: await timeOf(() => engine.runMappingText(team, teamCall, { v1Get: pageOf, accountTimezone: undefined, staticRecords: () => undefined }), 800),
    },
  };
}
