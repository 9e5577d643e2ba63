// `npm run bench:compare -- --path /api/clients/0/10 --env '{"CACHE_TTL_MS":"0"}' --flags-b '--max-semi-space-size=16'`:
// two variants of the gateway (a built tree each, `--cli-a`/`--cli-b`, and/or Node flags and settings of
// their own) under the same load, in alternating runs (A B, B A, ...), each started as `npm start` starts
// it. On a shared machine one run moves by 10 to 20% with what else the machine does; alternating runs see
// the same drift, so the medians of the two say whether a change of a few percent is real. Prints every run
// and the medians of CPU per request, req/s and peak RSS (README: Benchmark).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { argValue } from './child-args.js';
import { launchGateway, type GatewayLauncher } from './gateway-launch.js';
import { measure, type Keys, type Measured } from './measure.js';
import { startChild } from './processes.js';
import { handfulOfKeys, newKeyPerRequest } from './requests.js';
import { readStartCommand } from './start-command.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');

interface Variant {
  name: 'A' | 'B';
  cli: string;
  flags: string[];
  env: Record<string, string>;
}

const words = (text: string): string[] => text.split(' ').filter((w) => w !== '');
const settings = (text: string): Record<string, string> => JSON.parse(text) as Record<string, string>;

function variant(name: 'A' | 'B'): Variant {
  const lower = name.toLowerCase();
  return {
    name,
    cli: path.resolve(argValue(`--cli-${lower}`, path.join(root, 'dist', 'cli.js'))),
    flags: words(argValue(`--flags-${lower}`, '')),
    env: { ...settings(argValue('--env', '{}')), ...settings(argValue(`--env-${lower}`, '{}')) },
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

async function main(): Promise<void> {
  const urlPath = argValue('--path', '/api/clients/0/10');
  const keys: Keys = argValue('--keys', 'new') === 'handful' ? 'handful' : 'new per request';
  const rounds = Number(argValue('--rounds', '4'));
  const run = { durationS: Number(argValue('--duration', '5')), warmupS: Number(argValue('--warmup', '2')), rounds: 1, connections: Number(argValue('--connections', '50')) };
  const practitioners = argValue('--practitioners', '');
  const fake = await startChild('fake v1', path.join(here, 'fake-v1.js'), practitioners === '' ? [] : ['--practitioners', practitioners], 1500);
  const results: Record<'A' | 'B', Measured[]> = { A: [], B: [] };
  try {
    const [a, b] = [variant('A'), variant('B')];
    for (let round = 0; round < rounds; round++) {
      console.log(`round ${round + 1} of ${rounds}`);
      for (const v of round % 2 === 0 ? [a, b] : [b, a]) {
        const launcher: GatewayLauncher = { cli: v.cli, lifetimeS: 300, start: readStartCommand(root) };
        const gateway = await launchGateway(launcher, v.name, fake.url, { env: v.env, nodeArgs: v.flags });
        try {
          const requests = keys === 'handful' ? handfulOfKeys(urlPath) : newKeyPerRequest(urlPath);
          const row = await measure(run, { name: v.name, keys, path: urlPath }, gateway, { requests });
          results[v.name].push(row);
        } finally {
          await gateway.stop();
        }
      }
    }
  } finally {
    await fake.stop();
  }
  for (const name of ['A', 'B'] as const) {
    const rows = results[name];
    const of = (pick: (m: Measured) => number | undefined) => median(rows.map(pick).filter((n): n is number => n !== undefined)).toFixed(0);
    console.log(`median ${name}: CPU ${of((m) => m.cpuUsPerRequest)} us/req, ${of((m) => m.rps)} req/s, peak RSS ${of((m) => m.rssMb)} MB`);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
