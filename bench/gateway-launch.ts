// How the bench starts a gateway: `dist/cli.js serve` with what `npm start` sets (its environment and Node
// flags, package.json), logs at info to /dev/null and metrics on, as it runs in production, plus a row's
// own settings; on the bench's Node or another (the Node 26 rows).
import { startGateway, type BenchProcess } from './processes.js';
import type { StartCommand } from './start-command.js';

export interface GatewayLauncher {
  cli: string;
  lifetimeS: number;
  start: StartCommand;
}

export const gatewayEnv = (upstream: string): Record<string, string> => ({
  UPSTREAM_URL: upstream,
  UPSTREAM_API_KEY: 'bench-key',
  METRICS_PORT: '0',
  LOG_LEVEL: 'info',
});

/** The settings of a row whose every call reads v1 and reshapes: no cache of any kind. */
export const CACHE_OFF = { CACHE_TTL_MS: '0' } as const;

export function launchGateway(
  launcher: GatewayLauncher,
  name: string,
  upstream: string,
  options: { env?: Record<string, string>; nodeArgs?: string[]; node?: string } = {},
): Promise<BenchProcess> {
  return startGateway(name, {
    cli: launcher.cli,
    env: { ...launcher.start.env, ...gatewayEnv(upstream), ...options.env },
    nodeArgs: [...launcher.start.nodeFlags, ...(options.nodeArgs ?? [])],
    lifetimeS: launcher.lifetimeS,
    ...(options.node ? { node: options.node } : {}),
  });
}
