// Starts a standalone gateway: loads and validates the mappings and operator files, composes the gateway
// (compose.ts, the one composition root, which opens and later closes its connections) with what only a
// server has (the drain on SIGTERM, the metrics listener on METRICS_PORT, never the public port, the
// recorder), and listens on HOST:PORT. The upstream is
// UPSTREAM_URL, or the one the caller composes in (the serve command's embedded sandbox): this module
// never starts or imports the sandbox.
import { closeSync, mkdirSync, openSync } from 'node:fs';
import type { RequestListener, Server } from 'node:http';
import { http } from './node-http.js';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Logger } from 'pino';
import { MappingSetError } from '../mapping/mapping-set.js';
import { ConfigError, isLoopbackHost, upstreamAddress, type GatewayConfig } from './config.js';
import { composeGateway, type ComposedGateway, type LoadedFiles } from './compose.js';
import type { Gateway } from './create-gateway.js';
import { createLifecycle, type RequestLifecycle } from './lifecycle.js';
import { loadMappingDirectory, type MappingDirectory } from './loaders/mapping-files.js';
import { loadOperatorRecords } from './loaders/static-records.js';
import { createMappingReloads, type MappingReloads } from './reload/mapping-reload.js';
import { createLogger } from './logging.js';
import { startMetricsServer, type MetricsServer } from './metrics/metrics-server.js';
import { noMetrics } from './metrics/gateway-metrics.js';
import { createPrometheusMetrics, type PrometheusMetrics } from './metrics/prometheus.js';
import { createRecorder, type Recorder } from './steps/record.js';
import type { SharedRedis } from './state/shared-redis.js';
import { loadShadow, shadowReload } from './shadow/load-shadow.js';
import type { ShadowReads } from './shadow/shadow-reads.js';
import { loadTracing } from './tracing/load.js';
import { brownoutsReload, createBrownoutSchedule, loadBrownouts, type BrownoutSchedule } from './brownouts/brownout-file.js';
import type { GatewayTracing } from './tracing/types.js';
import { createIntegrationDirectory, type IntegrationDirectory } from './integrations/integration-directory.js';
import { integrationsReload, loadIntegrations } from './integrations/integration-file.js';
import type { NoticeLoop } from './notices/notice-loop.js';

export interface RunningGateway {
  /** e.g. http://127.0.0.1:54321 */
  url: string;
  port: number;
  /** Base URL of the v1 upstream in use. */
  upstreamUrl: string;
  server: Server;
  logger: Logger;
  /** Stops accepting, lets requests in flight finish (up to the shutdown timeout), then frees everything. */
  close(): Promise<void>;
  /** True once close() has begun: /readyz answers 503. */
  draining(): boolean;
  /** The requests in flight; routes mark with it what must finish before the process may exit. */
  lifecycle: RequestLifecycle;
  /** e.g. http://127.0.0.1:9464 when METRICS_PORT is set (the path is /metrics). */
  metricsUrl: string | undefined;
  /** The connection to REDIS_URL (its state: `isUp()`, `onStateChange`); undefined without it. */
  redis: SharedRedis | undefined;
  /** SHADOW_MAPPINGS_DIR's comparisons: `replace(set)` swaps the candidate set, `idle()` waits for the queue. */
  shadow: ShadowReads | undefined;
  /** The notices to the integrations' owners (INTEGRATIONS_FILE with GATEWAY_SECRET): `runOnce()` runs a round
   * now; undefined: none are sent. */
  notices: NoticeLoop | undefined;
  /** The mapping sets reloaded on SIGHUP: `reload()` re-reads MAPPINGS_DIR (and every set registered beside
   * it) and swaps each valid one in; `register()` adds a set. */
  reloads: MappingReloads;
  /** The legacy calls counted for GET /usage; `flush()` hands them to Redis now (REDIS_URL). */
  usage: Gateway['usage'];
  /** INTEGRATIONS_FILE's directory (fingerprint -> integration, and the list); undefined without it. */
  integrations: IntegrationDirectory | undefined;
}

/** An upstream composed in by the caller instead of UPSTREAM_URL (the serve command's sandbox). */
export interface ComposedUpstream {
  url: string;
  /** The key lent to calls that bring none (the sandbox's demo key). */
  apiKey: string | undefined;
  /** Demo data (the embedded sandbox): every reply and /readyz say so. */
  demo?: boolean;
}

export interface StartOptions {
  config: GatewayConfig;
  logger?: Logger;
  /** The caches' clock (ms since the epoch); tests pass a fake one instead of waiting for TTLs. */
  now?: () => number;
  upstream?: ComposedUpstream;
}

/** The key is lent to every caller who can reach the listener: beyond loopback only when asked for. */
function checkKeyExposure(config: GatewayConfig, logger: Logger): void {
  if (config.upstreamApiKey === undefined || isLoopbackHost(config.host)) return;
  if (!config.hostExplicit) {
    throw new ConfigError(`HOST: refusing to listen on ${config.host} with UPSTREAM_API_KEY set unless HOST is set explicitly`);
  }
  logger.warn({ host: config.host }, 'this gateway holds UPSTREAM_API_KEY and listens beyond loopback: every caller can use the key');
}

/** RECORD_FILE: its folder is created, and the file must open for appending, before the gateway listens;
 * a recording that could not even start is refused at start, never silently dropped. */
function prepareRecordFile(file: string): void {
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    closeSync(openSync(file, 'a'));
  } catch (err) {
    throw new ConfigError(`RECORD_FILE: cannot write ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

async function loadFiles(config: GatewayConfig): Promise<MappingDirectory & { payment: NonNullable<MappingDirectory['payment']> }> {
  const loaded = await loadMappingDirectory(config.mappingsDir);
  if (!loaded.payment) {
    throw new MappingSetError([{ file: 'payment.yaml', path: '', reason: 'no payment mapping (kind: payment) in the mappings directory' }]);
  }
  return { reads: loaded.reads, payment: loaded.payment, digest: loaded.digest };
}

/** MAPPINGS_DIR's set and the operator files its static mappings name, read and validated: at start, and
 * again at each reload (a bad operator file refuses the reload as a bad mapping does). */
async function loadServedFiles(config: GatewayConfig): Promise<{ files: LoadedFiles; digest: string }> {
  const { reads: mappings, payment, digest } = await loadFiles(config);
  const operatorFiles = loadOperatorRecords(mappings, { TESTIMONIALS_FILE: config.testimonialsFile });
  return { files: { mappings, payment, staticRecords: (setting) => operatorFiles.get(setting) }, digest };
}

/** SIGHUP's reloads (serve.ts): MAPPINGS_DIR's first, its files read again and, when valid, swapped into the
 * gateway; then the sets registered beside it while composing. The set in service is named in the metrics. */
function mappingReloads(
  start: { config: GatewayConfig; logger: Logger; prometheus: PrometheusMetrics | undefined; digest: string; mappings: LoadedFiles['mappings'] },
  gateway: () => Gateway,
): MappingReloads {
  const { config, prometheus } = start;
  prometheus?.mappingsInService(start.digest, start.mappings.keys());
  const reloads = createMappingReloads({ logger: start.logger, metrics: prometheus ?? noMetrics, digests: { MAPPINGS_DIR: start.digest } });
  reloads.register({
    name: 'MAPPINGS_DIR',
    async reload() {
      const next = await loadServedFiles(config);
      gateway().reload(next.files);
      prometheus?.mappingsInService(next.digest, next.files.mappings.keys());
      return { digest: next.digest, mappings: next.files.mappings.size };
    },
  });
  return reloads;
}

function createServer(config: GatewayConfig, listener: RequestListener): Server {
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
  return server;
}

function listen(server: Server, config: GatewayConfig): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** Everything close() must free, in the order it frees it. */
interface Resources {
  server: Server;
  lifecycle: RequestLifecycle;
  composed: ComposedGateway;
  recorder: Recorder | undefined;
  metricsServer?: MetricsServer | undefined;
}

function closer(resources: Resources, logger: Logger): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () => {
    closing ??= (async () => {
      const report = await resources.lifecycle.drain(resources.server);
      logger.info(report, 'drained');
      // Every payment has answered by now: the gateway abandons the v1 calls of reads cut off at the
      // deadline instead of waiting for them, so the process can exit right after the deadline.
      await resources.composed.close();
      await resources.recorder?.close();
      await resources.metricsServer?.close();
    })();
    return closing;
  };
}

/** The composed gateway whose close() then sends the spans still buffered: the requests a drain let finish
 * are traced too. */
function closingTracing(composed: ComposedGateway, tracing: GatewayTracing): ComposedGateway {
  return {
    ...composed,
    async close() {
      try {
        await composed.close();
      } finally {
        await tracing.close();
      }
    },
  };
}

/** The legacy read methods a gateway serves (what a brownout's `methods` may name). */
const readMethodsOf = (gateway: Gateway): ReadonlySet<string> => new Set(gateway.table.routes().filter((r) => r.kind === 'read').map((r) => r.label));

/** BROWNOUTS_FILE, read and validated at start (a bad file stops the start, as a bad mapping does). */
function loadSchedule(config: GatewayConfig, readMethods: ReadonlySet<string>): BrownoutSchedule | undefined {
  if (config.brownoutsFile === undefined) return undefined;
  return createBrownoutSchedule(loadBrownouts(config.brownoutsFile, readMethods).windows);
}

/** INTEGRATIONS_FILE, read and validated at start (a bad file stops the start, as a bad mapping does). */
function loadDirectory(config: GatewayConfig): IntegrationDirectory | undefined {
  if (config.integrationsFile === undefined) return undefined;
  return createIntegrationDirectory(loadIntegrations(config.integrationsFile).integrations);
}

async function startMetrics(prometheus: PrometheusMetrics | undefined, config: GatewayConfig, gateway: Pick<Gateway, 'usage' | 'payments'>, undo: () => Promise<void>): Promise<MetricsServer | undefined> {
  if (!prometheus || config.metricsPort === undefined) return undefined;
  try {
    return await startMetricsServer({ registry: prometheus.registry, host: config.host, port: config.metricsPort, usage: gateway.usage, payments: gateway.payments });
  } catch (err) {
    await undo();
    throw err;
  }
}

/** The files reloaded on SIGHUP after MAPPINGS_DIR, in this order. */
function registerFileReloads(
  reloads: ReturnType<typeof mappingReloads>,
  config: StartOptions['config'],
  gateway: ComposedGateway['gateway'],
  integrations: ReturnType<typeof loadDirectory>,
  brownouts: ReturnType<typeof loadSchedule>,
): void {
  if (config.shadowMappingsDir !== undefined && gateway.shadow) reloads.register(shadowReload(config.shadowMappingsDir, gateway.shadow));
  if (config.integrationsFile !== undefined && integrations) reloads.register(integrationsReload(config.integrationsFile, integrations));
  // After MAPPINGS_DIR's: a window's `methods` is checked against the set that just took over.
  if (config.brownoutsFile !== undefined && brownouts) reloads.register(brownoutsReload(config.brownoutsFile, brownouts, () => readMethodsOf(gateway)));
}

export async function startGateway(options: StartOptions): Promise<RunningGateway> {
  const { config } = options;
  const logger = options.logger ?? createLogger(config.logLevel);
  const upstreamUrl = options.upstream?.url ?? config.upstreamUrl;
  if (upstreamUrl === undefined) throw new ConfigError('UPSTREAM_URL: not set');
  checkKeyExposure(config, logger);
  const { files, digest } = await loadServedFiles(config);
  const { mappings } = files;

  const prometheus = config.metricsPort === undefined ? undefined : createPrometheusMetrics({ legacyMethods: mappings.keys(), redis: config.redisUrl !== undefined });
  // Composed before the first signal can be handled: serve.ts listens for SIGHUP once started.
  const reloads = mappingReloads({ config, logger, prometheus, digest, mappings }, () => composed.gateway);
  const lifecycle = createLifecycle({ shutdownTimeoutMs: config.shutdownTimeoutMs });
  const integrations = loadDirectory(config);
  const brownouts = loadSchedule(config, new Set([...mappings.values()].map((m) => m.method)));
  // RECORD_FILE: each legacy call and its reply, secrets redacted, in the JSONL that `replay` reads.
  if (config.recordFile) prepareRecordFile(config.recordFile);
  const recorder = config.recordFile
    ? createRecorder(config.recordFile, { onError: (err) => logger.warn({ err: err.message }, 'RECORD_FILE: recording problem') })
    : undefined;
  let composed: ComposedGateway;
  let tracing: GatewayTracing | undefined;
  try {
    // OTEL_*: the OpenTelemetry SDK is imported only when an OTLP endpoint is set.
    tracing = await loadTracing(process.env, logger);
    composed = await composeGateway({
      settings: { ...config, upstreamUrl, upstreamApiKey: options.upstream ? options.upstream.apiKey : config.upstreamApiKey },
      files,
      logger,
      lifecycle,
      reloads,
      unsafeStore: 'refuse-start',
      // SHADOW_MAPPINGS_DIR: a candidate set, validated as MAPPINGS_DIR is (a bad one stops the start).
      shadow: loadShadow(config, logger),
      ...(prometheus ? { metrics: prometheus } : {}),
      ...(recorder ? { recorder: recorder.step } : {}),
      ...(options.now ? { now: options.now } : {}),
      ...(options.upstream?.demo ? { demo: true } : {}),
      ...(tracing ? { tracing } : {}),
      ...(integrations ? { integrations } : {}),
      ...(brownouts ? { brownouts: { schedule: brownouts, where: { guidesUrl: config.guidesUrl, legacyDocsUrl: config.legacyDocsUrl } } } : {}),
    });
  } catch (err) {
    // Nothing may keep the process alive after a failed start.
    await recorder?.close();
    await tracing?.close();
    throw err;
  }
  if (tracing) composed = closingTracing(composed, tracing);
  const { gateway, redis } = composed;
  registerFileReloads(reloads, config, gateway, integrations, brownouts);
  const server = createServer(config, (req, res) => gateway.handler(req, res));
  const port = await listen(server, config).catch(async (err: unknown) => {
    // Nothing may keep the process alive after a failed start (a port in use, say).
    await composed.close();
    await recorder?.close();
    throw err;
  });
  const resources: Resources = { server, lifecycle, composed, recorder };
  resources.metricsServer = await startMetrics(prometheus, config, gateway, async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await composed.close();
  });
  logger.info(
    { host: config.host, port, metricsPort: resources.metricsServer?.port, mappings: mappings.size, mappingsDigest: digest, upstream: upstreamAddress(upstreamUrl), sharedState: redis ? 'redis' : 'in process', paymentClaims: composed.claimsKind, ...(composed.claimsAddress === undefined ? {} : { paymentClaimsAt: composed.claimsAddress }), duplicateWindowS: config.paymentDuplicateWindowS },
    'legacy-gateway listening',
  );

  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return {
    url: `http://${host}:${port}`,
    port,
    upstreamUrl,
    server,
    logger,
    close: closer(resources, logger),
    draining: () => lifecycle.draining(),
    lifecycle,
    metricsUrl: resources.metricsServer?.url,
    shadow: gateway.shadow,
    notices: gateway.notices,
    redis,
    reloads,
    usage: gateway.usage,
    integrations,
  };
}
