// Opens the store the payment claims live in, chosen once from the settings: IDEMPOTENCY_URL's PostgreSQL
// (durable: survives restarts and, with a synchronous standby, failover) or its Redis; else REDIS_URL's
// Redis; else none, and the gateway keeps its claims in this process. The PostgreSQL client and a second
// Redis connection are loaded only when asked for. A store that cannot be reached at start does not stop
// the start: payments are refused until it answers, reads go on.
import type { Logger } from 'pino';
import { maskRedisUrl, type AcceptedRisk } from '../../config.js';
import type { ClaimStore } from '../../../payment/claims/claim-store.js';
import { createRedisClaimStore, type RedisClaimStore } from './claims-redis.js';
import type { ClaimsRedis } from '../shared-redis.js';

export interface OpenedClaimStore {
  store: ClaimStore;
  /** For the start line: where the claims live. */
  kind: 'postgres' | 'redis';
  /** For the start line: the store's URL, its password masked. */
  address: string;
  /** Whether the store answers right now (/readyz, legacy_gateway_claim_store_up). */
  isUp(): boolean;
  /** Why the gateway must not start with this store (a Redis without an append-only file, not accepted);
   * one line naming the setting. */
  startProblem(): string | undefined;
  /** Closes the store and the connection it opened (not REDIS_URL's, which its opener closes). */
  close(): Promise<void>;
}

export interface ClaimStoreSettings {
  /** IDEMPOTENCY_URL. */
  idempotencyUrl: string | undefined;
  /** REDIS_URL's connection, when it is open. */
  redis: ClaimsRedis | undefined;
  /** REDIS_URL, its password masked (the start line names it as the claims' store). */
  redisAddress?: string;
  /** REDIS_KEY_PREFIX. */
  prefix: string;
  acceptedRisks: readonly AcceptedRisk[];
  logger: Logger;
}

const isPostgresUrl = (url: string): boolean => /^postgres(ql)?:\/\//i.test(url);

function noAofProblem(store: RedisClaimStore, setting: string): string | undefined {
  if (store.problem()?.risk !== 'no-aof') return undefined;
  return `${setting}: this Redis keeps no append-only file, so a restart would forget payment claims and a repeated payment could be paid twice; turn on appendonly, keep the claims in PostgreSQL (IDEMPOTENCY_URL=postgres://...), or accept the risk with IDEMPOTENCY_ACCEPT_RISK=no-aof`;
}

function asyncStandbyProblem(problem: { risk: AcceptedRisk } | undefined): string | undefined {
  if (problem?.risk !== 'async-standby') return undefined;
  return 'IDEMPOTENCY_URL: this PostgreSQL streams to its standby servers asynchronously (none is named in synchronous_standby_names), so a failover could forget payment claims and a repeated payment could be paid twice; name a standby in synchronous_standby_names, or accept the risk with IDEMPOTENCY_ACCEPT_RISK=async-standby';
}

function redisClaims(redis: ClaimsRedis, settings: ClaimStoreSettings, setting: string, address: string, closeConnection: () => Promise<void>): OpenedClaimStore & { checked: Promise<void> } {
  const store = createRedisClaimStore({ redis, prefix: settings.prefix, logger: settings.logger, acceptedRisks: settings.acceptedRisks });
  return {
    store,
    kind: 'redis',
    address,
    isUp: () => redis.isUp(),
    checked: store.checked,
    startProblem: () => noAofProblem(store, setting),
    async close() {
      await store.close();
      await closeConnection();
    },
  };
}

/** The store the settings name, once its first attempt to connect has ended; undefined: this process. */
export async function openClaimStore(settings: ClaimStoreSettings): Promise<OpenedClaimStore | undefined> {
  const url = settings.idempotencyUrl;
  if (url !== undefined && isPostgresUrl(url)) {
    const { createPostgresClaimStore, maskPostgresUrl } = await import('./claims-postgres.js');
    const store = createPostgresClaimStore({ url, logger: settings.logger, acceptedRisks: settings.acceptedRisks });
    await store.started;
    return {
      store,
      kind: 'postgres',
      address: maskPostgresUrl(url),
      isUp: () => store.isUp(),
      startProblem: () => asyncStandbyProblem(store.problem()),
      close: () => store.close(),
    };
  }
  let opened: (OpenedClaimStore & { checked: Promise<void> }) | undefined;
  if (url !== undefined) {
    const { createRedisConnection } = await import('../redis-connection.js');
    const connection = createRedisConnection({ url, logger: settings.logger.child({ store: 'payment claims', redis: maskRedisUrl(url) }) });
    await connection.started;
    opened = redisClaims(connection, settings, 'IDEMPOTENCY_URL', maskRedisUrl(url), () => connection.close());
  } else if (settings.redis) {
    opened = redisClaims(settings.redis, settings, 'REDIS_URL', settings.redisAddress ?? 'REDIS_URL', () => Promise.resolve());
  }
  await opened?.checked;
  return opened;
}
