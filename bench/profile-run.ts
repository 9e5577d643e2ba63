// `npm run bench -- --profile`: the gateway under --cpu-prof on the translated list (cache off, a new key
// per request, as the translated rows that have a target read it) and on the passthrough, then its top
// frames by self time.
import { mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { summariseProfile } from './cpu-profile.js';
import { CACHE_OFF, launchGateway, type GatewayLauncher } from './gateway-launch.js';
import { measure, type RunSettings } from './measure.js';
import { say } from './report-lines.js';
import { handfulOfKeys, newKeyPerRequest } from './requests.js';
import { PASSTHROUGH_PATH, clientsPath } from './target-names.js';

export async function runProfile(run: RunSettings, launcher: GatewayLauncher, upstream: string, resultsDir: string): Promise<void> {
  const dir = path.join(resultsDir, `profile-${Date.now()}`);
  mkdirSync(dir, { recursive: true });
  const gw = await launchGateway(launcher, 'gateway (profiled)', upstream, { env: CACHE_OFF, nodeArgs: ['--cpu-prof', '--cpu-prof-dir', dir] });
  try {
    const list = clientsPath(100);
    await measure(run, { name: 'profiled: translated 100, cache off', keys: 'new per request', path: list }, gw, { requests: newKeyPerRequest(list) });
    await measure(run, { name: 'profiled: passthrough', keys: 'handful', path: PASSTHROUGH_PATH }, gw, { requests: handfulOfKeys(PASSTHROUGH_PATH) });
  } finally {
    await gw.stop();
  }
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error('no .cpuprofile was written');
  const summary = summariseProfile(path.join(dir, file));
  say(`\nCPU profile of the gateway under load (${summary.samples} samples, ${path.join(dir, file)})`);
  say('\nTop frames by self time:');
  for (const f of summary.frames) say(`  ${f.percent.toFixed(1).padStart(5)}%  ${f.name}`);
  say('\nBy package / file:');
  for (const g of summary.groups) say(`  ${g.percent.toFixed(1).padStart(5)}%  ${g.name}`);
}
