// `npm run bench:profile -- --paths /api/clients/0/100,/api/clients/0/10 --env '{"CACHE_TTL_MS":"0"}'`: the
// gateway under --cpu-prof, one process and one profile per path, under the bench's load (a new API key per
// request by default, so no call shares a cache entry or an upstream call), started as `npm start` starts it
// against the bench's fake v1; then, for each path, its CPU per request, the share of each layer of the
// gateway (bench/cpu-layers.ts) and the top frames by self time. The profiler itself costs some CPU, so the
// CPU per request printed here is above an unprofiled run's; the shares are what it is for.
import { mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { argValue } from './child-args.js';
import { layerShares } from './cpu-layers.js';
import { summariseProfile } from './cpu-profile.js';
import { launchGateway } from './gateway-launch.js';
import { measure, type Keys } from './measure.js';
import { startChild } from './processes.js';
import { handfulOfKeys, newKeyPerRequest } from './requests.js';
import { readStartCommand } from './start-command.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');

async function main(): Promise<void> {
  const paths = argValue('--paths', '/api/clients/0/100').split(',');
  const keys: Keys = argValue('--keys', 'new') === 'handful' ? 'handful' : 'new per request';
  const env = JSON.parse(argValue('--env', '{}')) as Record<string, string>;
  const node = argValue('--node', '');
  const run = { durationS: Number(argValue('--duration', '8')), warmupS: Number(argValue('--warmup', '2')), rounds: 1, connections: Number(argValue('--connections', '50')) };
  const cli = path.resolve(argValue('--cli', path.join(root, 'dist', 'cli.js')));
  const dir = path.join(root, 'bench', 'results', `profile-${Date.now()}`);
  const fake = await startChild('fake v1', path.join(here, 'fake-v1.js'), [], 600);
  try {
    for (const [i, urlPath] of paths.entries()) {
      const profileDir = path.join(dir, String(i));
      mkdirSync(profileDir, { recursive: true });
      const gw = await launchGateway({ cli, lifetimeS: 300, start: readStartCommand(root) }, 'gateway (profiled)', fake.url, {
        env,
        nodeArgs: ['--cpu-prof', '--cpu-prof-dir', profileDir],
        ...(node === '' ? {} : { node }),
      });
      let cpu: number | undefined;
      try {
        const requests = keys === 'handful' ? handfulOfKeys(urlPath) : newKeyPerRequest(urlPath);
        cpu = (await measure(run, { name: `profiled ${urlPath}`, keys, path: urlPath }, gw, { requests })).cpuUsPerRequest;
      } finally {
        await gw.stop();
      }
      const file = readdirSync(profileDir).find((f) => f.endsWith('.cpuprofile'));
      if (!file) throw new Error(`no .cpuprofile was written in ${profileDir}`);
      const where = path.join(profileDir, file);
      const layers = layerShares(where);
      console.log(`\n${urlPath}, ${keys === 'handful' ? 'a handful of keys' : 'a new key per request'}, ${JSON.stringify(env)}: CPU ${cpu?.toFixed(0) ?? 'n/a'} us/req under the profiler, ${layers.busySamples} busy samples serving, ${layers.startSamples} at the start left out (${where})`);
      console.log('\n| Layer | Share of CPU |\n|---|---:|');
      for (const { layer, percent } of layers.shares) console.log(`| ${layer} | ${percent.toFixed(1)}% |`);
      console.log(`\nIn "other": ${layers.other.map((o) => `${o.frame} ${o.percent.toFixed(1)}%`).join(', ')}`);
      console.log('\nEach layer by the frames its samples ended in:');
      for (const { layer, frames } of layers.shares) if (frames.length > 0) console.log(`  ${layer}: ${frames.map((f) => `${f.frame} ${f.percent.toFixed(1)}%`).join(', ')}`);
      console.log('\nTop frames by self time (idle included):');
      for (const f of summariseProfile(where, 25).frames) console.log(`  ${f.percent.toFixed(1).padStart(5)}%  ${f.name}`);
    }
  } finally {
    await fake.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
