// The Redis rows beside the same rows without Redis: req/s, p50 and p99, and what the gateway asked of
// Redis per request (no target).
import type { BenchRedis } from './redis-server.js';
import { say, sayFigure } from './report-lines.js';
import type { Rows } from './summary-checks.js';
import * as names from './target-names.js';

const fmtRatio = (value: number | undefined) => (value === undefined || !Number.isFinite(value) ? 'n/a' : `${value.toFixed(2)}x`);

export function printRedis(rows: Rows, redis: BenchRedis | undefined, keys: number): void {
  if (!redis) return;
  say(`With REDIS_URL / without (redis-server ${redis.version} on loopback; no target):`);
  const pairs: Array<[string, string]> = [
    [`cached read /api/clients/0/100, ${keys} keys`, names.translated(100)],
    ['payment, a new Idempotency-Key per request', names.PAYMENT],
  ];
  const ms = (n: number) => `${n} ms`;
  for (const [name, without] of pairs) {
    const a = rows(names.withRedis(without));
    const b = rows(without);
    if (!a || !b) continue;
    const latency = (key: 'p50' | 'p99') => `${key} ${fmtRatio(b[key] > 0 ? a[key] / b[key] : undefined)} (${ms(a[key])} vs ${ms(b[key])})`;
    const calls = Object.entries(a.redisCallsPerRequest ?? {})
      .sort(([, x], [, y]) => y - x)
      .map(([command, n]) => `${command} ${n.toPrecision(2)}`)
      .join(', ');
    sayFigure(`  ${name}`, `req/s ${fmtRatio(a.rps / b.rps)} (${a.rps.toFixed(0)} vs ${b.rps.toFixed(0)}), ${latency('p50')}, ${latency('p99')}`);
    sayFigure('', `  Redis commands per request: ${calls === '' ? 'none (REDIS_URL unused: not a Redis measurement)' : calls}`);
  }
  const rss = redis.peakRssMb();
  if (rss !== undefined) sayFigure('  redis-server peak RSS', `${rss.toFixed(0)} MB`);
}
