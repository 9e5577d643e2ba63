// `legacy-gateway retire-check --url <metrics url> --quiet-days N`: may the gateway be switched off? Reads a
// gateway's GET /usage and exits 0 when no integration called the old API in the last N days (by each one's
// last call), else 1 with the list of those that did (name or fingerprint, last call, calls), most recent
// first; for a script or a CI gate. `--quiet-days` defaults to QUIET_DAYS, else 30. Exit codes: 0 quiet,
// 1 called within the days, 2 a usage error or a report that cannot be read (so that 1 always means callers).
import { entryLabel, lastDays, usageEntries, type UsageEntry } from '../retirement/usage-entries.js';
import { processIo, runReporting, UsageError, type CommandIo, type Environment } from './command-run.js';
import { fetchUsage, printable, usageUrl } from './usage.js';

export interface RetireCheckOptions {
  url?: string;
  quietDays?: string;
  json?: boolean;
}

export type RetireCheckIo = CommandIo;

const DAY_MS = 86_400_000;
const DEFAULT_QUIET_DAYS = 30;

function quietDaysOf(given: string | undefined, env: Environment): number {
  const [value, what] = given !== undefined ? [given, '--quiet-days'] : env.QUIET_DAYS ? [env.QUIET_DAYS, 'QUIET_DAYS'] : [String(DEFAULT_QUIET_DAYS), ''];
  const days = Number(value);
  if (!/^\d+$/.test(value) || days < 1 || days > 3650) throw new UsageError(`${what}: a whole number of days from 1 to 3650, not ${value}`, 2);
  return days;
}

/** The calls an entry's daily counts give for the days, when the report counts days. */
function callsInDays(e: UsageEntry, days: readonly string[]): number | undefined {
  if (!e.daily) return undefined;
  return e.daily.filter((d) => days.includes(d.day)).reduce((n, d) => n + d.calls, 0);
}

function table(callers: readonly UsageEntry[], days: readonly string[], quietDays: number): string {
  const withDays = callers.some((e) => e.daily !== undefined);
  const header = ['INTEGRATION', 'LAST CALL', 'CALLS', ...(withDays ? [`LAST ${quietDays} DAYS`] : [])];
  const rows = callers.map((e) => [printable(entryLabel(e)), printable(e.lastSeen), String(e.calls), ...(withDays ? [String(callsInDays(e, days) ?? '-')] : [])]);
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => (r[c] as string).length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, c) => (c >= 2 ? cell.padStart(widths[c] as number) : cell.padEnd(widths[c] as number)))
      .join('  ')
      .trimEnd();
  return `${[header, ...rows].map(line).join('\n')}\n`;
}

async function run(opts: RetireCheckOptions, env: Environment, io: RetireCheckIo): Promise<number> {
  const quietDays = quietDaysOf(opts.quietDays, env);
  if (opts.url === undefined) throw new UsageError('--url: required (the metrics listener of a gateway, e.g. http://127.0.0.1:9464)', 2);
  const url = usageUrl(opts.url);
  let report: Awaited<ReturnType<typeof fetchUsage>>;
  try {
    report = await fetchUsage(url, io);
  } catch (err) {
    // A report that cannot be read says nothing about the callers: never 1, which means some still call.
    if (err instanceof UsageError) throw new UsageError(`${err.message}; nothing was checked`, 2);
    throw err;
  }
  const now = io.now();
  const since = now - quietDays * DAY_MS;
  const entries = usageEntries(report.integrations).sort((a, b) => b.lastSeenMs - a.lastSeenMs);
  const callers = entries.filter((e) => e.lastSeenMs >= since);
  const shared = (JSON.parse(report.text) as { shared?: unknown }).shared === true;
  if (!shared) io.err(`note: ${url.href} counts one gateway process's calls (no REDIS_URL): ask every replica; a restart forgets the calls before it\n`);
  if (opts.json) {
    const list = callers.map((e) => ({ name: e.name ?? null, fingerprint: e.fingerprint, lastSeen: e.lastSeen, calls: e.calls }));
    io.out(`${JSON.stringify({ quiet: callers.length === 0, quietDays, since: new Date(since).toISOString(), shared, integrations: list })}\n`);
    return callers.length === 0 ? 0 : 1;
  }
  const window = `in the last ${quietDays} day${quietDays === 1 ? '' : 's'} (since ${new Date(since).toISOString()})`;
  if (callers.length === 0) {
    const last = entries[0];
    const before = last ? `the last call counted: ${printable(last.lastSeen)} (${printable(entryLabel(last))})` : 'no legacy call counted at all';
    io.out(`quiet: no integration called the old API ${window}; ${before}\n`);
    return 0;
  }
  io.out(`not quiet: ${callers.length} integration${callers.length === 1 ? '' : 's'} called the old API ${window}:\n`);
  io.out(table(callers, lastDays(now, quietDays), quietDays));
  return 1;
}

// Every usage error of this command is exit 2 (a report that cannot be fetched included: see run).
export const runRetireCheck = (opts: RetireCheckOptions, env: Environment = process.env, io: RetireCheckIo = processIo): Promise<void> =>
  runReporting('retire-check', io, () => run(opts, env, io));
