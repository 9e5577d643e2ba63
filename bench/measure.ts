// One measured run of one target with autocannon (a warm-up, then the measured load), and every target run
// --rounds times, its best run kept. What a run yields: req/s, p50/p99 latency, the peak RSS and CPU time
// per request of the process under test, its errors, and what it asked of Redis.
import autocannon from 'autocannon';
import type { BenchProcess } from './processes.js';
import type { BenchRedis } from './redis-server.js';

/** Which API keys a target's requests carry. */
export type Keys = 'handful' | 'new per request';

export interface Measured {
  target: string;
  keys: Keys;
  rps: number;
  p50: number;
  p99: number;
  rssMb: number | undefined;
  /** CPU time the measured server spent per request (user + system), in microseconds. */
  cpuUsPerRequest: number | undefined;
  /** The same, by process, where the target is served by more than one (nginx rows: nginx, gateway). */
  cpuUsPerRequestByPart?: Record<string, number>;
  /** Non-2xx, socket errors, timeouts, and payments that did not answer code 12 as a new payment. */
  errors: number;
  /** Redis commands the gateway sent per request during the measured run, by command (Redis rows). */
  redisCallsPerRequest?: Record<string, number>;
  /** req/s of every run of the target (the row's figures are its best run's): how noisy the machine was. */
  rpsRuns?: number[];
}

export type Request = autocannon.Request;

/** The requests of one run, and how many replies were wrong in a way autocannon cannot see. */
export interface Load {
  requests: Request[];
  wrongReplies?: () => number;
  /** A fixed number of requests for the warm-up and the measured run, instead of durations. */
  amount?: { warmup: number; measured: number };
}

export interface TargetSpec {
  name: string;
  path: string;
  /** The process under test; `shared` ones (the fake upstream) are not started or stopped per run. */
  start: (upstream: BenchProcess) => Promise<BenchProcess>;
  shared?: boolean;
  keys: Keys;
  load: () => Load;
  /** The Redis this target's gateway uses: emptied before each run, its command counts read around it. */
  redis?: BenchRedis;
}

export interface RunSettings {
  durationS: number;
  warmupS: number;
  rounds: number;
  connections: number;
}

async function load(run: RunSettings, url: string, seconds: number, requests: Request[], amount?: number): Promise<autocannon.Result> {
  return autocannon({ url, connections: run.connections, duration: seconds, requests, ...(amount === undefined ? {} : { amount }) });
}

function perRequest(before: Map<string, number>, after: Map<string, number>, requests: number): Record<string, number> {
  const calls: Record<string, number> = {};
  for (const [name, count] of after) {
    const delta = count - (before.get(name) ?? 0);
    if (delta > 0) calls[name] = delta / Math.max(requests, 1);
  }
  return calls;
}

function cpuByPart(before: Record<string, number | undefined>, after: Record<string, number | undefined>, requests: number): Record<string, number> {
  const parts: Record<string, number> = {};
  for (const [name, end] of Object.entries(after)) {
    const start = before[name];
    if (start !== undefined && end !== undefined && requests > 0) parts[name] = ((end - start) * 1e6) / requests;
  }
  return parts;
}

export async function measure(run: RunSettings, spec: Pick<TargetSpec, 'name' | 'keys' | 'path' | 'redis'>, server: BenchProcess, work: Load): Promise<Measured> {
  const url = `${server.url}${spec.path}`;
  if (run.warmupS > 0) await load(run, url, run.warmupS, work.requests, work.amount?.warmup);
  const wrongBefore = work.wrongReplies?.() ?? 0;
  const redisBefore = await spec.redis?.commandCalls();
  const cpuBefore = server.cpuSeconds();
  const partsBefore = server.cpuParts?.();
  const r = await load(run, url, run.durationS, work.requests, work.amount?.measured);
  const cpuAfter = server.cpuSeconds();
  const partsAfter = server.cpuParts?.();
  const redisAfter = await spec.redis?.commandCalls();
  const m: Measured = {
    cpuUsPerRequest: cpuBefore === undefined || cpuAfter === undefined || r.requests.total === 0 ? undefined : ((cpuAfter - cpuBefore) * 1e6) / r.requests.total,
    target: spec.name,
    keys: spec.keys,
    // Replies over the run's own length: a run of a fixed count ends between autocannon's 1-s samples.
    rps: r.duration > 0 ? r.requests.total / r.duration : 0,
    p50: r.latency.p50,
    p99: r.latency.p99,
    rssMb: server.peakRssMb(),
    errors: r.errors + r.timeouts + r.non2xx + ((work.wrongReplies?.() ?? 0) - wrongBefore),
    ...(redisBefore && redisAfter ? { redisCallsPerRequest: perRequest(redisBefore, redisAfter, r.requests.total) } : {}),
    ...(partsBefore && partsAfter ? { cpuUsPerRequestByPart: cpuByPart(partsBefore, partsAfter, r.requests.total) } : {}),
  };
  process.stderr.write(`  ${spec.name}: ${m.rps.toFixed(0)} req/s, CPU ${m.cpuUsPerRequest?.toFixed(0) ?? 'n/a'} us/req, peak RSS ${m.rssMb?.toFixed(0) ?? 'n/a'} MB\n`);
  return m;
}

/** Of two runs of one target, whether `a` is the better: a run without errors beats one with (fast error
 * replies would inflate its req/s), then the higher req/s. */
const betterRun = (a: Measured, b: Measured): boolean => ((a.errors === 0) !== (b.errors === 0) ? a.errors === 0 : a.rps > b.rps);

/** Runs every target `run.rounds` times (alternating the order) and keeps each target's best run: the
 * machine is shared, and the best of a few short runs is the least disturbed measure of what the code can
 * do. A row's peak RSS is the highest of its runs, and its errors those of all its runs. */
export async function measureAll(run: RunSettings, fake: BenchProcess, specs: TargetSpec[]): Promise<Measured[]> {
  const best = new Map<string, Measured>();
  const all = new Map<string, Measured[]>();
  for (let round = 0; round < run.rounds; round++) {
    const order = round % 2 === 0 ? specs : [...specs].reverse();
    process.stderr.write(`round ${round + 1} of ${run.rounds}\n`);
    for (const spec of order) {
      await spec.redis?.flush();
      const server = await spec.start(fake);
      try {
        const m = await measure(run, spec, server, spec.load());
        const prior = best.get(spec.name);
        if (!prior || betterRun(m, prior)) best.set(spec.name, m);
        all.set(spec.name, [...(all.get(spec.name) ?? []), m]);
      } finally {
        if (!spec.shared) await server.stop();
      }
    }
  }
  return specs.map((t) => {
    const runs = all.get(t.name)!;
    const peak = Math.max(...runs.map((r) => r.rssMb ?? 0)) || undefined;
    return { ...best.get(t.name)!, rssMb: peak, errors: runs.reduce((sum, r) => sum + r.errors, 0), rpsRuns: runs.map((r) => Math.round(r.rps)) };
  });
}
