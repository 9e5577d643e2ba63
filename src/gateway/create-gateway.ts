// Assembles one gateway from its settings and what was loaded at start: the v1 client and its hardening
// layers, the routes (one per read mapping, the payment, the passthrough, health), the route table, and
// the ordered steps, into the one request handler that serves every request. Everything is built here,
// once; nothing is parsed or loaded per request. It never listens (start.ts does) and never starts or
// knows the embedded sandbox: its upstream is a URL like any other. The stores are chosen here, once:
// with a Redis connection (REDIS_URL) the read cache's second tier and the write generations are shared
// by every replica; without one they live in this process. The payment claims live in the store the
// caller opened (state/claims/open-claim-store.ts: PostgreSQL or Redis), else in this process. It uses the connection
// and the claims store and never closes them.
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { V1Record } from '../mapping/legacy-record.js';
import { legacySurface } from '../legacy-surface/legacy-surface.js';
import type { MappingSet } from '../mapping/mapping-set.js';
import type { PaymentMapping } from '../payment/payment-mapping.js';
import { ConfigError, missingSecretWithRedis } from './config.js';
import { createGatewayRouter, type GatewayHandler } from './edge/router.js';
import { buildRouteTable, type RouteTable } from './edge/route-table.js';
import type { RequestLifecycle } from './lifecycle.js';
import { noMetrics, type GatewayMetrics } from './metrics/gateway-metrics.js';
import { readinessProbe } from './routes/health.js';
import { cachedRead } from './routes/cached-read.js';
import { legacyRead, serveRead } from './routes/legacy-read.js';
import { createPassthrough } from './routes/passthrough.js';
import { paymentRoute } from './routes/payment.js';
import { refusedTheApiKey } from '../payment/contract.js';
import type { ClaimStore } from '../payment/claims/claim-store.js';
import { createMemoryClaimStore } from './state/claims/claims-memory.js';
import { createPaymentClaims, DEFAULT_SETTLE_AFTER_S, type PaymentClaims } from '../payment/claims/payment-claims.js';
import { backgroundTimers, systemClock, type Timers } from '../payment/claims/system-time.js';
import { settleTerms } from '../payment/run-claimed-payment.js';
import { startBackgroundSettler, type BackgroundSettler } from '../payment/settle/background-settler.js';
import { DEFAULT_REPLY_CACHE_LIMITS, createReplyCache } from './state/caches/reply-cache.js';
import { DEFAULT_ROSTER_CACHE_LIMITS, createRosterCache } from './state/caches/roster-cache.js';
import { createRedisResponseStore } from './state/caches/response-store-redis.js';
import type { SharedRedis } from './state/shared-redis.js';
import { createWriteGenerations, type WriteGenerations } from './state/caches/write-generations.js';
import { createRedisUsageStore, runsScripts } from './state/usage/usage-redis.js';
import { createUsageTracker, type UsageTracker } from './state/usage/usage-tracker.js';
import { createRedisGenerationStore } from './state/caches/write-generations-redis.js';
import { brownoutStep, type CallerIntegration } from './steps/brownout.js';
import type { BrownoutSchedule } from './brownouts/brownout-file.js';
import type { WhereToMove } from './brownouts/brownout-reply.js';
import type { Occurrence } from './brownouts/brownout-windows.js';
import type { IntegrationDirectory } from './integrations/integration-directory.js';
import { createNoticeLoop, type NoticeLoop } from './notices/notice-loop.js';
import { httpDelivery, type DeliverNotice } from './notices/notice-delivery.js';
import { createMemoryNoticeStore, type NoticeStore } from './notices/notice-store.js';
import { createRedisNoticeStore } from './notices/notice-store-redis.js';
import { calledEntries } from './notices/notice-schedule.js';
import { countStep } from './steps/count.js';
import { createShadowReads, type ShadowReads } from './shadow/shadow-reads.js';
import type { ShadowDiffFile } from './shadow/diff-file.js';
import { DEMO_NOTICE, demoNoticeStep } from './steps/demo-notice.js';
import { guardStep } from './steps/guard.js';
import { logStep } from './steps/log.js';
import type { Step } from './steps/step.js';
import { sunsetStep, type SunsetHeaders } from './steps/sunset.js';
import { trackStep } from './steps/track.js';
import type { GatewayTracing } from './tracing/types.js';
import type { MappingReloads } from './reload/mapping-reload.js';
import { usageStep } from './steps/usage.js';
import { hardenTransport } from './upstream/hardened-transport.js';
import { DEFAULT_CACHE_LIMITS } from './upstream/response-cache.js';
import { V1Client, type V1Transport } from './upstream/v1-client.js';
import { paymentsAdmin, type PaymentsAdmin } from './payments-admin.js';

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
  /** The state replicas share (REDIS_URL): Idempotency-Keys and the read cache's second tier live there.
   * Unset: both stores are this process's. The caller connects it and closes it after `close()`. */
  redis?: SharedRedis;
  /** REDIS_KEY_PREFIX: put before every Redis key and channel (default `lgw:`). */
  keyPrefix?: string;
  /** GATEWAY_SECRET, the HMAC secret every replica shares; required with `redis` or `claims`. */
  secret?: string;
  /** Where payment claims live when shared (state/claims/open-claim-store.ts); unset: this process. The caller opens it
   * and closes it after `close()`. */
  claims?: ClaimStore;
  /** With `claims`: whether that store answers right now (/readyz's `claims`, legacy_gateway_claim_store_up). */
  claimStoreUp?: () => boolean;
  /** PAYMENT_DUPLICATE_WINDOW_S: how long a keyless payment's claim stands (seconds; 0 = off; default 600). */
  paymentDuplicateWindowS?: number;
  /** PAYMENT_SETTLE_AFTER_S: how long after an unknown outcome's POST a payment missing from v1's list may be
   * settled "not paid" (seconds; default 60). */
  paymentSettleAfterS?: number;
  /** Traces (OTEL_*, tracing/load.ts): a server span per request, a client span per v1 call. Unset: none.
   * The caller loads it and closes it after `close()`. */
  tracing?: GatewayTracing;
  /** LEGACY_SUNSET's headers (steps/sunset.ts), put on every legacy reply; unset: none. */
  sunset?: SunsetHeaders;
  /** SHADOW_MAPPINGS_DIR's candidate set (validated), and SHADOW_DIFF_FILE's sample: every translated read
   * is compared with the candidate's translation (shadow/shadow-reads.ts). Unset: shadow off. */
  shadow?: { candidates: MappingSet; diffFile?: ShadowDiffFile | undefined };
  /** The mapping sets reloaded on SIGHUP (reload/mapping-reload.ts): a set served beside MAPPINGS_DIR (the
   * shadow mappings) registers its own reload here. Unset: nothing is reloaded (a library, a test). */
  reloads?: MappingReloads;
  /** BROWNOUTS_FILE's windows in service (steps/brownout.ts), where a refused caller reads how to move, and who
   * is told of each refusal (the brownout-hit notice's count). Unset: no brownouts. */
  brownouts?: { schedule: BrownoutSchedule; where: WhereToMove; onRefused?: (occurrence: Occurrence, integration: CallerIntegration) => void };
  /** Who each key fingerprint belongs to (INTEGRATIONS_FILE, integrations/): GET /usage, the request's log
   * line and the brownouts name callers by it. Unset: every key unnamed. */
  integrations?: IntegrationDirectory;
  /** The notices to the integrations' owners (notices/): sent with `integrations` and `secret`, from a
   * background loop. `store`: where they are claimed when the caller opened one (PostgreSQL); unset: Redis
   * with `redis`, else this process. */
  notices?: NoticeSettings;
}

export interface NoticeSettings {
  /** LEGACY_SUNSET (ms): a `sunset-call` on each integration's first legacy call of a UTC day. */
  sunset?: number | undefined;
  /** QUIET_DAYS (default 30). */
  quietDays?: number | undefined;
  /** GUIDES_URL and LEGACY_DOCS_URL: the guide each notice names. */
  where?: WhereToMove;
  store?: NoticeStore;
  /** The sending (tests hand in their own); default: node:http(s), 10 s per attempt. */
  deliver?: DeliverNotice;
  timers?: Timers;
}

/** What one mapping set is built from: `reload()` takes a new one of these. */
export type MappingFiles = Pick<GatewayParts, 'mappings' | 'payment' | 'staticRecords'>;

export interface Gateway {
  handler: GatewayHandler;
  table: RouteTable;
  /** The legacy calls counted per API key fingerprint (GET /usage on the metrics listener). */
  usage: UsageTracker;
  /** The notices' background loop (INTEGRATIONS_FILE with GATEWAY_SECRET); undefined: no notices. */
  notices: NoticeLoop | undefined;
  /** The payments whose outcome is unknown, and an operator's decisions about them (the metrics listener). */
  payments: PaymentsAdmin;
  /** The shadow comparisons (SHADOW_MAPPINGS_DIR); `shadow.replace(set)` swaps the candidate set. Undefined: off. */
  shadow: ShadowReads | undefined;
  /** Builds everything that depends on the mappings from `files` (the route table: every read route with its
   * compiled mapping, the payment route; the roster and reply caches) and swaps it in at once: new requests
   * are routed by the new set, requests already routed finish on the set they started with. The caller has
   * validated `files`; a build that throws leaves the set in service. */
  reload(files: MappingFiles): void;
  /** Waits for the Idempotency-Key replies still being stored, then frees the upstream pools. */
  close(): Promise<void>;
}

/** The steps every request goes through, in order (docs/architecture.md). */
function orderedSteps(parts: GatewayParts, metrics: GatewayMetrics, usage: UsageTracker, notices: NoticeLoop | undefined): Step[] {
  const { lifecycle, recorder } = parts;
  const steps: Step[] = [];
  // First: every other step, and the route, run within the request's server span.
  if (parts.tracing) steps.push(parts.tracing.step);
  if (parts.demo) steps.push(demoNoticeStep);
  if (parts.sunset) steps.push(sunsetStep(parts.sunset));
  if (lifecycle) steps.push(trackStep(lifecycle));
  steps.push(countStep(metrics), logStep(parts.logger), usageStep(usage, parts.integrations, notices ? (name) => notices.noteCall(name) : undefined));
  // After usage (a refused call still counts as its integration's), before the guard (every call in a window
  // gets the same answer, whatever its shape): steps/brownout.ts says why.
  if (parts.brownouts) {
    const { schedule, where } = parts.brownouts;
    const told = parts.brownouts.onRefused;
    const onRefused =
      notices || told
        ? (occurrence: Occurrence, integration: CallerIntegration) => {
            told?.(occurrence, integration);
            if (integration.name !== undefined) notices?.noteRefused(occurrence, integration.name);
          }
        : undefined;
    const integrationOf = (apiKey: string | undefined): CallerIntegration => {
      const fingerprint = usage.fingerprintOf(apiKey);
      return { fingerprint, name: parts.integrations?.byFingerprint(fingerprint)?.name };
    };
    steps.push(brownoutStep({ schedule, where, integrationOf, metrics, logger: parts.logger, ...(onRefused ? { onRefused } : {}), ...(parts.now ? { now: parts.now } : {}) }));
  }
  steps.push(guardStep);
  if (recorder) steps.push(recorder);
  return steps;
}

/** The longest a repeated payment waits for the first call, in flight on another replica: the payment's
 * upstream calls (its checks, the new client, then the POST) plus a margin. */
const idempotencyWaitMs = (settings: GatewaySettings): number => settings.upstreamTimeoutMs * 3 + 2000;

/** The keyless duplicate window by default: the slowest payment (its checks, a new client and the POST,
 * each up to the upstream timeout) and a caller's retry after its own timeout, with room to spare. */
export const DEFAULT_DUPLICATE_WINDOW_S = 600;

/** What the shared stores need, once checked: the connection, the key prefix and the shared secret. */
interface SharedState {
  redis: SharedRedis;
  prefix: string;
  secret: string;
}

function sharedState(parts: GatewayParts): SharedState | undefined {
  if (!parts.redis) return undefined;
  if (parts.secret === undefined) throw new ConfigError(missingSecretWithRedis('set', undefined, { url: 'redis', secret: 'secret' }));
  return { redis: parts.redis, prefix: parts.keyPrefix ?? 'lgw:', secret: parts.secret };
}

const settleAfterMs = (parts: GatewayParts): number => (parts.paymentSettleAfterS ?? DEFAULT_SETTLE_AFTER_S) * 1000;

/** The background settler: unknown outcomes settled when no one repeats them (src/payment/settle/), its
 * v1 reads made with the key each payment was sent with (else UPSTREAM_API_KEY), the mapping in service's terms. */
function backgroundSettler(parts: GatewayParts, claims: PaymentClaims, transport: V1Transport, payment: () => PaymentMapping, metrics: GatewayMetrics): BackgroundSettler {
  const get = (apiKey: string | undefined) => async (path: string, query: Record<string, string>) =>
    (await transport.getJson({ path, query, apiKey: apiKey ?? parts.settings.upstreamApiKey, requestId: `settle-${randomBytes(6).toString('hex')}`, cacheTtlMs: 0 })).body.take().value;
  return startBackgroundSettler({
    claims,
    everyMs: Math.max(250, Math.min(5000, settleAfterMs(parts) / 2)),
    now: parts.now ?? systemClock,
    timers: backgroundTimers,
    termsFor: (apiKey) => settleTerms(payment(), get(apiKey)),
    onScan: (count, oldestAgeMs) => metrics.unknownPayments(count, oldestAgeMs / 1000),
    onError: (err) => parts.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'payments whose outcome is unknown could not be listed or settled: tried again at the next scan'),
  });
}

/** The payment claims: in the store the caller opened, or this process's own. */
function paymentClaims(parts: GatewayParts, metrics: GatewayMetrics): PaymentClaims {
  if (parts.claims && parts.secret === undefined) throw new ConfigError(missingSecretWithRedis('set', undefined, { url: 'claims', secret: 'secret' }));
  const store =
    parts.claims ??
    createMemoryClaimStore({
      onFullChange: (full) =>
        full
          ? parts.logger.warn('payment claims store full: payments that would take a new claim are refused (code 8, 503) until stored claims expire')
          : parts.logger.info('payment claims store takes new claims again'),
    });
  return createPaymentClaims({
    store,
    secret: parts.secret ?? randomBytes(32),
    waitMs: idempotencyWaitMs(parts.settings),
    keylessWindowMs: (parts.paymentDuplicateWindowS ?? DEFAULT_DUPLICATE_WINDOW_S) * 1000,
    logger: parts.logger,
    onEvent: (event, keyless) => metrics.idempotencyEvent(event, keyless ? 'keyless' : 'key'),
    releasesKey: refusedTheApiKey,
    settle: { afterMs: settleAfterMs(parts) },
    onSettled: (result) => {
      metrics.paymentSettled(result);
      parts.logger.info({ settled: result }, "a payment whose outcome was unknown was settled from v1's payments list");
    },
  });
}

/** The write generations (read-after-write per API key): shared through Redis when the cache is, kept as
 * long as any copy made before a write may be served (the longest TTL plus the stale-if-error window). */
function writeGenerations(parts: GatewayParts, shared: SharedState | undefined): WriteGenerations {
  const ttls = [...parts.mappings.values()].map((mapping) => ('cacheTtlMs' in mapping ? (mapping.cacheTtlMs ?? 0) : 0));
  const keepMs = Math.max(parts.settings.cacheTtlMs, ...ttls) + DEFAULT_CACHE_LIMITS.staleWindowMs;
  const store = shared && parts.settings.cacheTtlMs > 0 ? createRedisGenerationStore({ redis: shared.redis, prefix: shared.prefix }) : undefined;
  return createWriteGenerations({
    keepMs,
    ...(store ? { shared: store } : {}),
    ...(parts.now ? { now: parts.now } : {}),
    onSharedFault: (failing) =>
      failing
        ? parts.logger.warn('a write could not be told to Redis: other replicas may serve their cached copies of what it changed until they expire; this one does not')
        : parts.logger.info('writes are told to Redis again'),
  });
}

/** Who still calls the old API (GET /usage): shared through Redis when the state is, else this process's. */
function usageTracker(parts: GatewayParts, shared: SharedState | undefined): UsageTracker {
  const usageStore = shared && runsScripts(shared.redis) ? createRedisUsageStore({ redis: shared.redis, prefix: shared.prefix }) : undefined;
  const integrations = parts.integrations;
  return createUsageTracker({
    secret: parts.secret ?? randomBytes(32),
    logger: parts.logger,
    ...(integrations ? { nameOf: (fingerprint: string) => integrations.byFingerprint(fingerprint)?.name } : {}),
    ...(usageStore ? { shared: usageStore } : {}),
    ...(parts.now ? { now: parts.now } : {}),
  });
}

/** The notices to the integrations' owners: with an integration directory and the shared secret (a notice
 * signed under a random one could be checked by no one), claimed in the caller's store, else Redis's, else
 * this process's. */
function noticeLoop(parts: GatewayParts, shared: SharedState | undefined, usage: UsageTracker, metrics: GatewayMetrics): NoticeLoop | undefined {
  const integrations = parts.integrations;
  if (!integrations) return undefined;
  if (parts.secret === undefined) {
    if (integrations.list().some((i) => i.notify !== undefined)) parts.logger.warn('INTEGRATIONS_FILE names notify URLs, but no notice is sent without GATEWAY_SECRET (their signature\'s key)');
    return undefined;
  }
  const n = parts.notices ?? {};
  const now = parts.now ?? Date.now;
  const store = n.store ?? (shared && runsScripts(shared.redis) ? createRedisNoticeStore(shared.redis, shared.prefix) : createMemoryNoticeStore(now));
  const schedule = parts.brownouts?.schedule;
  return createNoticeLoop({
    secret: parts.secret,
    store,
    integrations: () => integrations.list(),
    windows: () => schedule?.windows() ?? [],
    sunset: n.sunset,
    quietDays: n.quietDays ?? 30,
    where: n.where ?? {},
    usage: async () => calledEntries((await usage.report()).integrations),
    deliver: n.deliver ?? httpDelivery(),
    metrics,
    logger: parts.logger,
    now,
    ...(n.timers ? { timers: n.timers } : {}),
  });
}

/** Redis's state, told to the metrics now and at each change. */
function watchRedis(redis: SharedRedis, metrics: GatewayMetrics): void {
  metrics.redisState(redis.isUp());
  redis.onStateChange((up) => metrics.redisState(up));
}

/** The settlement of unknown payment outcomes: in the background, and by an operator (the metrics listener),
 * on the payment mapping in service (followed across reloads). */
function settlement(parts: GatewayParts, claims: PaymentClaims, transport: V1Transport, metrics: GatewayMetrics) {
  let payment = parts.payment;
  const settler = backgroundSettler(parts, claims, transport, () => payment, metrics);
  const integrations = parts.integrations;
  return {
    follow: (files: MappingFiles) => void (payment = files.payment),
    stop: () => settler.stop(),
    admin: (usage: UsageTracker): PaymentsAdmin =>
      paymentsAdmin({
        claims,
        payment: () => payment,
        fingerprintOf: (apiKey) => usage.fingerprintOf(apiKey),
        ...(integrations ? { integrationOf: (fingerprint: string) => integrations.byFingerprint(fingerprint)?.name } : {}),
        logger: parts.logger,
        now: parts.now ?? systemClock,
      }),
  };
}

export function createGateway(parts: GatewayParts): Gateway {
  const { settings, lifecycle } = parts;
  const metrics = parts.metrics ?? noMetrics;
  const shared = sharedState(parts);
  if (shared) watchRedis(shared.redis, metrics);
  // A 1000-record v1 page is 1-2 MB: 16 MB is ample, and bounds what one reply can cost in memory.
  const client = new V1Client({ upstreamUrl: settings.upstreamUrl, timeoutMs: settings.upstreamTimeoutMs, maxBodyBytes: 16 * 1024 * 1024, ...(parts.tracing ? { tracer: parts.tracing.v1Calls } : {}) });
  const generations = writeGenerations(parts, shared);
  // GETs (translated calls and the payment flow's checks) go through the hardening layers; POSTs do not.
  const transport = hardenTransport(client, {
    cacheTtlMs: settings.cacheTtlMs,
    metrics,
    ...(settings.cacheMinUses !== undefined ? { cacheMinUses: settings.cacheMinUses } : {}),
    ...(shared ? { shared: createRedisResponseStore({ redis: shared.redis, prefix: shared.prefix }), generations } : {}),
    ...(parts.now ? { now: parts.now } : {}),
  });
  const claims = paymentClaims(parts, metrics);
  const settling = settlement(parts, claims, transport, metrics);
  if (parts.claims && parts.claimStoreUp) metrics.claimStore(parts.claimStoreUp);
  const shadow = parts.shadow && createShadowReads({ ...parts.shadow, metrics, accountTimezone: settings.accountTimezone, staticRecords: parts.staticRecords });
  const passthrough = createPassthrough({ upstreamUrl: settings.upstreamUrl, timeoutMs: settings.upstreamTimeoutMs, generations });
  const health = readinessProbe({
    upstreamUrl: settings.upstreamUrl,
    timeoutMs: settings.upstreamTimeoutMs,
    isDraining: () => lifecycle?.draining() ?? false,
    mappingCount: () => served.mappings,
    ...(parts.demo ? { notice: DEMO_NOTICE } : {}),
    ...(shared ? { redisUp: () => shared.redis.isUp() } : {}),
    ...(parts.claims && parts.claimStoreUp ? { claimsUp: parts.claimStoreUp } : {}),
  });
  // Everything built from one mapping set; a reload builds another and swaps it in whole (`served`). The
  // v1 response cache (`transport`) is kept across sets: v1's replies do not depend on the mappings, while
  // the roster and reply caches hold legacy replies a mapping shaped, so each set has its own.
  const build = (files: MappingFiles): RouteTable => {
    // Team listings: rosters read a few at a time, kept per API key while their v1 pages stay fresh.
    const rosters = createRosterCache({ ...DEFAULT_ROSTER_CACHE_LIMITS, onHit: () => metrics.cacheEvent('hit'), ...(parts.now ? { now: parts.now } : {}) });
    const readDeps = { transport, accountTimezone: settings.accountTimezone, staticRecords: files.staticRecords, rosters, generations, shadow };
    // The serialised legacy replies of translated reads, kept while their v1 data stays fresh (CACHE_TTL_MS=0: none).
    const replies =
      settings.cacheTtlMs > 0
        ? { cache: createReplyCache({ ...DEFAULT_REPLY_CACHE_LIMITS, ...(parts.now ? { now: parts.now } : {}) }), onHit: () => metrics.cacheEvent('hit') }
        : undefined;
    return buildRouteTable(legacySurface({ reads: files.mappings, payment: files.payment }), {
      healthz: health.healthz,
      readyz: health.readyz,
      read: (mapping) => (replies ? cachedRead(legacyRead(mapping, readDeps), replies) : serveRead(legacyRead(mapping, readDeps))),
      payment: paymentRoute({
        mapping: files.payment,
        transport,
        writer: client,
        generations,
        claims,
        logger: parts.logger,
        ...(lifecycle ? { mustFinish: (ctx) => lifecycle.mustFinish(ctx), holdUntilDone: (work) => void lifecycle.holdUntilDone(work) } : {}),
        onPaymentCode: (code) => metrics.paymentCompleted(code),
      }),
      passthrough,
    });
  };
  let served = { table: build(parts), mappings: parts.mappings.size };
  // The router looks each request up in the set in service when it arrives; the route it gets holds its own
  // mapping and caches, so a reload meanwhile changes nothing for it.
  const table: RouteTable = { lookup: (request) => served.table.lookup(request), routes: () => served.table.routes() };
  const usage = usageTracker(parts, shared);
  const payments = settling.admin(usage);
  const notices = noticeLoop(parts, shared, usage, metrics);
  const handler = createGatewayRouter({ table, steps: orderedSteps(parts, metrics, usage, notices), fallbackApiKey: settings.upstreamApiKey });
  return {
    handler,
    table,
    usage,
    notices,
    payments,
    shadow,
    reload(files) {
      served = { table: build(files), mappings: files.mappings.size };
      settling.follow(files);
    },
    async close() {
      await settling.stop();
      // First: its last round may still read the usage counts, and it tells the store its last refusals.
      await notices?.close();
      await shadow?.close();
      await usage.close();
      await claims.close();
      await passthrough.close();
      // After a drain every payment has answered (must-finish, held): the v1 calls left belong to reads the
      // drain already answered 503 at its deadline, and are abandoned rather than waited for.
      await client.close({ abandon: lifecycle?.draining() ?? false });
    },
  };
}
