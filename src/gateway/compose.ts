// The one composition root: turns the gateway's settings (read from the environment by `serve`, given as
// options to the library, or set by the replay for its in-process gateway) and the files loaded at start
// into a running gateway's parts: the Redis connection (REDIS_URL), the payment claims store
// (IDEMPOTENCY_URL, else that Redis, else this process) and the gateway built over them. Each setting is
// mapped onto the gateway's parts here and nowhere else. It never listens and never reads the environment.
// The Redis client is loaded only when a Redis is named: its modules alone take about 20 MB resident, for
// nothing in a gateway that keeps its state in process.
import type { Logger } from 'pino';
import type { V1Record } from '../mapping/legacy-record.js';
import type { MappingSet } from '../mapping/mapping-set.js';
import type { PaymentMapping } from '../payment/payment-mapping.js';
import type { z } from 'zod';
import { ConfigError, maskRedisUrl, type AcceptedRisk, type settingsSchema } from './config.js';
import { createGateway, type Gateway, type GatewayParts } from './create-gateway.js';
import { openClaimStore, type OpenedClaimStore } from './state/claims/open-claim-store.js';
import type { RedisConnection } from './state/redis-connection.js';
import { sunsetHeaders } from './steps/sunset.js';
import type { NoticeStore } from './notices/notice-store.js';

/** The settings the composition reads: the same names, validated by the same schema, whoever gives them. */
export type ComposedSettings = Pick<
  z.infer<typeof settingsSchema>,
  | 'upstreamApiKey'
  | 'upstreamTimeoutMs'
  | 'cacheTtlMs'
  | 'cacheMinUses'
  | 'accountTimezone'
  | 'redisUrl'
  | 'redisKeyPrefix'
  | 'gatewaySecret'
  | 'idempotencyUrl'
  | 'paymentDuplicateWindowS'
  | 'paymentSettleAfterS'
> & { upstreamUrl: string; idempotencyAcceptRisk: readonly AcceptedRisk[] } & Partial<Pick<z.infer<typeof settingsSchema>, 'legacySunset' | 'legacyDeprecatedAt' | 'legacyDocsUrl' | 'guidesUrl' | 'quietDays'>>;

/** What was loaded at start: the mappings, and the operator's record files by setting name. */
export interface LoadedFiles {
  mappings: MappingSet;
  payment: PaymentMapping;
  staticRecords: (setting: string) => readonly V1Record[] | undefined;
}

/** What the composition is given beside the settings and files: the gateway's own parts (create-gateway.ts
 * documents each), as the caller has them. */
export type ComposeOptions = Pick<GatewayParts, 'logger' | 'metrics' | 'lifecycle' | 'recorder' | 'now' | 'demo' | 'tracing' | 'shadow' | 'reloads' | 'brownouts' | 'integrations' | 'notices'> & {
  settings: ComposedSettings;
  files: LoadedFiles;
  /** A claims store that must not be trusted with money (a Redis without its append-only file, the risk not
   * accepted): `refuse-start` stops the composition with a ConfigError naming the setting (a server, which
   * exits 2); `refuse-payments` composes anyway, and the store refuses every payment (a library, whose
   * host application must not fail to start over it). */
  unsafeStore: 'refuse-start' | 'refuse-payments';
};

export interface ComposedGateway {
  gateway: Gateway;
  /** REDIS_URL's connection, for the server's readiness and metrics; undefined without it. */
  redis: RedisConnection | undefined;
  /** Where the payment claims live, for the start line. */
  claimsKind: 'in process' | OpenedClaimStore['kind'];
  /** The claims store's URL (password masked), for the start line; undefined: this process. */
  claimsAddress: string | undefined;
  /** Closes the gateway (waiting for the replies still being stored), then the connections it opened. */
  close(): Promise<void>;
}

async function openRedis(url: string, logger: Logger, holdsClaims: boolean): Promise<RedisConnection> {
  const { createRedisConnection } = await import('./state/redis-connection.js');
  const redis = createRedisConnection({ url, logger, holdsClaims });
  // Redis down is no reason not to start: the first attempt is awaited (so its one line comes first and the
  // metric starts right), then the connection keeps trying in the background.
  await redis.started;
  return redis;
}

/** The notices' store when the replicas share PostgreSQL and no Redis (IDEMPOTENCY_URL=postgres://...): its
 * pg client is loaded only then. With REDIS_URL the gateway keeps them in that Redis; else in this process. */
async function openNoticeStore(options: ComposeOptions, redis: RedisConnection | undefined): Promise<NoticeStore | undefined> {
  const { settings } = options;
  if (redis || !options.integrations || settings.gatewaySecret === undefined || settings.idempotencyUrl === undefined) return undefined;
  if (!/^postgres(ql)?:\/\//i.test(settings.idempotencyUrl)) return undefined;
  const { createPostgresNoticeStore } = await import('./notices/notice-store-postgres.js');
  return createPostgresNoticeStore({ url: settings.idempotencyUrl, now: options.now ?? Date.now });
}

/** The gateway's parts from its settings, once their connections have made a first attempt. */
function gatewayParts(options: ComposeOptions, redis: RedisConnection | undefined, claims: OpenedClaimStore | undefined, noticeStore: NoticeStore | undefined): GatewayParts {
  const { settings, files, unsafeStore: _decidedHere, ...given } = options;
  return {
    ...given,
    ...files,
    settings: {
      upstreamUrl: settings.upstreamUrl,
      upstreamApiKey: settings.upstreamApiKey,
      upstreamTimeoutMs: settings.upstreamTimeoutMs,
      cacheTtlMs: settings.cacheTtlMs,
      cacheMinUses: settings.cacheMinUses,
      accountTimezone: settings.accountTimezone,
    },
    paymentDuplicateWindowS: settings.paymentDuplicateWindowS,
    paymentSettleAfterS: settings.paymentSettleAfterS,
    ...(redis ? { redis, keyPrefix: settings.redisKeyPrefix } : {}),
    ...(settings.gatewaySecret !== undefined ? { secret: settings.gatewaySecret } : {}),
    ...(claims ? { claims: claims.store, claimStoreUp: () => claims.isUp() } : {}),
    // The notices to the integrations' owners: LEGACY_SUNSET's sunset-call, QUIET_DAYS, the guide they name.
    notices: {
      ...given.notices,
      ...(noticeStore ? { store: noticeStore } : {}),
      sunset: settings.legacySunset?.getTime(),
      quietDays: settings.quietDays,
      where: { guidesUrl: settings.guidesUrl, legacyDocsUrl: settings.legacyDocsUrl },
    },
    // LEGACY_SUNSET: the legacy replies' Sunset, Deprecation (default: now, the gateway's start) and Link.
    ...(settings.legacySunset ? { sunset: sunsetHeaders({ ...settings, legacySunset: settings.legacySunset }) } : {}),
  };
}

export async function composeGateway(options: ComposeOptions): Promise<ComposedGateway> {
  const { settings, logger } = options;
  const redis = settings.redisUrl === undefined ? undefined : await openRedis(settings.redisUrl, logger, settings.idempotencyUrl === undefined);
  let claims: OpenedClaimStore | undefined;
  let noticeStore: NoticeStore | undefined;
  try {
    claims = await openClaimStore({ idempotencyUrl: settings.idempotencyUrl, redis, ...(settings.redisUrl ? { redisAddress: maskRedisUrl(settings.redisUrl) } : {}), prefix: settings.redisKeyPrefix, acceptedRisks: settings.idempotencyAcceptRisk, logger });
    const unsafe = claims?.startProblem();
    if (unsafe !== undefined) {
      if (options.unsafeStore === 'refuse-start') throw new ConfigError(unsafe);
      logger.error(`${unsafe}: payments are refused`);
    }
    noticeStore = await openNoticeStore(options, redis);
    const gateway = createGateway(gatewayParts(options, redis, claims, noticeStore));
    return {
      gateway,
      redis,
      claimsKind: claims?.kind ?? 'in process',
      claimsAddress: claims?.address,
      async close() {
        await gateway.close();
        // After the gateway: its stores may still be writing the last replies.
        await claims?.close();
        await noticeStore?.close();
        await redis?.close();
      },
    };
  } catch (err) {
    // Nothing may keep the process alive after a failed composition.
    await claims?.close();
    await noticeStore?.close();
    await redis?.close();
    throw err;
  }
}
