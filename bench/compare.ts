// `npm run bench:compare -- --path /api/clients/0/10 --env '{"CACHE_TTL_MS":"0"}' --flags-b '--max-semi-space-size=16'`:
// two variants of the gateway (a built tree each, `--cli-a`/`--cli-b`, and/or Node flags and settings of
// their own) under the same load, in alternating runs (A B, B A, ...), each started as `npm start` starts
// it. On a shared machine one run moves by 10 to 20% with what else the machine does; alternating runs see
// the same drift, so the medians of the two say whether a change of a few percent is real. With
// `--with-minimal`, the minimal reshaper (on a /api/clients/0/N path) runs in every round too, and each
// variant's CPU per request is printed beside it: what the gateway pays on top of the least code that
// gives the legacy reply. Prints every run and the medians of CPU per request, req/s and peak RSS (docs/benchmarks.md).
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

type Name = 'A' | 'B' | 'minimal';

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
  // `--count N`: N requests per connection after one each to warm up, every one answered, instead of a
  // duration (a run of a few seconds of 10,000-member listings ends with listings queued, their CPU
  // counted and their replies not), as `npm run bench` runs its large team listings.
  const count = Number(argValue('--count', '0'));
  if (!Number.isInteger(count) || count < 0) throw new Error(`--count: a whole number of 0 or more, not ${argValue('--count', '')}`);
  const amount = count > 0 ? { amount: { warmup: run.connections, measured: count * run.connections } } : {};
  const fake = await startChild('fake v1', path.join(here, 'fake-v1.js'), practitioners === '' ? [] : ['--practitioners', practitioners], 1500);
  const withMinimal = process.argv.includes('--with-minimal');
  const results: Record<Name, Measured[]> = { A: [], B: [], minimal: [] };
  const requests = () => (keys === 'handful' ? handfulOfKeys(urlPath) : newKeyPerRequest(urlPath));
  try {
    const [a, b] = [variant('A'), variant('B')];
    for (let round = 0; round < rounds; round++) {
      console.log(`round ${round + 1} of ${rounds}`);
      const order: Array<Variant | 'minimal'> = round % 2 === 0 ? [a, b] : [b, a];
      if (withMinimal) order.splice(round % 3, 0, 'minimal');
      for (const v of order) {
        const name: Name = v === 'minimal' ? v : v.name;
        const target =
          v === 'minimal'
            ? await startChild('minimal reshaper', path.join(here, 'minimal-reshaper.js'), ['--upstream', fake.url], 300)
            : await launchGateway({ cli: v.cli, lifetimeS: 300, start: readStartCommand(root) } satisfies GatewayLauncher, v.name, fake.url, { env: v.env, nodeArgs: v.flags });
        try {
          results[name].push(await measure(run, { name, keys, path: urlPath }, target, { requests: requests(), ...amount }));
        } finally {
          await target.stop();
        }
      }
    }
  } finally {
    await fake.stop();
  }
  const medianOf = (name: Name, pick: (m: Measured) => number | undefined): number =>
    median(results[name].map(pick).filter((n): n is number => n !== undefined));
  const minimalCpu = withMinimal ? medianOf('minimal', (m) => m.cpuUsPerRequest) : undefined;
  for (const name of withMinimal ? (['A', 'B', 'minimal'] as const) : (['A', 'B'] as const)) {
    const cpu = medianOf(name, (m) => m.cpuUsPerRequest);
    const beside = minimalCpu === undefined || name === 'minimal' ? '' : `, ${(cpu - minimalCpu).toFixed(0)} us/req on top of the minimal's (${(minimalCpu / cpu).toFixed(2)}x)`;
    console.log(`median ${name}: CPU ${cpu.toFixed(0)} us/req, ${medianOf(name, (m) => m.rps).toFixed(0)} req/s, peak RSS ${medianOf(name, (m) => m.rssMb).toFixed(0)} MB${beside}`);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
