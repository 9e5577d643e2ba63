// `npm run bench`: one bounded run on loopback (docs/benchmarks.md). Starts a fake v1 upstream, then measures
// every row (bench/targets.ts) with autocannon: the gateway (`dist/cli.js serve` as `npm start` runs it,
// metrics on, logs at info to /dev/null) beside its baselines (direct v1, a minimal reshaper, a bare
// express+HPM proxy, and a hand-written node:http and an nginx + Lua reshaper, each first checked to answer
// the gateway's bytes: bench/same-bytes.ts) and its floor (the relay, which sends v1's page on unchanged: not
// the gateway's bytes, so outside that check), with Redis and with nginx in front when they are installed, and on Node 26 beside
// the bench's Node. Each target runs --rounds times (order alternating) and its best run is kept, since the
// machine may be busy with other work. Prints the table, every figure beside its target (met or MISSED),
// and writes both to bench/results/. Every server process is on 127.0.0.1 and is killed by its own deadline.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startNginx } from './front-targets.js';
import { launchGateway, type GatewayLauncher } from './gateway-launch.js';
import { measureAll, type RunSettings } from './measure.js';
import { findNode26, type NodeBinary } from './node-26.js';
import { readOptions } from './options.js';
import { startChild } from './processes.js';
import { runProfile } from './profile-run.js';
import { checkSameBytes } from './same-bytes.js';
import type { BenchRedis } from './redis-server.js';
import { startRedis } from './redis-setup.js';
import { everythingSaid, say } from './report-lines.js';
import { HANDFUL_OF_KEYS, PAYMENTS_PER_RUN, checkPayment } from './requests.js';
import { describeStart, readStartCommand } from './start-command.js';
import { printCachedRatios, printFrontRatios, printMemory, printNode26, printRelayFloor, printSameBytesRatios, printTeamListings, printTranslationFloor, printUncachedRatios } from './summary-checks.js';
import { printRedis } from './summary-redis.js';
import { table } from './summary-table.js';
import { targets } from './targets.js';
import { measureTranslationFloor } from './translation-floor.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const resultsDir = path.join(root, 'bench', 'results');
const options = readOptions();
const run: RunSettings = { durationS: options.durationS, warmupS: options.warmupS, rounds: options.rounds, connections: options.connections };
const launcher: GatewayLauncher = { cli: path.join(root, 'dist', 'cli.js'), lifetimeS: 300, start: readStartCommand(root) };
const KEYS = HANDFUL_OF_KEYS.length;
/** The fake v1 and redis-server serve the whole run: 25 minutes at most, whatever happens. */
const RUN_LIFETIME_S = 1500;

function node26(): NodeBinary | undefined {
  const found = findNode26(options.node26);
  if ('skipped' in found) {
    console.log(`Node 26 rows skipped: ${found.skipped}`);
    return undefined;
  }
  return found;
}

function printHeader(node: NodeBinary | undefined): void {
  say(
    `legacy-gateway bench: ${run.connections} connections, ${run.warmupS} s warm-up + ${run.durationS} s per target, best of ${run.rounds} rounds, ` +
      `Node ${process.version}${node ? ` and ${node.version} (${node.path})` : ''}; gateway: ${describeStart(launcher.start)} dist/cli.js serve ` +
      '(as npm start), LOG_LEVEL=info, METRICS_PORT set',
  );
  say(
    `API keys: "${KEYS} keys" rows send ${KEYS} keys in rotation; "new/req" rows a new key per request (no call shares a cache entry ` +
      'or an upstream call; with "cache off", CACHE_TTL_MS=0, nothing is cached at all). ' +
      `Payments: client_id=1, a new Idempotency-Key per request, each reply checked to be a new payment (code 12); ` +
      `${PAYMENTS_PER_RUN.warmup} warm-up and ${PAYMENTS_PER_RUN.measured} measured per run, under the in-process store's bound of 2,000 keys per API key.`,
  );
}

async function main(): Promise<void> {
  const started = Date.now();
  const node = node26();
  printHeader(node);
  // In process and first, while nothing else runs: the translation's floor, without HTTP.
  const floor = options.only && !options.only.test('translation floor') ? undefined : await measureTranslationFloor(path.join(root, 'dist'), path.join(root, 'mappings'));
  const fake = await startChild('fake v1', path.join(here, 'fake-v1.js'), [], RUN_LIFETIME_S);
  let redis: BenchRedis | undefined;
  try {
    const payer = await launchGateway(launcher, 'gateway (payment check)', fake.url);
    await checkPayment(payer).finally(() => payer.stop());
    redis = await startRedis(root, fake, launcher, RUN_LIFETIME_S);
    const nginx = await startNginx(fake, launcher);
    const sameBytes = await checkSameBytes(here, fake, launcher);
    const all = targets({ here, launcher, redis, nginx, node26: node, rosterSizes: options.rosterSizes, connections: run.connections, sameBytes });
    const rows = await measureAll(run, fake, all.filter((t) => options.only?.test(t.name) ?? true));
    const get = (target: string) => rows.find((r) => r.target === target);
    say(`\n${table(rows, KEYS)}`);
    say('(direct rows: the fake v1 process itself, whose RSS covers every run it served; nginx rows: peak RSS of nginx, master and');
    say(' worker, and CPU of nginx plus the gateway behind the front, split below; spread: (best - worst) / best req/s of the rounds)\n');
    printUncachedRatios(get);
    printSameBytesRatios(get, node?.version);
    printRelayFloor(get, node?.version);
    printTranslationFloor(floor);
    printCachedRatios(get, KEYS);
    printFrontRatios(get);
    printTeamListings(get, options.rosterSizes, run.connections);
    printNode26(rows, get, node?.version);
    printMemory(rows, KEYS);
    printRedis(get, redis, KEYS);
    say(`\nWhole run: ${((Date.now() - started) / 60_000).toFixed(1)} min.`);

    mkdirSync(resultsDir, { recursive: true });
    const stamp = Date.now();
    const summary = { node: process.version, node26: node?.version ?? null, start: launcher.start, ...run, apiKeys: KEYS, redis: redis?.version ?? null, nginx: nginx?.version ?? null, rows, translationFloor: floor ?? null };
    writeFileSync(path.join(resultsDir, `bench-${stamp}.json`), JSON.stringify(summary, null, 2));
    writeFileSync(path.join(resultsDir, `bench-${stamp}.txt`), everythingSaid());
    if (options.profile) await runProfile(run, launcher, fake.url, resultsDir);
  } finally {
    await redis?.stop();
    await fake.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
