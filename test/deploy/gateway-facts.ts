// What the deploy files must agree with, read from the gateway itself rather than restated: the environment
// variables it knows (config.ts), its own HTTP paths (the OpenAPI document generated from the mappings), its
// default timeouts, the environment its Docker image sets, and what a pinned image reference is.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { openApiDocumentFor } from '../../src/commands/openapi.js';
import { ENVIRONMENT_NAMES, SHIPPED_MAPPINGS_DIR, settingsSchema } from '../../src/gateway/config.js';
import { gatewayWaitMs } from '../../src/gateway/front-proxy/front-routes.js';
import { ROOT } from './compose-files.js';

/** Every environment variable the gateway reads. */
export const KNOWN_VARIABLES: ReadonlySet<string> = new Set(Object.values(ENVIRONMENT_NAMES));

/** The paths the gateway answers itself (not legacy methods): /healthz and /readyz, from its OpenAPI document. */
export async function gatewayOwnPaths(): Promise<string[]> {
  const doc = await openApiDocumentFor(SHIPPED_MAPPINGS_DIR);
  return Object.keys(doc.paths).filter((p) => !p.startsWith('/api/'));
}

/** The timeouts a deployment that sets none gets. */
export const DEFAULT_TIMEOUTS = (() => {
  const defaults = settingsSchema.parse({});
  return { shutdownTimeoutMs: defaults.shutdownTimeoutMs, upstreamTimeoutMs: defaults.upstreamTimeoutMs };
})();

/** The longest a drain can take: the deadline of reads (SHUTDOWN_TIMEOUT_MS) then a payment's last POST
 * (UPSTREAM_TIMEOUT_MS); or a payment that had just begun, which the drain always waits for, as long as the
 * front waits for the gateway (every v1 call of its longest path timing out). */
export function drainMs(env: Readonly<Record<string, string | undefined>>): number {
  const shutdown = Number(env.SHUTDOWN_TIMEOUT_MS ?? DEFAULT_TIMEOUTS.shutdownTimeoutMs);
  const upstream = Number(env.UPSTREAM_TIMEOUT_MS ?? DEFAULT_TIMEOUTS.upstreamTimeoutMs);
  return Math.max(shutdown + upstream, gatewayWaitMs(upstream));
}

/** The ENV lines of the Dockerfile's last stage: what every container of the image starts with. */
export function imageEnvironment(): Record<string, string> {
  const text = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
  const stages = text.split(/^FROM /m);
  const last = stages[stages.length - 1] ?? '';
  const env: Record<string, string> = {};
  for (const line of last.split('\n')) {
    if (!line.startsWith('ENV ')) continue;
    for (const pair of line.slice(4).trim().split(/\s+/)) {
      const eq = pair.indexOf('=');
      if (eq > 0) env[pair.slice(0, eq)] = pair.slice(eq + 1);
    }
  }
  return env;
}

/** The heap flags the image's entrypoint and `npm start` give node (README: Memory). */
export function nodeFlagsOfStartScript(): string[] {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const words = (pkg.scripts.start ?? '').split(/\s+/);
  return words.filter((w) => w.startsWith('--'));
}

/** A reference that names one release: a digest, or a version tag (never latest, stable, mainline...). */
export function isPinnedImage(reference: string): boolean {
  if (/@sha256:[0-9a-f]{64}$/.test(reference)) return true;
  const lastPart = reference.split('/').pop() ?? '';
  const colon = lastPart.lastIndexOf(':');
  if (colon < 0) return false;
  return /^v?\d+\.\d+(\.\d+)?([-.][A-Za-z0-9.]+)?$/.test(lastPart.slice(colon + 1));
}

/** `legacy-gateway routes` run as the deploy files run it (the CLI built in dist/ by the suite's setup): the
 * configuration it prints for these arguments. It throws, with the CLI's one line, on an option it refuses. */
export function routesOutput(args: readonly string[]): string {
  return execFileSync(process.execPath, [path.join(ROOT, 'dist', 'cli.js'), 'routes', ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}
