// The gateway as a library: `legacyGateway({ upstreamUrl })` returns Express middleware that an existing
// Express app mounts (`app.use(legacyGateway({ upstreamUrl }))`), serving the legacy surface from the
// v1 service. Options are the environment's settings in camelCase (docs/configuration.md), validated here
// once; mappings and operator files are loaded synchronously, before the router exists, so a bad one
// throws at once instead of failing requests later. Listening, metrics, the drain on SIGTERM and the
// recording of calls stay with the host application or with `legacy-gateway serve`. With `redisUrl` the
// router shares its Idempotency-Keys and read cache through Redis like a served replica: it connects in the
// background (the router serves at once, Redis up or not) and `close()` disconnects; `idempotencyUrl` keeps
// the payment claims in PostgreSQL (or a Redis of their own) the same way.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { z } from 'zod';
import { MappingSetError } from '../mapping/mapping-set.js';
import { expectation } from '../shared/issue-text.js';
import { ConfigError, SHIPPED_MAPPINGS_DIR, missingSecretWithRedis, settingProblems, settingsSchema, sunsetProblem } from './config.js';
import { composeGateway, type ComposedGateway } from './compose.js';
import { loadMappingDirectorySync } from './loaders/mapping-files.js';
import { loadOperatorRecords } from './loaders/static-records.js';
import { createLogger } from './logging.js';
import { completeMetrics, type GatewayMetrics } from './metrics/gateway-metrics.js';

const optionsSchema = settingsSchema
  .pick({
    upstreamApiKey: true,
    mappingsDir: true,
    accountTimezone: true,
    testimonialsFile: true,
    upstreamTimeoutMs: true,
    cacheTtlMs: true,
    cacheMinUses: true,
    logLevel: true,
    redisUrl: true,
    redisKeyPrefix: true,
    gatewaySecret: true,
    idempotencyUrl: true,
    paymentDuplicateWindowS: true,
    paymentSettleAfterS: true,
    idempotencyAcceptRisk: true,
    legacySunset: true,
    legacyDeprecatedAt: true,
    legacyDocsUrl: true,
  })
  .extend({ upstreamUrl: settingsSchema.shape.upstreamUrl.pipe(z.string({ error: 'is required' })) });

export type LegacyGatewayOptions = z.input<typeof optionsSchema> & {
  /** Where the request log lines go (default: a pino logger on stdout at `logLevel`). */
  logger?: Logger;
  /** Counts requests, upstream calls, cache events and payment codes (default: nothing is counted). */
  metrics?: GatewayMetrics;
};

/** Express middleware: mount it with `app.use(...)`, at the root or under a path. Typed as the middleware
 * it is, so that using it needs no Express type package. */
export type LegacyGatewayRouter = ((req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void) & {
  /** Frees the upstream connection pools (and the Redis connection); call it when the host application stops. */
  close(): Promise<void>;
};

export function legacyGateway(options: LegacyGatewayOptions): LegacyGatewayRouter {
  const { logger: givenLogger, metrics, ...settings } = options;
  const parsed = optionsSchema.safeParse(settings, { error: expectation });
  if (!parsed.success) {
    throw new ConfigError(`legacyGateway: ${settingProblems(parsed.error.issues, settings, (setting) => setting).join('; ')}`);
  }
  const o = parsed.data;
  const noSecret =
    missingSecretWithRedis(o.redisUrl, o.gatewaySecret, { url: 'redisUrl', secret: 'gatewaySecret' }) ??
    missingSecretWithRedis(o.idempotencyUrl, o.gatewaySecret, { url: 'idempotencyUrl', secret: 'gatewaySecret' });
  if (noSecret !== undefined) throw new ConfigError(`legacyGateway: ${noSecret}`);
  const sunset = sunsetProblem(o, { sunset: 'legacySunset', deprecatedAt: 'legacyDeprecatedAt', docsUrl: 'legacyDocsUrl' });
  if (sunset !== undefined) throw new ConfigError(`legacyGateway: ${sunset}`);
  const { reads, payment } = loadMappingDirectorySync(o.mappingsDir ?? SHIPPED_MAPPINGS_DIR);
  if (!payment) throw new MappingSetError([{ file: 'payment.yaml', path: '', reason: 'no payment mapping (kind: payment) in the mappings directory' }]);
  const operatorFiles = loadOperatorRecords(reads, { TESTIMONIALS_FILE: o.testimonialsFile });
  const logger = givenLogger ?? createLogger(o.logLevel);
  // Composed as `serve` composes its gateway; its connections open in the background, and calls that come
  // before the first attempt to connect has ended wait for it. A store that cannot be trusted with money
  // does not stop the host application: it refuses every payment instead.
  const composing = composeGateway({
    settings: o,
    files: { mappings: reads, payment, staticRecords: (setting) => operatorFiles.get(setting) },
    logger,
    unsafeStore: 'refuse-payments',
    ...(metrics ? { metrics: completeMetrics(metrics) } : {}),
  });
  let composed: ComposedGateway | undefined;
  composing.then(
    (c) => (composed = c),
    (err: unknown) => logger.error({ err }, 'legacyGateway: the gateway could not be composed'),
  );
  const router = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void): void => {
    if (composed) return composed.gateway.handler(req, res, next);
    composing.then((c) => c.gateway.handler(req, res, next), next);
  };
  const close = async (): Promise<void> => {
    const c = await composing.catch(() => undefined);
    await c?.close();
  };
  return Object.assign(router, { close });
}
