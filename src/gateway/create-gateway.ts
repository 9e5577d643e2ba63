// Assembles one gateway from its settings and what was loaded at start: the v1 client and its hardening
// layers, the routes (one per read mapping, the payment, the passthrough, health), the route table, and
// the ordered steps, into the one Express router that serves every request. Everything is built here,
// once; nothing is parsed or loaded per request. It never listens (start.ts does) and never starts or
// knows the embedded sandbox: its upstream is a URL like any other.
import type { Router } from 'express';
import type { Logger } from 'pino';
import type { V1Record } from '../mapping/legacy-record.js';
import type { MappingSet } from '../mapping/mapping-set.js';
import type { PaymentMapping } from '../payment/payment-mapping.js';
import { createGatewayRouter } from './edge/router.js';
import { buildRouteTable, type RouteTable } from './edge/route-table.js';
import type { RequestLifecycle } from './lifecycle.js';
import { noMetrics, type GatewayMetrics } from './metrics/gateway-metrics.js';
import { readinessProbe } from './routes/health.js';
import { legacyReadRoute } from './routes/legacy-read.js';
import { createPassthrough } from './routes/passthrough.js';
import { paymentRoute } from './routes/payment.js';
import { createMemoryIdempotencyStore } from './state/idempotency-memory.js';
import { DEFAULT_REPLY_CACHE_LIMITS, createReplyCache } from './state/reply-cache.js';
import { countStep } from './steps/count.js';
import { DEMO_NOTICE, demoNoticeStep } from './steps/demo-notice.js';
import { guardStep } from './steps/guard.js';
import { logStep } from './steps/log.js';
import { replyCacheStep } from './steps/reply-cache.js';
import type { Step } from './steps/step.js';
import { trackStep } from './steps/track.js';
import { hardenTransport } from './upstream/hardened-transport.js';
import { V1Client } from './upstream/v1-client.js';

export interface GatewaySettings {
  upstreamUrl: string;
  upstreamApiKey: string | undefined;
  upstreamTimeoutMs: number;
  cacheTtlMs: number;
  /** A v1 reply is cached from its Nth miss (CACHE_MIN_USES; default 1). */
  cacheMinUses?: number;
  accountTimezone: string | undefined;
}

export interface GatewayParts {
  settings: GatewaySettings;
  mappings: MappingSet;
  payment: PaymentMapping;
  /** Records of operator files, by setting name (testimonials); undefined when the setting is unset. */
  staticRecords: (setting: string) => readonly V1Record[] | undefined;
  logger: Logger;
  metrics?: GatewayMetrics;
  /** The requests in flight, for a drain on SIGTERM (a standalone server has one; a mounted router not). */
  lifecycle?: RequestLifecycle;
  /** The recording step (RECORD_FILE). */
  recorder?: Step;
  /** The caches' clock (ms since the epoch); tests pass a fake one instead of waiting for TTLs. */
  now?: () => number;
  /** The upstream is the embedded sandbox's demo data: every reply and /readyz say so. */
  demo?: boolean;
}

export interface Gateway {
  router: Router;
  table: RouteTable;
  /** Frees the upstream pools. */
  close(): Promise<void>;
}

/** The steps every request goes through, in order (README: Architecture). */
function orderedSteps(parts: GatewayParts, metrics: GatewayMetrics): Step[] {
  const { lifecycle, recorder, settings, now } = parts;
  const steps: Step[] = [];
  if (parts.demo) steps.push(demoNoticeStep);
  if (lifecycle) steps.push(trackStep(lifecycle));
  steps.push(countStep(metrics), logStep(parts.logger), guardStep);
  if (recorder) steps.push(recorder);
  if (settings.cacheTtlMs > 0) {
    const cache = createReplyCache({ ...DEFAULT_REPLY_CACHE_LIMITS, ...(now ? { now } : {}) });
    steps.push(replyCacheStep(cache, () => metrics.cacheEvent('hit')));
  }
  return steps;
}

export function createGateway(parts: GatewayParts): Gateway {
  const { settings, lifecycle } = parts;
  const metrics = parts.metrics ?? noMetrics;
  // A 1000-record v1 page is 1-2 MB: 16 MB is ample, and bounds what one reply can cost in memory.
  const client = new V1Client({ upstreamUrl: settings.upstreamUrl, timeoutMs: settings.upstreamTimeoutMs, maxBodyBytes: 16 * 1024 * 1024 });
  // GETs (translated calls and the payment flow's checks) go through the hardening layers; POSTs do not.
  const transport = hardenTransport(client, {
    cacheTtlMs: settings.cacheTtlMs,
    metrics,
    ...(settings.cacheMinUses !== undefined ? { cacheMinUses: settings.cacheMinUses } : {}),
    ...(parts.now ? { now: parts.now } : {}),
  });
  const passthrough = createPassthrough({ upstreamUrl: settings.upstreamUrl, timeoutMs: settings.upstreamTimeoutMs });
  const health = readinessProbe({
    upstreamUrl: settings.upstreamUrl,
    timeoutMs: settings.upstreamTimeoutMs,
    isDraining: () => lifecycle?.draining() ?? false,
    mappingCount: parts.mappings.size,
    ...(parts.demo ? { notice: DEMO_NOTICE } : {}),
  });
  const readDeps = { transport, accountTimezone: settings.accountTimezone, staticRecords: parts.staticRecords };
  const table = buildRouteTable(parts.mappings, {
    healthz: health.healthz,
    readyz: health.readyz,
    read: (mapping) => legacyReadRoute(mapping, readDeps),
    payment: paymentRoute({
      mapping: parts.payment,
      transport,
      writer: client,
      idempotency: createMemoryIdempotencyStore(),
      logger: parts.logger,
      ...(lifecycle ? { mustFinish: (req) => lifecycle.mustFinish(req), holdUntilDone: (work) => void lifecycle.holdUntilDone(work) } : {}),
      onPaymentCode: (code) => metrics.paymentCompleted(code),
    }),
    passthrough,
  });
  const router = createGatewayRouter({ table, steps: orderedSteps(parts, metrics), fallbackApiKey: settings.upstreamApiKey });
  return {
    router,
    table,
    async close() {
      await passthrough.close();
      await client.close();
    },
  };
}
