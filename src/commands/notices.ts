// `legacy-gateway notices --dry-run [--url <metrics url>]`: which notices to the integrations' owners are due
// now, as a gateway would decide them (gateway/notices/notice-schedule.ts, the same pure decisions), from the
// files it reads (INTEGRATIONS_FILE, BROWNOUTS_FILE, checked as it checks them), LEGACY_SUNSET and QUIET_DAYS,
// and a gateway's GET /usage. Sends nothing, and reads no store: what was already delivered, and the
// brownouts' refusal counts (`brownout-hit`), are in the gateways' shared store, so it says so rather than
// guessing. Exit codes: 0 printed, 1 the usage could not be fetched, 2 a usage error or a file that cannot be used.
import { SHIPPED_MAPPINGS_DIR } from '../gateway/config.js';
import { BROWNOUTS_SETTING, loadBrownouts } from '../gateway/brownouts/brownout-file.js';
import type { BrownoutWindow } from '../gateway/brownouts/brownout-schema.js';
import { INTEGRATIONS_SETTING, loadIntegrations } from '../gateway/integrations/integration-file.js';
import type { Integration } from '../gateway/integrations/integration-directory.js';
import { safeUrl } from '../gateway/notices/notice-delivery.js';
import { dueNotices, noticeBody, recentCalls, utcDay, type DueNotice } from '../gateway/notices/notice-schedule.js';
import { usageEntries } from '../retirement/usage-entries.js';
import { asTheGatewayReadsIt, processIo, readMethodsOf, runReporting, UsageError, type CommandIo, type Environment } from './command-run.js';
import { fetchUsage, printable, usageUrl } from './usage.js';

export interface NoticesOptions {
  dryRun?: boolean;
  url?: string;
  integrations?: string;
  brownouts?: string;
  quietDays?: string;
  mappings?: string;
  json?: boolean;
}

export type NoticesIo = CommandIo;

async function windowsOf(file: string | undefined, mappingsDir: string): Promise<BrownoutWindow[]> {
  if (file === undefined) return [];
  const readMethods = await readMethodsOf(mappingsDir);
  return asTheGatewayReadsIt(() => loadBrownouts(file, readMethods).windows);
}

function sunsetOf(env: Environment): number | undefined {
  const text = env.LEGACY_SUNSET?.trim();
  if (!text) return undefined;
  const at = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00Z` : text);
  if (Number.isNaN(at)) throw new UsageError('LEGACY_SUNSET: not a date (2027-03-01, or a date and time with its offset)', 2);
  return at;
}

function quietDaysOf(given: string | undefined): number {
  const days = Number(given ?? 30);
  if (!Number.isInteger(days) || days < 1 || days > 3650) throw new UsageError('--quiet-days: must be a whole number of days, 1 to 3650', 2);
  return days;
}

function table(due: readonly DueNotice[]): string {
  const rows = due.map((n) => [n.type, n.integration, safeUrl(n.notify), n.id, JSON.stringify(n.data)].map(printable));
  const header = ['EVENT', 'INTEGRATION', 'NOTIFY', 'ID', 'DATA'];
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => (r[c] as string).length)));
  return [header, ...rows].map((cells) => cells.map((cell, c) => cell.padEnd(widths[c] as number)).join('  ').trimEnd()).join('\n');
}

async function run(opts: NoticesOptions, env: Environment, io: NoticesIo): Promise<void> {
  if (!opts.dryRun) throw new UsageError('--dry-run: required (a gateway sends the notices itself; this command only tells what it would send)', 2);
  const file = opts.integrations ?? (env[INTEGRATIONS_SETTING] || undefined);
  if (file === undefined) throw new UsageError(`--integrations: required (or ${INTEGRATIONS_SETTING}): who the integrations are and where their notices go`, 2);
  const integrations: Integration[] = asTheGatewayReadsIt(() => loadIntegrations(file).integrations);
  const windows = await windowsOf(opts.brownouts ?? (env[BROWNOUTS_SETTING] || undefined), opts.mappings ?? (env.MAPPINGS_DIR || SHIPPED_MAPPINGS_DIR));
  const sunset = sunsetOf(env);
  const quietDays = quietDaysOf(opts.quietDays ?? (env.QUIET_DAYS || undefined));
  const url = opts.url === undefined ? undefined : usageUrl(opts.url);
  const entries = url === undefined ? undefined : usageEntries((await fetchUsage(url, io)).integrations);
  const now = io.now();
  const today = utcDay(now);
  const due = dueNotices({
    now,
    integrations,
    sunset,
    // The report's last call tells who called today (a gateway knows it at the call itself).
    calledToday: new Set((entries ?? []).filter((e) => e.name !== undefined && utcDay(e.lastSeenMs) === today).map((e) => e.name as string)),
    windows,
    calls: entries === undefined ? undefined : recentCalls(entries, now),
    refused: new Map(),
    quietDays,
    where: { guidesUrl: env.GUIDES_URL || undefined, legacyDocsUrl: env.LEGACY_DOCS_URL || undefined },
  });
  if (opts.json) {
    io.out(`${JSON.stringify(due.map((n) => ({ notify: safeUrl(n.notify), body: JSON.parse(noticeBody(n, now)) as unknown })), null, 2)}\n`);
    return;
  }
  const withNotify = integrations.filter((i) => i.notify !== undefined).length;
  io.out(`dry run at ${new Date(now).toISOString()}: ${withNotify} of ${integrations.length} integrations have a notify URL; ${url === undefined ? 'without a usage report (--url): sunset-call, brownout-upcoming and quiet need one' : `calls from ${url.href}`}\n`);
  io.out('not listed: brownout-hit (the refusal counts are in the gateways\' shared store); a notice already delivered is listed while it is due (the store knows it, this command does not)\n');
  io.out(due.length === 0 ? 'no notice due\n' : `${table(due)}\n`);
}

export const runNotices = (opts: NoticesOptions, env: Environment = process.env, io: NoticesIo = processIo): Promise<void> =>
  runReporting('notices', io, () => run(opts, env, io));
