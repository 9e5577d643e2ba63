// Starts a gateway: loads and validates the mappings and operator files, picks the upstream
// (UPSTREAM_URL, or the embedded v1 sandbox with a loud warning), and listens on HOST:PORT.
// Everything is built once here; nothing is parsed or loaded per request.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../config.js';
import { loadMappingDirectory } from '../loaders/mapping-files.js';
import { MappingSetError } from '../mapping/mapping-set.js';
import { IdempotencyStore } from '../payment/idempotency.js';
import { loadStaticRecords } from '../loaders/static-records.js';
import type { V1Record } from '../mapping/legacy-record.js';
import { SANDBOX_KEYS, startSandbox } from '../sandbox/index.js';
import { V1Client } from '../upstream/v1-client.js';
import { createApp } from './app.js';
import { createLogger } from './logging.js';
import { createPassthrough } from './passthrough.js';
import { paymentRoute } from './payment-route.js';

export interface RunningGateway {
  /** e.g. http://127.0.0.1:54321 */
  url: string;
  port: number;
  /** Base URL of the v1 upstream in use (the embedded sandbox's when UPSTREAM_URL is unset). */
  upstreamUrl: string;
  server: http.Server;
  logger: Logger;
  /** Stops accepting, lets requests in flight finish (up to the shutdown timeout), then frees everything. */
  close(): Promise<void>;
  /** True once close() has begun: /readyz answers 503. */
  draining(): boolean;
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/;

export async function startGateway(options: { config: GatewayConfig; logger?: Logger }): Promise<RunningGateway> {
  const { config } = options;
  const logger = options.logger ?? createLogger(config.logLevel);

  const { reads: mappings, payment: paymentMapping } = await loadMappingDirectory(config.mappingsDir);
  if (!paymentMapping) {
    throw new MappingSetError([{ file: 'payment.yaml', path: '', reason: 'no payment mapping (kind: payment) in the mappings directory' }]);
  }
  // Operator files named by a setting (testimonials); the settings a static mapping may name:
  const settings: Record<string, string | undefined> = { TESTIMONIALS_FILE: config.testimonialsFile };
  const staticData = new Map<string, V1Record[]>();
  for (const mapping of mappings.values()) {
    if (mapping.kind !== 'static') continue;
    const file = settings[mapping.source.setting];
    if (file !== undefined) staticData.set(mapping.source.setting, await loadStaticRecords(mapping.source.setting, file));
  }

  let upstreamUrl = config.upstreamUrl;
  let upstreamApiKey = config.upstreamApiKey;
  let sandbox: Awaited<ReturnType<typeof startSandbox>> | undefined;
  if (upstreamUrl === undefined) {
    sandbox = await startSandbox({ port: 0, host: '127.0.0.1' });
    upstreamUrl = sandbox.url;
    upstreamApiKey ??= SANDBOX_KEYS.primary;
    logger.warn(
      { upstream: sandbox.url },
      'UPSTREAM_URL is not set: serving from the EMBEDDED V1 SANDBOX with demo data, not from the real service',
    );
  }
  if (config.upstreamApiKey !== undefined && config.hostExplicit && !LOOPBACK.test(config.host)) {
    logger.warn({ host: config.host }, 'this gateway holds UPSTREAM_API_KEY and listens beyond loopback: every caller can use the key');
  }

  const transport = new V1Client({ upstreamUrl, timeoutMs: config.upstreamTimeoutMs });
  const passthrough = createPassthrough({ upstreamUrl, upstreamApiKey, timeoutMs: config.upstreamTimeoutMs });
  let draining = false;
  const payment = paymentRoute({
    mapping: paymentMapping,
    transport,
    writer: transport,
    idempotency: new IdempotencyStore(),
    upstreamApiKey,
    logger,
  });
  const listener = createApp({
    payment,
    mappings,
    transport,
    passthrough,
    logger,
    upstreamUrl,
    upstreamApiKey,
    upstreamTimeoutMs: config.upstreamTimeoutMs,
    accountTimezone: config.accountTimezone,
    staticRecords: (setting) => staticData.get(setting),
    isDraining: () => draining,
  });

  const server = http.createServer(
    {
      // Timeouts for a proxy facing the internet: slow senders cannot hold sockets for ever.
      headersTimeout: 20_000,
      requestTimeout: Math.max(60_000, config.upstreamTimeoutMs * 2),
      keepAliveTimeout: 5_000,
    },
    listener,
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  logger.info({ host: config.host, port, mappings: mappings.size, upstream: sandbox ? 'sandbox' : 'UPSTREAM_URL' }, 'legacy-gateway listening');

  let closing: Promise<void> | undefined;
  async function close(): Promise<void> {
    closing ??= (async () => {
      draining = true;
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const deadline = new Promise<void>((resolve) => setTimeout(resolve, config.shutdownTimeoutMs).unref());
      await Promise.race([stopped, deadline]);
      server.closeAllConnections();
      passthrough.close();
      await transport.close();
      await sandbox?.close();
    })();
    return closing;
  }

  return { url: `http://${host}:${port}`, port, upstreamUrl, server, logger, close, draining: () => draining };
}
