// `legacy-gateway brownout --dry-run --file <brownouts.yaml> [--url <metrics url>]`: before a brownouts file
// goes into service (BROWNOUTS_FILE), what it would do. The file is read and checked as the gateway reads it
// (gateway/brownouts/brownout-file.ts, its methods against the mappings); for each window, its openings to come,
// whom it refuses and, with --url, which integrations of the gateway's GET /usage it would hit and how many of
// their calls, judged from the last 7 days (src/retirement/brownout-forecast.ts, which says what the counts are
// from). Exit codes: 0 printed, 1 the usage could not be fetched, 2 a usage error or a file that cannot be used.
import { SHIPPED_MAPPINGS_DIR } from '../gateway/config.js';
import { loadBrownouts, BROWNOUTS_SETTING } from '../gateway/brownouts/brownout-file.js';
import type { BrownoutWindow } from '../gateway/brownouts/brownout-schema.js';
import { FORECAST_DAYS, forecastBrownouts, type CallsBasis, type IntegrationHit, type WindowForecast } from '../retirement/brownout-forecast.js';
import { entryLabel, lastDays, usageEntries } from '../retirement/usage-entries.js';
import { asTheGatewayReadsIt, processIo, readMethodsOf, runReporting, UsageError, type CommandIo, type Environment } from './command-run.js';
import { fetchUsage, printable, usageUrl } from './usage.js';

export interface BrownoutOptions {
  file?: string;
  url?: string;
  dryRun?: boolean;
  mappings?: string;
}

export type BrownoutIo = CommandIo;

const BASIS: Record<CallsBasis, string> = {
  daily: `daily counts per method, last ${FORECAST_DAYS} days`,
  'daily-share': `daily counts, last ${FORECAST_DAYS} days, split by its method shares`,
  methods: 'per-method counts since first seen (no daily counts)',
};

const iso = (ms: number): string => new Date(ms).toISOString();

/** `1 h`, `90 min`, `7 d`, `1 d 12 h`. */
function duration(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes % 60 !== 0) return `${minutes} min`;
  const hours = minutes / 60;
  if (hours < 24) return `${hours} h`;
  return hours % 24 === 0 ? `${hours / 24} d` : `${Math.floor(hours / 24)} d ${hours % 24} h`;
}

function scopeOf(w: BrownoutWindow): string {
  const who = w.integrations === undefined ? 'every integration, named or not' : `the integrations ${[...w.integrations].join(', ')}`;
  const except = w.except.size > 0 ? `, except ${[...w.except].join(', ')}` : '';
  const methods = w.methods === undefined ? 'every legacy read method' : `the read methods ${[...w.methods].join(', ')}`;
  return `refuses: ${who}${except}; ${methods}; ${w.payments ? 'and the payment' : 'not the payment'}`;
}

function whenOf(f: WindowForecast): string {
  const w = f.window;
  const repeat = w.repeat ? `, every ${duration(w.repeat.everyMs)} until ${iso(w.repeat.until)}` : '';
  const shape = `${duration(w.end - w.start)} from ${iso(w.start)}${repeat}`;
  const open = f.openNow ? `open now, until ${iso(f.openNow.end)}; ` : '';
  if (f.coming === 0) return `${shape}: ${open}${f.openNow ? 'no opening after this one' : 'over, no opening to come'}`;
  const next = f.next.map((o) => iso(o.start)).join(', ');
  const more = f.coming > f.next.length ? `, and ${f.coming - f.next.length} more to ${iso(f.lastStart)}` : '';
  return `${shape}: ${open}${f.coming} opening${f.coming === 1 ? '' : 's'} to come: ${next}${more}`;
}

function hitTable(hits: readonly IntegrationHit[]): string[] {
  const header = ['INTEGRATION', 'CALLS', 'PER OPENING', 'METHODS', 'COUNTED FROM'];
  const rows = hits.map((h) => [
    printable(entryLabel(h)),
    String(h.calls),
    h.perOpening === undefined ? '-' : `~${h.perOpening}`,
    printable(h.methods.map(([m, n]) => `${m} ${n}`).join(', ')),
    BASIS[h.basis],
  ]);
  const widths = header.map((head, c) => Math.max(head.length, ...rows.map((r) => (r[c] as string).length)));
  return [header, ...rows].map((cells) =>
    `    ${cells
      .map((cell, c) => (c === 1 || c === 2 ? cell.padStart(widths[c] as number) : cell.padEnd(widths[c] as number)))
      .join('  ')
      .trimEnd()}`,
  );
}

function report(forecasts: readonly WindowForecast[], withUsage: boolean): string {
  const lines: string[] = [];
  for (const f of forecasts) {
    lines.push('', `${f.window.name}: ${whenOf(f)}`, `  ${scopeOf(f.window)}`);
    if (!withUsage || (f.openNow === undefined && f.coming === 0)) continue;
    if (f.hits.length === 0) lines.push(`  would refuse no integration: none called what it covers in the last ${FORECAST_DAYS} days`);
    else lines.push(`  would refuse ${f.hits.length} integration${f.hits.length === 1 ? '' : 's'}:`, ...hitTable(f.hits));
    if (f.unseen.length > 0) lines.push(`  named in the window but not in GET /usage (no call counted): ${printable(f.unseen.join(', '))}`);
  }
  return `${lines.join('\n')}\n`;
}

async function run(opts: BrownoutOptions, env: Environment, io: BrownoutIo): Promise<void> {
  if (!opts.dryRun) throw new UsageError('--dry-run: required (the gateway itself applies BROWNOUTS_FILE; this command only tells what it would do)', 2);
  const file = opts.file ?? (env[BROWNOUTS_SETTING] || undefined);
  if (file === undefined) throw new UsageError(`--file: required (or ${BROWNOUTS_SETTING}): the brownouts file to try`, 2);
  const url = opts.url === undefined ? undefined : usageUrl(opts.url);
  const readMethods = await readMethodsOf(opts.mappings ?? (env.MAPPINGS_DIR || SHIPPED_MAPPINGS_DIR));
  const windows = asTheGatewayReadsIt(() => loadBrownouts(file, readMethods).windows);
  const entries = url === undefined ? undefined : usageEntries((await fetchUsage(url, io)).integrations);
  const now = io.now();
  const days = lastDays(now, FORECAST_DAYS);
  const judged = url === undefined ? 'without a usage report (--url): the windows and their scope only' : `calls from ${url.href}, the last ${FORECAST_DAYS} days (${days[0]} to ${days[days.length - 1]})`;
  io.out(`dry run of ${file} at ${iso(now)}: ${windows.length} window${windows.length === 1 ? '' : 's'}; ${judged}\n`);
  io.out(report(forecastBrownouts(windows, entries, now), entries !== undefined));
}

export const runBrownout = (opts: BrownoutOptions, env: Environment = process.env, io: BrownoutIo = processIo): Promise<void> =>
  runReporting('brownout', io, () => run(opts, env, io));
