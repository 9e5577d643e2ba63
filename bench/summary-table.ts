// The table of every row: req/s (its best run) and how far its runs spread, p50/p99 latency, peak RSS, CPU
// time per request of the process under test, and errors.
import type { Measured } from './measure.js';

/** How far apart a row's runs were: (best - worst) / best, in percent. */
function spread(row: Measured): string {
  const runs = row.rpsRuns ?? [];
  if (runs.length < 2) return '-';
  const best = Math.max(...runs);
  return best > 0 ? `${Math.round((100 * (best - Math.min(...runs))) / best)}%` : '-';
}

export function table(rows: Measured[], keys: number): string {
  const head = ['target', 'API keys', 'req/s', 'spread', 'p50 ms', 'p99 ms', 'peak RSS MB', 'CPU us/req', 'errors'];
  const body = rows.map((r) => [
    r.target,
    r.keys === 'handful' ? String(keys) : 'new/req',
    r.rps.toFixed(0),
    spread(r),
    String(r.p50),
    String(r.p99),
    r.rssMb === undefined ? 'n/a' : r.rssMb.toFixed(0),
    r.cpuUsPerRequest === undefined ? 'n/a' : r.cpuUsPerRequest.toFixed(0),
    String(r.errors),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}
