// `legacy-gateway usage --url <metrics url>`: who still calls the old API. Fetches GET /usage from a
// gateway's metrics listener (METRICS_PORT) and prints one row per integration (API key fingerprint, and
// the integration's name when INTEGRATIONS_FILE gives one), most recently seen first: calls, last seen, top
// methods, user agents; then, per integration, how it calls: the HTTP statuses it was answered with, its
// payment codes, its call shapes and its calls per UTC day; `--json` prints the reply as it came.
// `--fingerprint-of <key>` prints the fingerprint of a key under GATEWAY_SECRET (`-`: the key is read
// from stdin, out of the shell's history), or, with --url, only that integration's row (docs/usage.md).
// `--html FILE` writes the report as one self-contained page instead (src/retirement/usage-page.ts renders it;
// this command only fetches, reads the `--brownouts` file as the gateway reads it, and writes).
// Exit codes: 0 fine (an integration with no calls counted included), 1 the usage could not be fetched,
// 2 a usage error.
import { writeFile } from 'node:fs/promises';
import { SHIPPED_MAPPINGS_DIR } from '../gateway/config.js';
import { loadBrownouts } from '../gateway/brownouts/brownout-file.js';
import type { BrownoutWindow } from '../gateway/brownouts/brownout-schema.js';
import { usageFingerprint, type IntegrationUsage } from '../gateway/state/usage/usage-tracker.js';
import { renderUsagePage } from '../retirement/usage-page.js';
import { asTheGatewayReadsIt, processIo, readMethodsOf, runReporting, UsageError, type CommandIo, type Environment } from './command-run.js';

export interface UsageOptions {
  url?: string;
  json?: boolean;
  fingerprintOf?: string;
  /** Write the report as one HTML page to this file. */
  html?: string;
  /** With --html: a brownouts file, for the windows that would refuse each integration. */
  brownouts?: string;
  /** With --html: the base URL the integrations' guides are published under (else relative file names). */
  guidesUrl?: string;
  /** With --brownouts: the mappings, for the methods a window names. */
  mappings?: string;
}

export interface UsageIo extends Omit<CommandIo, 'now'> {
  readStdin: () => Promise<string>;
  /** The moment the page is judged at (default: the clock). */
  now?: () => number;
}

/** `--url`, a metrics listener's address: an http:// or https:// URL, or a usage error (exit 2). */
export function listenerAddress(given: string): URL {
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw new UsageError(`--url: not a URL: ${given}`, 2);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError('--url: must be http:// or https://', 2);
  return url;
}

/** The /usage URL of a metrics listener given as `http://host:port`, `.../metrics` or `.../usage`. */
export function usageUrl(given: string): URL {
  const url = listenerAddress(given);
  const path = url.pathname.replace(/\/+$/, '');
  if (path.endsWith('/metrics')) url.pathname = `${path.slice(0, -'/metrics'.length)}/usage`;
  else if (!path.endsWith('/usage')) url.pathname = `${path}/usage`;
  url.search = '';
  return url;
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
/** Text from the gateway as it may reach a terminal. */
export const printable = (text: string): string => text.replace(CONTROL, '');

function isIntegration(value: unknown): value is IntegrationUsage {
  const i = value as Partial<IntegrationUsage> | null;
  return (
    typeof i === 'object' &&
    i !== null &&
    typeof i.fingerprint === 'string' &&
    typeof i.calls === 'number' &&
    typeof i.lastSeen === 'string' &&
    typeof i.methods === 'object' &&
    i.methods !== null &&
    Array.isArray(i.userAgents)
  );
}

/** The reason a gateway gives with a refusal (`{"error": "..."}`), as `: <reason>`; empty when there is none. */
function serverReason(text: string): string {
  try {
    const error = (JSON.parse(text) as { error?: unknown } | null)?.error;
    return typeof error === 'string' && error.trim() !== '' ? `: ${cut(printable(error), 200)}` : '';
  } catch {
    return '';
  }
}

/** What a shared report says of the counts on their way to the store (usage-tracker.ts). */
export interface FlushState {
  flushEveryMs?: number;
  unflushed?: number;
}

export async function fetchUsage(url: URL, io: Pick<UsageIo, 'fetch'>): Promise<{ text: string; integrations: IntegrationUsage[]; flush: FlushState }> {
  let reply: Response;
  try {
    reply = await io.fetch(url, { signal: AbortSignal.timeout(10_000), headers: { accept: 'application/json' } });
  } catch (err) {
    const inner = (err as { cause?: { code?: string; message?: string } }).cause;
    const cause = inner?.code ?? (inner?.message || (err as Error).message || 'error');
    throw new UsageError(`cannot fetch ${url.href}: ${cause}`, 1);
  }
  const text = await reply.text().catch(() => '');
  if (reply.status !== 200) {
    const hint = reply.status === 404 ? ' (is it the metrics listener, METRICS_PORT, of a gateway that serves /usage?)' : '';
    throw new UsageError(`cannot fetch ${url.href}: HTTP ${reply.status}${serverReason(text)}${hint}`, 1);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new UsageError(`cannot fetch ${url.href}: the reply is not JSON`, 1);
  }
  const list = (body as { integrations?: unknown } | null)?.integrations;
  if (!Array.isArray(list) || !list.every(isIntegration)) throw new UsageError(`cannot fetch ${url.href}: the reply is not a usage report`, 1);
  const { flushEveryMs, unflushed } = body as FlushState;
  const flush: FlushState = {};
  if (typeof flushEveryMs === 'number') flush.flushEveryMs = flushEveryMs;
  if (typeof unflushed === 'number') flush.unflushed = unflushed;
  return { text, integrations: list, flush };
}

/** `clients 12, payment 3, ...` (the three most called). */
function topMethods(methods: Record<string, number>): string {
  const sorted = Object.entries(methods).sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1));
  const shown = sorted.slice(0, 3).map(([name, n]) => `${name} ${n}`);
  if (sorted.length > 3) shown.push(`+${sorted.length - 3} more`);
  return printable(shown.join(', '));
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** The table, most recently seen first. */
export function usageTable(integrations: readonly IntegrationUsage[], flush: FlushState = {}): string {
  if (integrations.length === 0) {
    // The replicas write their counts every few seconds: calls just served are not in the shared counts yet.
    if ((flush.unflushed ?? 0) > 0 && flush.flushEveryMs !== undefined) {
      const every = flush.flushEveryMs % 1000 === 0 ? `${flush.flushEveryMs / 1000} seconds` : `${flush.flushEveryMs} ms`;
      return `no legacy calls in the shared counts yet: this gateway has counted ${flush.unflushed} that it writes to Redis every ${every}; ask again in ${every}\n`;
    }
    return 'no legacy calls counted\n';
  }
  const sorted = [...integrations].sort((a, b) => (a.lastSeen === b.lastSeen ? 0 : a.lastSeen < b.lastSeen ? 1 : -1));
  const rows = sorted.map((i) => [
    typeof i.name === 'string' && i.name !== '' ? printable(i.name) : '-',
    printable(i.fingerprint),
    String(i.calls),
    printable(i.lastSeen),
    topMethods(i.methods),
    cut(printable(i.userAgents.join('; ')), 80) || '-',
  ]);
  const header = ['NAME', 'FINGERPRINT', 'CALLS', 'LAST SEEN', 'TOP METHODS', 'USER AGENTS'];
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => (r[c] as string).length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, c) => (c === 2 ? cell.padStart(widths[c] as number) : cell.padEnd(widths[c] as number)))
      .join('  ')
      .trimEnd();
  return `${[header, ...rows].map(line).join('\n')}\n`;
}

type Counts = Readonly<Record<string, number>> | undefined;

const countsOf = (value: unknown): Array<[string, number]> =>
  typeof value === 'object' && value !== null ? Object.entries(value as Record<string, unknown>).filter((e): e is [string, number] => typeof e[1] === 'number') : [];

/** `key n, key n, ...` wrapped under the label's column. */
function countLine(label: string, entries: Array<[string, number]>): string[] {
  if (entries.length === 0) return [];
  const indent = ' '.repeat(18);
  const lines: string[] = [];
  let line = `  ${label.padEnd(16)}`;
  entries.forEach(([key, n], i) => {
    const item = `${printable(key)} ${n}${i < entries.length - 1 ? ',' : ''}`;
    if (line.length > indent.length && line.length + 1 + item.length > 110) {
      lines.push(line.trimEnd());
      line = indent;
    }
    line += line.length === indent.length || line.endsWith(' ') ? item : ` ${item}`;
  });
  lines.push(line.trimEnd());
  return lines;
}

const byKey = (entries: Array<[string, number]>, numeric = false): Array<[string, number]> =>
  [...entries].sort(([a], [b]) => (numeric ? Number(a) - Number(b) : 0) || (a < b ? -1 : a > b ? 1 : 0));
const byCount = (entries: Array<[string, number]>): Array<[string, number]> => [...entries].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1));

/** How each integration calls: statuses, payment codes, call shapes (most used first), calls per UTC day. */
export function usageDetails(integrations: readonly IntegrationUsage[]): string {
  const blocks = integrations.map((i) => {
    const raw = i as IntegrationUsage & { statuses?: Counts; paymentCodes?: Counts; shapes?: Counts; daily?: Counts };
    const lines = [
      ...countLine('statuses', byKey(countsOf(raw.statuses), true)),
      ...countLine('payment codes', byKey(countsOf(raw.paymentCodes), true)),
      ...countLine('call shapes', byCount(countsOf(raw.shapes))),
      ...countLine('daily (UTC)', byKey(countsOf(raw.daily))),
    ];
    if (lines.length === 0) return '';
    const name = typeof i.name === 'string' && i.name !== '' ? `${printable(i.name)} (${printable(i.fingerprint)})` : printable(i.fingerprint);
    return `${name}\n${lines.join('\n')}\n`;
  });
  return blocks.filter((b) => b !== '').join('\n');
}

async function keyToFingerprint(given: string, env: Environment, io: UsageIo): Promise<string> {
  const secret = env.GATEWAY_SECRET;
  if (secret === undefined || secret === '') {
    throw new UsageError(
      '--fingerprint-of: GATEWAY_SECRET is not set; it must be the gateways\' own (without it each gateway process fingerprints under a random secret of its own, which nothing can reproduce)',
      2,
    );
  }
  const key = given === '-' ? (await io.readStdin()).split(/\r?\n/)[0] ?? '' : given;
  return usageFingerprint(secret, key);
}

async function brownoutWindowsOf(file: string, mappings: string): Promise<BrownoutWindow[]> {
  const reads = await readMethodsOf(mappings);
  return asTheGatewayReadsIt(() => loadBrownouts(file, reads).windows, '--brownouts');
}

function guidesBase(given: string): string {
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw new UsageError(`--guides-url: not a URL: ${given}`, 2);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError('--guides-url: must be http:// or https://', 2);
  return url.href;
}

async function writePage(opts: UsageOptions & { url: string; html: string }, env: Environment, io: UsageIo): Promise<void> {
  if (opts.json || opts.fingerprintOf !== undefined) throw new UsageError('--html: not with --json or --fingerprint-of (the page shows every integration)', 2);
  const url = usageUrl(opts.url);
  const guidesUrl = opts.guidesUrl === undefined ? undefined : guidesBase(opts.guidesUrl);
  const brownouts = opts.brownouts === undefined ? undefined : await brownoutWindowsOf(opts.brownouts, opts.mappings ?? (env.MAPPINGS_DIR || SHIPPED_MAPPINGS_DIR));
  const { integrations } = await fetchUsage(url, io);
  const page = renderUsagePage(integrations, { brownouts, guidesUrl, source: url.href }, (io.now ?? Date.now)());
  try {
    await writeFile(opts.html, page);
  } catch (err) {
    throw new UsageError(`--html: cannot write ${opts.html}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, 2);
  }
  io.err(`${opts.html}\n`);
}

async function run(opts: UsageOptions, env: Environment, io: UsageIo): Promise<void> {
  if (opts.html === undefined && (opts.brownouts !== undefined || opts.guidesUrl !== undefined || opts.mappings !== undefined)) {
    throw new UsageError('--brownouts, --guides-url and --mappings: only with --html', 2);
  }
  if (opts.html !== undefined) {
    if (opts.url === undefined) throw new UsageError('--url: required with --html (the metrics listener of a gateway, e.g. http://127.0.0.1:9464)', 2);
    return writePage({ ...opts, url: opts.url, html: opts.html }, env, io);
  }
  const fingerprint = opts.fingerprintOf === undefined ? undefined : await keyToFingerprint(opts.fingerprintOf, env, io);
  if (opts.url === undefined) {
    if (fingerprint === undefined) throw new UsageError('--url: required (the metrics listener of a gateway, e.g. http://127.0.0.1:9464)', 2);
    io.out(`${fingerprint}\n`);
    return;
  }
  const { text, integrations, flush } = await fetchUsage(usageUrl(opts.url), io);
  const shown = fingerprint === undefined ? integrations : integrations.filter((i) => i.fingerprint === fingerprint);
  if (opts.json) io.out(fingerprint === undefined ? (text.endsWith('\n') ? text : `${text}\n`) : `${JSON.stringify({ integrations: shown })}\n`);
  else {
    const details = usageDetails(shown);
    const table = usageTable(shown, fingerprint === undefined ? flush : {});
    io.out(details === '' ? table : `${table}\n${details}`);
  }
}

const defaultIo: UsageIo = {
  ...processIo,
  readStdin: async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  },
};

export const runUsage = (opts: UsageOptions, env: Environment = process.env, io: UsageIo = defaultIo): Promise<void> => runReporting('usage', io, () => run(opts, env, io));
