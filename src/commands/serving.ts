// Composes what `serve` runs: the gateway against UPSTREAM_URL, or, when it is unset, against the
// embedded v1 sandbox started beside it (demo data and its demo key, with a loud warning, a header on
// every reply and a word in /readyz). A production start never serves demo data by accident: without
// UPSTREAM_URL, NODE_ENV=production or a HOST beyond loopback refuses to start unless SANDBOX=1 asks
// for the sandbox. The gateway itself never knows the sandbox; this is the one place that puts the two
// together for serving.
import type { Logger } from 'pino';
import { ConfigError, isLoopbackHost, type GatewayConfig } from '../gateway/config.js';
import { createLogger } from '../gateway/logging.js';
import { startGateway, type RunningGateway } from '../gateway/start.js';

export interface ServingOptions {
  config: GatewayConfig;
  logger?: Logger;
  now?: () => number;
}

export async function startServing(options: ServingOptions): Promise<RunningGateway> {
  const { config } = options;
  if (config.upstreamUrl !== undefined) return startGateway(options);
  if (!config.sandbox && (config.production || !isLoopbackHost(config.host))) {
    const why = config.production ? 'NODE_ENV is production' : `HOST ${config.host} is beyond loopback`;
    throw new ConfigError(`UPSTREAM_URL: not set, and ${why}: set UPSTREAM_URL to the service, or SANDBOX=1 to serve the embedded sandbox's demo data`);
  }
  const logger = options.logger ?? createLogger(config.logLevel);
  // Loaded only when used: its demo data would otherwise sit in every production gateway's memory.
  const { SANDBOX_KEYS, startSandbox } = await import('../sandbox/index.js');
  const sandbox = await startSandbox({ port: 0, host: '127.0.0.1' });
  logger.warn({ upstream: sandbox.url }, 'UPSTREAM_URL is not set: serving from the EMBEDDED V1 SANDBOX with demo data, not from the real service');
  let gateway: RunningGateway;
  try {
    gateway = await startGateway({ ...options, logger, upstream: { url: sandbox.url, apiKey: config.upstreamApiKey ?? SANDBOX_KEYS.primary, demo: true } });
  } catch (err) {
    await sandbox.close();
    throw err;
  }
  const closeGateway = gateway.close;
  return Object.assign(gateway, {
    close: async () => {
      await closeGateway();
      await sandbox.close();
    },
  });
}
