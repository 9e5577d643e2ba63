// Starts a gateway: loads and validates the mappings and operator files, picks the upstream
// (UPSTREAM_URL, or the embedded v1 sandbox with a loud warning), and listens on HOST:PORT.
// Everything is built once here; nothing is parsed or loaded per request. It also wires the hardening:
// the v1 GET transport wrapped in cache, single-flight, retry and metrics layers, the metrics listener on
// METRICS_PORT (never the public port), and the drain that close() runs on SIGTERM.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { ConfigError, type GatewayConfig } from './config.js';
import { loadMappingDirectory } from './loaders/mapping-files.js';
import { MappingSetError } from '../mapping/mapping-set.js';
import { IdempotencyStore } from './state/idempotency-store.js';
import { loadStaticRecords } from './loaders/static-records.js';
import type { V1Record } from '../mapping/legacy-record.js';
import type { startSandbox } from '../sandbox/index.js';
import { noMetrics, type GatewayMetrics } from './metrics/gateway-metrics.js';
import { startMetricsServer, type MetricsServer } from './metrics/metrics-server.js';
import { createPrometheusMetrics } from './metrics/prometheus.js';
import { hardenTransport } from './upstream/hardened-transport.js';
import { V1Client } from './upstream/v1-client.js';
import { createApp } from './edge/app.js';
import { createLifecycle, type RequestLifecycle } from './lifecycle.js';
import { DEFAULT_REPLY_CACHE_LIMITS, createReplyCache } from './state/reply-cache.js';
import { createLogger } from './logging.js';
import { createPassthrough } from './routes/passthrough.js';
import { paymentRoute } from './routes/payment.js';
import { createRecorder } from './steps/record.js';

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
  /** The requests in flight; routes mark with it what must finish before the process may exit. */
  lifecycle: RequestLifecycle;
  /** e.g. http://127.0.0.1:9464 when METRICS_PORT is set (the path is /metrics). */
  metricsUrl: string | undefined;
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/;

export interface StartOptions {
  config: GatewayConfig;
  logger?: Logger;
  /** The cache's clock (ms since the epoch); tests pass a fake one instead of waiting for TTLs. */
  now?: () => number;
}

export async function startGateway(options: StartOptions): Promise<RunningGateway> {
  const { config } = options;
  const logger = options.logger ?? createLogger(config.logLevel);
  // The key is lent to every caller who can reach the listener: beyond loopback only when asked for.
  if (config.upstreamApiKey !== undefined && !config.hostExplicit && !LOOPBACK.test(config.host)) {
    throw new ConfigError(`HOST: refusing to listen on ${config.host} with UPSTREAM_API_KEY set unless HOST is set explicitly`);
  }

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
    // Loaded only when used: its demo data would otherwise sit in every production gateway's memory.
    const { SANDBOX_KEYS, startSandbox: start } = await import('../sandbox/index.js');
    sandbox = await start({ port: 0, host: '127.0.0.1' });
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

  const prometheus = config.metricsPort === undefined ? undefined : createPrometheusMetrics({ legacyMethods: mappings.keys() });
  const metrics: GatewayMetrics = prometheus ?? noMetrics;
  const lifecycle = createLifecycle({ shutdownTimeoutMs: config.shutdownTimeoutMs });
  // A 1000-record v1 page is 1-2 MB: 16 MB is ample, and bounds what one reply can cost in memory.
  const client = new V1Client({ upstreamUrl, timeoutMs: config.upstreamTimeoutMs, maxBodyBytes: 16 * 1024 * 1024 });
  // GETs (translated calls and the payment flow's checks) go through the hardening layers; POSTs do not.
  const transport = hardenTransport(client, { cacheTtlMs: config.cacheTtlMs, metrics, ...(options.now ? { now: options.now } : {}) });
  const passthrough = createPassthrough({ upstreamUrl, upstreamApiKey, timeoutMs: config.upstreamTimeoutMs });
  const servePayment = paymentRoute({
    mapping: paymentMapping,
    transport,
    writer: client,
    idempotency: new IdempotencyStore(),
    upstreamApiKey,
    logger,
    holdUntilDone: (work) => void lifecycle.holdUntilDone(work),
    onPaymentCode: (code) => metrics.paymentCompleted(code),
  });
  // RECORD_FILE: each legacy call and its reply, secrets redacted, in the JSONL that `replay` reads.
  const recorder = config.recordFile
    ? createRecorder(config.recordFile, { onError: (err) => logger.warn({ err: err.message }, 'RECORD_FILE: recording problem') })
    : undefined;
  const listener = createApp({
    ...(recorder ? { recorder: recorder.middleware } : {}),
    // A payment in flight is never cut off by the shutdown deadline: it always answers.
    payment: (req, res) => {
      lifecycle.mustFinish(req);
      servePayment(req, res);
    },
    metrics,
    lifecycle,
    ...(config.cacheTtlMs > 0
      ? { replyCache: createReplyCache({ ...DEFAULT_REPLY_CACHE_LIMITS, ...(options.now ? { now: options.now } : {}) }), onReplyCacheHit: () => metrics.cacheEvent('hit') }
      : {}),
    mappings,
    transport,
    passthrough,
    logger,
    upstreamUrl,
    upstreamApiKey,
    upstreamTimeoutMs: config.upstreamTimeoutMs,
    accountTimezone: config.accountTimezone,
    staticRecords: (setting) => staticData.get(setting),
    isDraining: () => lifecycle.draining(),
  });

  const server = http.createServer(
    {
      // Timeouts for a proxy facing the internet: slow senders cannot hold sockets for ever.
      headersTimeout: 15_000,
      requestTimeout: Math.max(60_000, config.upstreamTimeoutMs * 2),
      keepAliveTimeout: 5_000,
      // How often the two timeouts above are enforced (Node's default, 30 s, lets a slow sender linger).
      connectionsCheckingInterval: 2_000,
      maxHeaderSize: 16 * 1024,
    },
    listener,
  );
  server.maxHeadersCount = 100;
  // Bounds how long one client can keep a connection busy with a stream of requests.
  server.maxRequestsPerSocket = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  let metricsServer: MetricsServer | undefined;
  if (prometheus && config.metricsPort !== undefined) {
    try {
      metricsServer = await startMetricsServer({ registry: prometheus.registry, host: config.host, port: config.metricsPort });
    } catch (err) {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await client.close();
      await sandbox?.close();
      throw err;
    }
  }
  logger.info(
    { host: config.host, port, metricsPort: metricsServer?.port, mappings: mappings.size, upstream: sandbox ? 'sandbox' : 'UPSTREAM_URL' },
    'legacy-gateway listening',
  );

  let closing: Promise<void> | undefined;
  async function close(): Promise<void> {
    closing ??= (async () => {
      const report = await lifecycle.drain(server);
      logger.info(report, 'drained');
      await passthrough.close();
      await recorder?.close();
      await client.close();
      await metricsServer?.close();
      await sandbox?.close();
    })();
    return closing;
  }

  return {
    url: `http://${host}:${port}`,
    port,
    upstreamUrl,
    server,
    logger,
    close,
    draining: () => lifecycle.draining(),
    lifecycle,
    metricsUrl: metricsServer?.url,
  };
}
