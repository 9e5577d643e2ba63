// `npm run bench`: one bounded run on loopback. Starts a fake v1 upstream, then measures with autocannon
// (50 connections, a short warm-up, then --duration seconds per target): direct v1, a hand-written minimal
// reshaping server, a bare express + http-proxy-middleware passthrough, and the real gateway
// (`dist/cli.js serve`, metrics on, logs at info to /dev/null) on a 100- and a 1000-record /api/clients
// page, /api/meetourteam/0/20 cold (a new API key per request: every call a cache miss, no shared call) and
// cached, /api/v1/clients?limit=100 passed through, and POST /api/payment. Every target but the cold one
// sends a handful of API keys in rotation (bench/requests.ts), and the gateway's memory figure is taken
// over those; the cold one's peak RSS is reported on its own. With redis-server installed, the bench
// starts its own and runs a cached read and a payment again with REDIS_URL. With nginx installed, it also
// measures nginx alone as a plain proxy to the fake v1, and the front `legacy-gateway routes --format nginx`
// generates, in front of a gateway and the fake v1 (a passthrough and the translated 100-record page through
// it), each beside its baseline (bench/nginx.ts). Prints req/s, p50/p99 latency,
// peak RSS and CPU per request per target, the ratios, and the targets met or missed. Each target runs
// --rounds times (default 2, order alternating) and its best run is kept, since the machine may be busy
// with other work. `--profile` also runs the gateway under --cpu-prof and prints the top frames. Every
// server process is on 127.0.0.1 and is killed by its own deadline.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { summariseProfile } from './cpu-profile.js';
import { generatedFront, nginxBinary, nginxVersion, plainProxyConfig, startBenchNginx, type BenchNginx } from './nginx.js';
import { freePort, startChild, startGateway, type BenchProcess } from './processes.js';
import { redisServerBinary, startBenchRedis, type BenchRedis } from './redis-server.js';
import { HANDFUL_OF_KEYS, PAYMENTS_PER_RUN, PAYMENT_BODY, handfulOfKeys, newKeyPerRequest, nextIdempotencyKey, payments } from './requests.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const cli = path.join(root, 'dist', 'cli.js');
const resultsDir = path.join(root, 'bench', 'results');

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const DURATION_S = arg('--duration', 4);
const ROUNDS = arg('--rounds', 2);
const WARMUP_S = arg('--warmup', 1);
const CONNECTIONS = arg('--connections', 50);
const PROFILE = process.argv.includes('--profile');
const LIFETIME_S = 240;
const KEYS = HANDFUL_OF_KEYS.length;

/** The V8 flags `npm start` runs the gateway with (package.json), so the bench measures what ships. */
function startFlags(): string[] {
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { start: string } };
  return pkg.scripts.start.split(/\s+/).filter((token) => token.startsWith('--'));
}
const GATEWAY_NODE_FLAGS = startFlags();

/** Which API keys a target's requests carry. */
type Keys = 'handful' | 'new per request';

interface Measured {
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
}

type Request = autocannon.Request;

/** The requests of one run, and how many replies were wrong in a way autocannon cannot see. */
interface Load {
  requests: Request[];
  wrongReplies?: () => number;
  /** A fixed number of requests for the warm-up and the measured run, instead of durations. */
  amount?: { warmup: number; measured: number };
}

async function load(url: string, seconds: number, requests: Request[], amount?: number): Promise<autocannon.Result> {
  return autocannon({ url, connections: CONNECTIONS, duration: seconds, requests, ...(amount === undefined ? {} : { amount }) });
}

async function redisCalls(redis: BenchRedis | undefined): Promise<Map<string, number> | undefined> {
  return redis ? await redis.commandCalls() : undefined;
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

async function measure(target: string, keys: Keys, server: BenchProcess, urlPath: string, work: Load, redis?: BenchRedis): Promise<Measured> {
  const url = `${server.url}${urlPath}`;
  if (WARMUP_S > 0) await load(url, WARMUP_S, work.requests, work.amount?.warmup);
  const wrongBefore = work.wrongReplies?.() ?? 0;
  const redisBefore = await redisCalls(redis);
  const cpuBefore = server.cpuSeconds();
  const partsBefore = server.cpuParts?.();
  const r = await load(url, DURATION_S, work.requests, work.amount?.measured);
  const cpuAfter = server.cpuSeconds();
  const partsAfter = server.cpuParts?.();
  const redisAfter = await redisCalls(redis);
  const m: Measured = {
    cpuUsPerRequest: cpuBefore === undefined || cpuAfter === undefined || r.requests.total === 0 ? undefined : ((cpuAfter - cpuBefore) * 1e6) / r.requests.total,
    target,
    keys,
    // Replies over the run's own length: a run of a fixed count ends between autocannon's 1-s samples.
    rps: r.duration > 0 ? r.requests.total / r.duration : 0,
    p50: r.latency.p50,
    p99: r.latency.p99,
    rssMb: server.peakRssMb(),
    errors: r.errors + r.timeouts + r.non2xx + ((work.wrongReplies?.() ?? 0) - wrongBefore),
    ...(redisBefore && redisAfter ? { redisCallsPerRequest: perRequest(redisBefore, redisAfter, r.requests.total) } : {}),
    ...(partsBefore && partsAfter ? { cpuUsPerRequestByPart: cpuByPart(partsBefore, partsAfter, r.requests.total) } : {}),
  };
  process.stderr.write(`  ${target}: ${m.rps.toFixed(0)} req/s, peak RSS ${m.rssMb?.toFixed(0) ?? 'n/a'} MB\n`);
  return m;
}

/** A secret for the gateways that share state through Redis (GATEWAY_SECRET: 32 characters or more). */
const GATEWAY_SECRET = randomBytes(24).toString('hex');

const GATEWAY_ENV = (upstream: string, metricsPort: string): Record<string, string> => ({
  UPSTREAM_URL: upstream,
  UPSTREAM_API_KEY: 'bench-key',
  METRICS_PORT: metricsPort,
  LOG_LEVEL: 'info',
});

const REDIS_ENV = (redis: BenchRedis): Record<string, string> => ({ REDIS_URL: redis.url, GATEWAY_SECRET });

async function withGateway<T>(name: string, env: Record<string, string>, nodeArgs: string[], work: (gw: BenchProcess) => Promise<T>): Promise<T> {
  const gw = await startGateway(name, cli, env, nodeArgs, LIFETIME_S);
  try {
    return await work(gw);
  } finally {
    await gw.stop();
  }
}

function table(rows: Measured[]): string {
  const head = ['target', 'API keys', 'req/s', 'p50 ms', 'p99 ms', 'peak RSS MB', 'CPU us/req', 'errors'];
  const body = rows.map((r) => [
    r.target,
    r.keys === 'handful' ? String(KEYS) : 'new/req',
    r.rps.toFixed(0),
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

async function runProfile(upstream: string): Promise<void> {
  const dir = path.join(resultsDir, `profile-${Date.now()}`);
  mkdirSync(dir, { recursive: true });
  await withGateway('gateway (profiled)', GATEWAY_ENV(upstream, '0'), [...GATEWAY_NODE_FLAGS, '--cpu-prof', '--cpu-prof-dir', dir], async (gw) => {
    await measure('profiled: translated 100 records', 'handful', gw, '/api/clients/0/100', { requests: handfulOfKeys('/api/clients/0/100') });
    await measure('profiled: passthrough', 'handful', gw, '/api/v1/clients?limit=100', { requests: handfulOfKeys('/api/v1/clients?limit=100') });
  });
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error('no .cpuprofile was written');
  const summary = summariseProfile(path.join(dir, file));
  console.log(`\nCPU profile of the gateway under load (${summary.samples} samples, ${path.join(dir, file)})`);
  console.log('\nTop frames by self time:');
  for (const f of summary.frames) console.log(`  ${f.percent.toFixed(1).padStart(5)}%  ${f.name}`);
  console.log('\nBy package / file:');
  for (const g of summary.groups) console.log(`  ${g.percent.toFixed(1).padStart(5)}%  ${g.name}`);
}

interface TargetSpec {
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

interface GatewayOptions {
  env?: Record<string, string>;
  keys?: Keys;
  load?: () => Load;
  redis?: BenchRedis;
}

const gatewayTarget = (name: string, urlPath: string, options: GatewayOptions = {}): TargetSpec => {
  const env = { ...(options.redis ? REDIS_ENV(options.redis) : {}), ...options.env };
  return {
    name,
    path: urlPath,
    start: (upstream) => startGateway(name, cli, { ...GATEWAY_ENV(upstream.url, '0'), ...env }, GATEWAY_NODE_FLAGS, LIFETIME_S),
    keys: options.keys ?? 'handful',
    load: options.load ?? (() => ({ requests: handfulOfKeys(urlPath) })),
    ...(options.redis ? { redis: options.redis } : {}),
  };
};

const childTarget = (name: string, script: string, urlPath: string): TargetSpec => ({
  name,
  path: urlPath,
  start: (upstream) => startChild(name, path.join(here, script), ['--upstream', upstream.url], LIFETIME_S),
  keys: 'handful',
  load: () => ({ requests: handfulOfKeys(urlPath) }),
});

const directTarget = (name: string, urlPath: string): TargetSpec => ({
  name,
  path: urlPath,
  start: async (upstream) => upstream,
  shared: true,
  keys: 'handful',
  load: () => ({ requests: handfulOfKeys(urlPath) }),
});

/** nginx as the bench found it and saw it serve (startNginx); absent, the nginx rows are skipped. */
interface NginxSetup {
  binary: string;
  version: string;
}

const PASSTHROUGH = '/api/v1/clients?limit=100';
const TRANSLATED_100 = '/api/clients/0/100';
const NGINX_PLAIN = 'nginx plain proxy passthrough';
const FRONT_PASSTHROUGH = 'nginx front passthrough';
const FRONT_TRANSLATED = 'nginx front translated 100';

async function startPlainProxy(name: string, nginx: NginxSetup, upstream: BenchProcess): Promise<BenchNginx> {
  const port = await freePort();
  return startBenchNginx(name, nginx.binary, port, { body: plainProxyConfig(port, upstream.url) }, LIFETIME_S);
}

/**
 * The generated front: a gateway started as the gateway rows start it, then `routes --format nginx` for a
 * front before it and the fake v1, then nginx with it. To the bench one process: its CPU time is nginx's and
 * the gateway's together (and each one's, as its parts), its peak RSS nginx's; stopping it stops both.
 */
async function startFront(name: string, nginx: NginxSetup, upstream: BenchProcess): Promise<BenchProcess> {
  const gw = await startGateway(`${name} (its gateway)`, cli, GATEWAY_ENV(upstream.url, '0'), GATEWAY_NODE_FLAGS, LIFETIME_S);
  try {
    const port = await freePort();
    const front = await startBenchNginx(name, nginx.binary, port, { include: await generatedFront(cli, port, gw.url, upstream.url) }, LIFETIME_S);
    return {
      ...front,
      cpuSeconds() {
        const [a, b] = [front.cpuSeconds(), gw.cpuSeconds()];
        return a === undefined || b === undefined ? undefined : a + b;
      },
      cpuParts: () => ({ nginx: front.cpuSeconds(), gateway: gw.cpuSeconds() }),
      async stop() {
        try {
          await front.stop();
        } finally {
          await gw.stop();
        }
      },
    };
  } catch (err) {
    await gw.stop();
    throw err;
  }
}

const nginxTarget = (name: string, urlPath: string, start: TargetSpec['start']): TargetSpec => ({
  name,
  path: urlPath,
  start,
  keys: 'handful',
  load: () => ({ requests: handfulOfKeys(urlPath) }),
});

/** nginx's rows, by where they run: the passthrough pair beside direct v1, the translated one beside the gateway's. */
function nginxTargets(nginx: NginxSetup | undefined): { passthrough: TargetSpec[]; translated: TargetSpec[] } {
  if (!nginx) return { passthrough: [], translated: [] };
  return {
    passthrough: [
      nginxTarget(NGINX_PLAIN, PASSTHROUGH, (upstream) => startPlainProxy(NGINX_PLAIN, nginx, upstream)),
      nginxTarget(FRONT_PASSTHROUGH, PASSTHROUGH, (upstream) => startFront(FRONT_PASSTHROUGH, nginx, upstream)),
    ],
    translated: [nginxTarget(FRONT_TRANSLATED, TRANSLATED_100, (upstream) => startFront(FRONT_TRANSLATED, nginx, upstream))],
  };
}

const TEAM = '/api/meetourteam/0/20';
const COLD_TEAM = 'gateway meetourteam cold';
const PAYMENT = 'gateway payment';

// Each ratio's two sides run one after the other (in both orders across rounds): on a shared machine the
// speed drifts over minutes, and a baseline measured far from its gateway row would carry that drift.
// The nginx rows: nginx alone, the front's passthrough, then direct v1; the front's translated row right
// after the gateway's.
function targets(redis: BenchRedis | undefined, nginx: NginxSetup | undefined): TargetSpec[] {
  const front = nginxTargets(nginx);
  return [
    ...front.passthrough,
    directTarget('direct v1 100 records', '/api/v1/clients?limit=100'),
    childTarget('minimal reshaper 100', 'minimal-reshaper.js', '/api/clients/0/100'),
    gatewayTarget('gateway translated 100', '/api/clients/0/100'),
    ...front.translated,
    ...(redis ? [gatewayTarget('gateway translated 100, Redis', '/api/clients/0/100', { redis })] : []),
    directTarget('direct v1 1000 records', '/api/v1/clients?limit=1000'),
    childTarget('minimal reshaper 1000', 'minimal-reshaper.js', '/api/clients/0/1000'),
    gatewayTarget('gateway translated 1000', '/api/clients/0/1000'),
    childTarget('bare express+HPM passthrough', 'bare-proxy.js', '/api/v1/clients?limit=100'),
    gatewayTarget('gateway passthrough', '/api/v1/clients?limit=100'),
    gatewayTarget(COLD_TEAM, TEAM, { keys: 'new per request', load: () => ({ requests: newKeyPerRequest(TEAM) }) }),
    gatewayTarget('gateway meetourteam cached', TEAM),
    // What the one log line per request costs (DESIGN requires it at info): the same two, logs at warn.
    gatewayTarget('gateway translated 100, logs off', '/api/clients/0/100', { env: { LOG_LEVEL: 'warn' } }),
    gatewayTarget('gateway passthrough, logs off', '/api/v1/clients?limit=100', { env: { LOG_LEVEL: 'warn' } }),
    gatewayTarget(PAYMENT, '/api/payment', { load: payments }),
    ...(redis ? [gatewayTarget(`${PAYMENT}, Redis`, '/api/payment', { load: payments, redis })] : []),
  ];
}

/** Of two runs of one target, whether `a` is the better: a run without errors beats one with (fast error
 * replies would inflate its req/s), then the higher req/s. */
const betterRun = (a: Measured, b: Measured): boolean => ((a.errors === 0) !== (b.errors === 0) ? a.errors === 0 : a.rps > b.rps);

/** Runs every target ROUNDS times (alternating the order) and keeps each target's best run: the machine
 * is shared, and the best of a few short runs is the least disturbed measure of what the code can do.
 * A row's peak RSS is the highest of its runs, and its errors those of all its runs. */
async function measureAll(fake: BenchProcess, specs: TargetSpec[]): Promise<Measured[]> {
  const best = new Map<string, Measured>();
  const all = new Map<string, Measured[]>();
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? specs : [...specs].reverse();
    process.stderr.write(`round ${round + 1} of ${ROUNDS}\n`);
    for (const spec of order) {
      await spec.redis?.flush();
      const server = await spec.start(fake);
      try {
        const m = await measure(spec.name, spec.keys, server, spec.path, spec.load(), spec.redis);
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
    return { ...best.get(t.name)!, rssMb: peak, errors: runs.reduce((sum, r) => sum + r.errors, 0) };
  });
}

/** Whether this build of the gateway reads REDIS_URL at all (else it would run the Redis rows without it). */
function buildReadsRedisUrl(): boolean {
  const dirs = [path.join(root, 'dist', 'gateway'), path.join(root, 'dist', 'commands')];
  return dirs.some((dir) =>
    readdirSync(dir, { recursive: true, encoding: 'utf8' }).some((f) => f.endsWith('.js') && readFileSync(path.join(dir, f), 'utf8').includes('REDIS_URL')),
  );
}

/** One payment through a gateway: it must be a new payment (code 12), or the payment rows measure nothing. */
async function checkPayment(gw: BenchProcess): Promise<void> {
  const res = await fetch(`${gw.url}/api/payment`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-api-key': HANDFUL_OF_KEYS[0]!, 'idempotency-key': nextIdempotencyKey() },
    body: PAYMENT_BODY,
  });
  const text = await res.text();
  if (!res.ok || !/"code":12\b/.test(text)) throw new Error(`${gw.name}: a payment answered ${res.status} ${text}`);
}

/**
 * The bench's redis-server, once a gateway started with REDIS_URL has been seen to use it (a read and a
 * payment sent it commands); else undefined, with one line saying why the Redis rows are skipped.
 */
async function startRedis(fake: BenchProcess): Promise<BenchRedis | undefined> {
  const skip = (why: string) => {
    console.log(`Redis rows skipped: ${why}`);
    return undefined;
  };
  const binary = redisServerBinary();
  if (!binary) return skip('redis-server is not installed (Debian: apt-get install redis-server)');
  if (!buildReadsRedisUrl()) return skip('this build of the gateway does not read REDIS_URL (dist/gateway/, dist/commands/)');
  const redis = await startBenchRedis(binary, LIFETIME_S);
  try {
    const before = await redis.commandCalls();
    await withGateway('gateway, Redis (check)', { ...GATEWAY_ENV(fake.url, '0'), ...REDIS_ENV(redis) }, GATEWAY_NODE_FLAGS, async (gw) => {
      const read = await fetch(`${gw.url}/api/clients/0/100`, { headers: { 'x-api-key': HANDFUL_OF_KEYS[0]! } });
      if (!read.ok) throw new Error(`${gw.name}: /api/clients/0/100 answered ${read.status} ${await read.text()}`);
      await checkPayment(gw);
    });
    const sent = [...commandsSent(before, await redis.commandCalls())];
    if (sent.length === 0) {
      await redis.stop();
      return skip('a gateway started with REDIS_URL sent redis-server no command');
    }
    console.log(`Redis: redis-server ${redis.version} at ${redis.url}, persistence off, emptied before each run`);
    return redis;
  } catch (err) {
    await redis.stop();
    return skip(`a gateway with REDIS_URL could not serve a read and a payment (${err instanceof Error ? err.message : String(err)})`);
  }
}

/**
 * nginx, once the plain proxy and the generated front have been seen to serve the bench's requests (the
 * passthrough as direct v1 answers it, the translated page as a legacy list of 100 records); else undefined,
 * with one line saying why the nginx rows are skipped.
 */
async function startNginx(fake: BenchProcess): Promise<NginxSetup | undefined> {
  const skip = (why: string) => {
    console.log(`nginx rows skipped: ${why}`);
    return undefined;
  };
  const binary = nginxBinary();
  if (!binary) return skip('nginx is not installed (Debian: apt-get install nginx)');
  const nginx = { binary, version: nginxVersion(binary) };
  const started: BenchProcess[] = [];
  const text = async (url: string): Promise<string> => {
    const res = await fetch(url, { headers: { 'x-api-key': HANDFUL_OF_KEYS[0]! } });
    const body = await res.text();
    if (!res.ok) throw new Error(`${url} answered ${res.status} ${body.slice(0, 200)}`);
    return body;
  };
  try {
    const plain = await startPlainProxy('nginx plain proxy (check)', nginx, fake);
    started.push(plain);
    const front = await startFront('nginx front (check)', nginx, fake);
    started.push(front);
    const direct = await text(`${fake.url}${PASSTHROUGH}`);
    if ((await text(`${plain.url}${PASSTHROUGH}`)) !== direct) throw new Error(`the plain proxy's ${PASSTHROUGH} differs from direct v1's`);
    if ((await text(`${front.url}${PASSTHROUGH}`)) !== direct) throw new Error(`the front's ${PASSTHROUGH} differs from direct v1's`);
    const list = JSON.parse(await text(`${front.url}${TRANSLATED_100}`)) as { status?: unknown; response?: unknown };
    if (list.status !== 'success' || !Array.isArray(list.response) || list.response.length !== 100) {
      throw new Error(`the front's ${TRANSLATED_100} is not a legacy list of 100 records`);
    }
    console.log(
      `nginx: ${binary} ${nginx.version}, worker_processes 1, on loopback, its own folder and pid file per run; ` +
        `the front from dist/cli.js routes --format nginx (its passthrough and translated replies checked)`,
    );
    return nginx;
  } catch (err) {
    return skip(`nginx could not serve the bench's requests (${err instanceof Error ? err.message : String(err)})`);
  } finally {
    for (const server of started.reverse()) await server.stop();
  }
}

function commandsSent(before: Map<string, number>, after: Map<string, number>): Set<string> {
  return new Set([...after].filter(([name, count]) => count > (before.get(name) ?? 0)).map(([name]) => name));
}

const fmtRatio = (value: number | undefined) => (value === undefined || !Number.isFinite(value) ? 'n/a' : `${value.toFixed(2)}x`);
const line = (name: string, text: string) => console.log(`${name.padEnd(50)} ${text}`);

function printRatios(get: (target: string) => Measured, has: (target: string) => boolean): void {
  const ratio = (a: string, b: string) => get(a).rps / get(b).rps;
  const front: Array<[string, number, number]> = has(FRONT_PASSTHROUGH)
    ? [
        ['front passthrough / nginx plain proxy', ratio(FRONT_PASSTHROUGH, NGINX_PLAIN), 0.9],
        ['front passthrough / direct v1', ratio(FRONT_PASSTHROUGH, 'direct v1 100 records'), 0],
        ['front translated 100 / gateway translated 100', ratio(FRONT_TRANSLATED, 'gateway translated 100'), 0.9],
      ]
    : [];
  const checks: Array<[string, number, number]> = [
    ['translated 100 / minimal reshaper 100', ratio('gateway translated 100', 'minimal reshaper 100'), 2],
    ['translated 100 / direct v1 100', ratio('gateway translated 100', 'direct v1 100 records'), 0.25],
    ['translated 1000 / minimal reshaper 1000', ratio('gateway translated 1000', 'minimal reshaper 1000'), 0],
    ['translated 1000 / direct v1 1000', ratio('gateway translated 1000', 'direct v1 1000 records'), 0],
    ['passthrough / bare express+HPM', ratio('gateway passthrough', 'bare express+HPM passthrough'), 1.5],
    ['passthrough / direct v1', ratio('gateway passthrough', 'direct v1 100 records'), 0],
    [`meetourteam cached (${KEYS} keys) / cold (new key/req)`, ratio('gateway meetourteam cached', COLD_TEAM), 5],
    ['(logs off) translated 100 / direct v1 100', ratio('gateway translated 100, logs off', 'direct v1 100 records'), 0],
    ['(logs off) passthrough / bare express+HPM', ratio('gateway passthrough, logs off', 'bare express+HPM passthrough'), 0],
    ...front,
  ];
  for (const [name, value, goal] of checks) {
    const verdict = goal === 0 ? '' : value >= goal ? `  (>= ${goal}x: met)` : `  (>= ${goal}x: MISSED)`;
    line(name, `${fmtRatio(value)}${verdict}`);
  }
  // On 2 cores the load generator and the fake upstream compete with the proxy for CPU, so req/s of a
  // proxy is capped by the machine; CPU spent per request by the proxy process alone is the fairer cost.
  const bareCpu = get('bare express+HPM passthrough').cpuUsPerRequest;
  const gatewayCpu = get('gateway passthrough').cpuUsPerRequest;
  if (bareCpu !== undefined && gatewayCpu !== undefined && gatewayCpu > 0) {
    line('passthrough CPU per request: bare / gateway', `${fmtRatio(bareCpu / gatewayCpu)}  (${bareCpu.toFixed(0)} vs ${gatewayCpu.toFixed(0)} us)`);
  }
  if (has(FRONT_PASSTHROUGH)) printFrontCpu(get);
}

/** What the front's processes spent per request, nginx's and the gateway's apart, beside the baselines'. */
function printFrontCpu(get: (target: string) => Measured): void {
  const us = (n: number | undefined) => (n === undefined ? 'n/a' : n.toFixed(0));
  const split = (target: string) => {
    const parts = get(target).cpuUsPerRequestByPart;
    return `nginx ${us(parts?.nginx)} + gateway ${us(parts?.gateway)} us`;
  };
  line('front CPU per request, passthrough', `${split(FRONT_PASSTHROUGH)}  (nginx plain proxy ${us(get(NGINX_PLAIN).cpuUsPerRequest)} us)`);
  line('front CPU per request, translated 100', `${split(FRONT_TRANSLATED)}  (gateway alone ${us(get('gateway translated 100').cpuUsPerRequest)} us)`);
}

/** The memory target holds over the targets with a handful of keys; one new key per request is reported beside it. */
function printMemory(rows: Measured[]): void {
  const gateway = rows.filter((r) => r.target.startsWith('gateway'));
  const peak = (of: Measured[]) => Math.max(...of.map((r) => r.rssMb ?? 0));
  const handful = gateway.filter((r) => r.keys === 'handful');
  const worst = handful.reduce((a, b) => ((b.rssMb ?? 0) > (a.rssMb ?? 0) ? b : a));
  const met = peak(handful) <= 150 ? 'met' : 'MISSED';
  line('gateway peak RSS (worst target)', `${peak(handful).toFixed(0)} MB  (<= 150 MB: ${met}; ${KEYS} API keys in rotation; worst: ${worst.target})`);
  const oneOff = gateway.filter((r) => r.keys === 'new per request');
  if (oneOff.length > 0) {
    line('gateway peak RSS, one new key per request', `${peak(oneOff).toFixed(0)} MB  (no target: every reply is a one-off cache entry; ${oneOff.map((r) => r.target).join(', ')})`);
  }
}

/** With Redis / without, side by side: req/s, p50 and p99, and what the gateway asked of Redis per request. */
function printRedis(get: (target: string) => Measured, redis: BenchRedis | undefined): void {
  if (!redis) return;
  console.log(`\nWith REDIS_URL / without (redis-server ${redis.version} on loopback; no target):`);
  const pairs: Array<[string, string, string]> = [
    [`cached read /api/clients/0/100, ${KEYS} keys`, 'gateway translated 100, Redis', 'gateway translated 100'],
    ['payment, a new Idempotency-Key per request', `${PAYMENT}, Redis`, PAYMENT],
  ];
  const ms = (n: number) => `${n} ms`;
  for (const [name, withRedis, without] of pairs) {
    const a = get(withRedis);
    const b = get(without);
    const latency = (key: 'p50' | 'p99') => `${key} ${fmtRatio(b[key] > 0 ? a[key] / b[key] : undefined)} (${ms(a[key])} vs ${ms(b[key])})`;
    const calls = Object.entries(a.redisCallsPerRequest ?? {})
      .sort(([, x], [, y]) => y - x)
      .map(([command, n]) => `${command} ${n.toPrecision(2)}`)
      .join(', ');
    line(`  ${name}`, `req/s ${fmtRatio(a.rps / b.rps)} (${a.rps.toFixed(0)} vs ${b.rps.toFixed(0)}), ${latency('p50')}, ${latency('p99')}`);
    line('', `  Redis commands per request: ${calls === '' ? 'none (REDIS_URL unused: not a Redis measurement)' : calls}`);
  }
  const rss = redis.peakRssMb();
  if (rss !== undefined) line('  redis-server peak RSS', `${rss.toFixed(0)} MB`);
}

async function main(): Promise<void> {
  console.log(
    `legacy-gateway bench: ${CONNECTIONS} connections, ${WARMUP_S} s warm-up + ${DURATION_S} s per target, best of ${ROUNDS} rounds, ` +
      `Node ${process.version}; gateway: dist/cli.js serve ${GATEWAY_NODE_FLAGS.join(' ')} (as npm start), LOG_LEVEL=info, METRICS_PORT set`,
  );
  console.log(
    `API keys: every target sends ${KEYS} keys in rotation, except "${COLD_TEAM}", which sends a new key per request ` +
      '(every call a cache miss that reads every v1 page, sorts and reshapes, with no shared upstream call). ' +
      `Payments: client_id=1, a new Idempotency-Key per request, each reply checked to be a new payment (code 12); ` +
      `${PAYMENTS_PER_RUN.warmup} warm-up and ${PAYMENTS_PER_RUN.measured} measured per run, under the in-process store's bound of 2,000 keys per API key.`,
  );
  const fake = await startChild('fake v1', path.join(here, 'fake-v1.js'), [], LIFETIME_S);
  let redis: BenchRedis | undefined;
  try {
    await withGateway('gateway (payment check)', GATEWAY_ENV(fake.url, '0'), GATEWAY_NODE_FLAGS, checkPayment);
    redis = await startRedis(fake);
    const nginx = await startNginx(fake);
    const rows = await measureAll(fake, targets(redis, nginx));
    const get = (target: string) => rows.find((r) => r.target === target)!;
    const has = (target: string) => rows.some((r) => r.target === target);
    console.log(`\n${table(rows)}\n(direct rows: the fake v1 process itself, whose RSS covers every run it served)`);
    if (nginx) console.log('(nginx rows: peak RSS of nginx, master and worker; CPU of nginx, plus the gateway behind the front: split below)');
    console.log('');
    printRatios(get, has);
    printMemory(rows);
    printRedis(get, redis);

    mkdirSync(resultsDir, { recursive: true });
    writeFileSync(
      path.join(resultsDir, `bench-${Date.now()}.json`),
      JSON.stringify({ node: process.version, connections: CONNECTIONS, durationS: DURATION_S, rounds: ROUNDS, apiKeys: KEYS, redis: redis?.version ?? null, nginx: nginx?.version ?? null, rows }, null, 2),
    );
    if (PROFILE) await runProfile(fake.url);
  } finally {
    await redis?.stop();
    await fake.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
