// The payment claims port (payment/claims/claim-store.ts) kept in PostgreSQL, so that a claim (an Idempotency-Key, or a
// keyless payment's fingerprint) outlives a restart of every replica, a crash of PostgreSQL, and, with
// synchronous replication configured on the server, a failover. One table, one row per claim, made at
// start when missing; every operation is one atomic statement (a claim may read the row it lost to after).
//
// It must never crash the process (the pool and every client in use have an `error` listener), never let
// a pg error escape (each becomes a ClaimStoreError), never queue calls while PostgreSQL is down (one call
// at a time tries again, the others are refused at once, and a timer keeps trying in the background),
// never let a stalled server hold a request (every call has one deadline, from the call to the answer),
// never read an expired row as live (every read and claim filters `expires_at > now`), never log more than
// one line per change of state, and never print the URL's password.
//
// Every write is committed with synchronous_commit = on (set on each new connection, whatever the URL
// says): it is on disk, and on the synchronous standbys the server names, before it is acknowledged. A
// commit whose wait for those standbys was cancelled is committed here only: it throws 'not-durable'.
// It needs a connection of its own to PostgreSQL (direct, or a pooler in session mode): the settings are
// per session.
//
// Synchronous commit protects a claim from a failover only if the standby promoted is a synchronous one.
// Every few seconds (and at start) the store reads, on the primary, the standbys streaming from it
// (pg_stat_replication) and whether any of them is synchronous: standbys that all stream asynchronously
// are a failover that could forget claims, refused like a Redis without its append-only file unless the
// operator accepted the risk (IDEMPOTENCY_ACCEPT_RISK=async-standby). A server whose replicas it cannot see
// (a managed service, a user without pg_read_all_stats) is taken as it is. The same read tells a stopped
// PostgreSQL from an idle one, so its state (isUp) is known without a payment.
import pg from 'pg';
import type { Logger } from 'pino';
import type { AcceptedRisk } from '../../config.js';
import { ClaimStoreError, isOpen, type ClaimRecord, type ClaimResult, type ClaimStore, type UnknownClaim } from '../../../payment/claims/claim-store.js';
import {
  CLAIM,
  CLAIMS_TABLE,
  HAS_SETTLE_COLUMNS,
  LIST_UNKNOWN,
  READ,
  SCHEMA,
  SETTLE_COLUMNS,
  SETTLE_LEASE,
  SWEEP,
  SWEEP_BATCH,
  UPDATE,
  fields,
  recordOf,
  ticketOf,
  tookPlaceOf,
  wholeMs,
  type ReplacedRow,
  type Row,
} from './claims-postgres-rows.js';

export { CLAIMS_TABLE };

/** A claim or read waits this long for PostgreSQL at most, connection included. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 2000;
/** How often expired rows are deleted (by whichever call comes after), and how many at once. */
const SWEEP_EVERY_MS = 60_000;
/** PostgreSQL tells no one when a row changes: a waiting repeat looks again this often. */
const CHANGED_POLL_MS = 200;
/** Tries of a claim whose row vanished (or opened) between its upsert and its read. */
const CLAIM_ATTEMPTS = 3;
/** Retries in the background while down: 50-100 ms, then doubling, up to 1.5-3 s. */
const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 3000;
/** How often the server's state and its standbys are read while it is up. */
const DEFAULT_CHECK_EVERY_MS = 5000;

/** The server's replication as the primary sees it: standbys streaming, how many synchronously, and how
 * many it does not show (no pg_read_all_stats: their state reads NULL). */
const REPLICATION = `SELECT pg_is_in_recovery() AS recovery,
  (SELECT count(*)::int FROM pg_stat_replication WHERE state = 'streaming') AS streaming,
  (SELECT count(*)::int FROM pg_stat_replication WHERE state = 'streaming' AND sync_state IN ('sync', 'quorum')) AS synchronous,
  (SELECT count(*)::int FROM pg_stat_replication WHERE state IS NULL) AS hidden`;
interface ReplicationRow {
  recovery: boolean;
  streaming: number;
  synchronous: number;
  hidden: number;
}

/** Why PostgreSQL cannot be trusted with claims now, by the name of the risk an operator may accept. */
export interface PostgresDurabilityProblem {
  risk: AcceptedRisk;
  detail: string;
}

const ASYNC_STANDBY: PostgresDurabilityProblem = {
  risk: 'async-standby',
  detail: 'PostgreSQL streams to its standby servers asynchronously, so a failover could forget payment claims',
};

export interface PostgresClaimStoreOptions {
  /** postgres:// or postgresql:// URL (password, sslmode... in it). */
  url: string;
  logger: Logger;
  /** The deadline of each call, from the call to the answer (default DEFAULT_COMMAND_TIMEOUT_MS). */
  commandTimeoutMs?: number;
  /** IDEMPOTENCY_ACCEPT_RISK: the risks the operator accepted by name. */
  acceptedRisks?: readonly AcceptedRisk[];
  /** How often the server's state and standbys are read while it is up (default 5 s). */
  checkEveryMs?: number;
}

export interface PostgresClaimStore extends ClaimStore {
  /** Settles once the first attempt to connect (and make the table) has ended, either way. Never rejects:
   * a gateway starts with PostgreSQL down, and this store keeps trying in the background. */
  readonly started: Promise<void>;
  isUp(): boolean;
  /** What keeps PostgreSQL from being trusted with claims now, and no accepted risk covers; undefined: nothing. */
  problem(): PostgresDurabilityProblem | undefined;
}

/** The URL with its password masked (in the authority and in a `password` parameter): the only form logged. */
export function maskPostgresUrl(url: string): string {
  if (!URL.canParse(url)) return 'postgres://(unparseable)';
  const u = new URL(url);
  if (u.password !== '') u.password = '***';
  if (u.searchParams.has('password')) u.searchParams.set('password', '***');
  return u.toString();
}

class DeadlineError extends Error {
  override name = 'DeadlineError';
}

const unreachable = () => new ClaimStoreError('unreachable', 'the payment claims store (PostgreSQL) cannot be reached');
const full = () => new ClaimStoreError('full', 'the payment claims store (PostgreSQL) has no room left');
const notDurable = () =>
  new ClaimStoreError('not-durable', 'the payment claims store (PostgreSQL) did not confirm that its standby servers keep the claim');

/** A short name for why a call failed (a SQLSTATE, an errno code, or a kind), never a message: messages
 * may name the host, a value or a user. */
function reasonOf(err: unknown): string {
  if (err instanceof DeadlineError) return 'timeout';
  if (!(err instanceof Error)) return 'unknown';
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && code !== '') return code;
  if (/timeout/i.test(err.message)) return 'timeout';
  if (/terminated/i.test(err.message)) return 'connection terminated';
  return err.name;
}

/** PostgreSQL's WARNING when a commit's wait for its synchronous standbys was cancelled (the commit stays,
 * on this server only): "canceling wait for synchronous replication ...". Its SQLSTATE is the plain
 * warning's, 01000, which none of these statements meets otherwise; the text is matched too for servers
 * that report it with another code. */
const cancelledSyncWait = (notice: { code?: string; message?: string }): boolean =>
  notice.code === '01000' || /synchronous replication/i.test(notice.message ?? '');

/** A statement on the call's connection, within the call's deadline. */
type Query = (text: string, values?: unknown[]) => Promise<{ rows: Row[]; rowCount: number }>;

/** Why the state changed, for its one log line. */
function stateMessage(now: boolean, before: boolean | undefined): { level: 'info' | 'warn' | 'error'; msg: string } {
  if (now && before === undefined) return { level: 'info', msg: 'PostgreSQL connected: payment claims are kept in PostgreSQL' };
  if (now) return { level: 'info', msg: 'PostgreSQL reachable again: payment claims can be taken again' };
  if (before === undefined) return { level: 'warn', msg: 'PostgreSQL unreachable at start: payments that need a claim are refused, reconnecting in the background' };
  return { level: 'error', msg: 'PostgreSQL unreachable: payments that need a claim are refused, reconnecting in the background' };
}

class Store implements PostgresClaimStore {
  readonly started: Promise<void>;
  private readonly pool: pg.Pool;
  private readonly logger: Logger;
  /** The URL with its password masked: the only form in which it is ever logged. */
  private readonly postgres: string;
  private readonly commandTimeoutMs: number;
  /** undefined until the first attempt has ended. */
  private up: boolean | undefined;
  /** A call is finding out whether PostgreSQL is back: the others are refused meanwhile, not queued. */
  private probing = false;
  private schemaReady = false;
  /** The start sweeps (awaited by `started`); calls sweep again once this is SWEEP_EVERY_MS old. */
  private lastSweep = Date.now();
  private sweeping = false;
  private retries = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private readonly checkTimer: NodeJS.Timeout;
  private readonly accepted: ReadonlySet<AcceptedRisk>;
  /** The standbys all stream asynchronously (the last read); false when not read yet, or not visible. */
  private asyncStandby = false;
  private closed = false;

  constructor(options: PostgresClaimStoreOptions) {
    this.logger = options.logger;
    this.postgres = maskPostgresUrl(options.url);
    this.commandTimeoutMs = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    this.pool = new pg.Pool({
      connectionString: options.url,
      connectionTimeoutMillis: this.commandTimeoutMs,
      keepAlive: true,
      allowExitOnIdle: true,
      // Set here rather than as startup options, which the URL's own parameters would override.
      onConnect: (client) =>
        client.query(this.timed(`SET synchronous_commit = on; SET statement_timeout = ${this.commandTimeoutMs}`, [], this.commandTimeoutMs)).then(() => undefined),
    });
    // An idle client whose server went away (a restart, a failover): the pool drops it; the next call finds out.
    this.pool.on('error', (err) => this.logger.debug({ postgres: this.postgres, reason: reasonOf(err) }, 'PostgreSQL closed an idle connection'));
    this.accepted = new Set(options.acceptedRisks ?? []);
    this.started = this.call((q) => this.readReplication(q), false)
      .then(() => this.sweep())
      .catch(() => undefined);
    // While up, a read every few seconds: a stopped server is found without waiting for a payment, and a
    // standby attached later is seen. While down, the retry timer does the reading.
    this.checkTimer = setInterval(() => {
      if (this.up === true) this.call((q) => this.readReplication(q)).catch(() => undefined);
    }, options.checkEveryMs ?? DEFAULT_CHECK_EVERY_MS);
    this.checkTimer.unref();
  }

  isUp(): boolean {
    return !this.closed && this.up === true;
  }

  problem(): PostgresDurabilityProblem | undefined {
    return this.asyncStandby && !this.accepted.has(ASYNC_STANDBY.risk) ? ASYNC_STANDBY : undefined;
  }

  /** Reads the standbys the server streams to; one log line when what it finds changes. */
  private async readReplication(q: Query): Promise<void> {
    const row = (await q(REPLICATION)).rows[0] as unknown as ReplicationRow | undefined;
    // A standby (in recovery) takes no writes: the claim statements fail on it and say so. Standbys it cannot
    // show are not judged.
    const asynchronous = row !== undefined && !row.recovery && row.hidden === 0 && row.streaming > 0 && row.synchronous === 0;
    if (asynchronous === this.asyncStandby) return;
    this.asyncStandby = asynchronous;
    if (!asynchronous) {
      this.logger.info({ postgres: this.postgres }, 'PostgreSQL streams to a synchronous standby again: payment claims survive a failover');
    } else if (this.accepted.has(ASYNC_STANDBY.risk)) {
      this.logger.warn({ postgres: this.postgres, standbys: row.streaming }, 'PostgreSQL streams to its standbys asynchronously: a failover could forget payment claims (accepted: IDEMPOTENCY_ACCEPT_RISK=async-standby)');
    } else {
      this.logger.error(
        { postgres: this.postgres, standbys: row.streaming },
        'PostgreSQL streams to its standbys asynchronously: payments are refused until one is named in synchronous_standby_names, or IDEMPOTENCY_ACCEPT_RISK=async-standby accepts the risk',
      );
    }
  }

  /** Refuses a claim PostgreSQL cannot be trusted with now. */
  private trusted(): void {
    const problem = this.problem();
    if (problem) throw new ClaimStoreError('not-durable', problem.detail);
  }

  async claim(id: string, record: ClaimRecord, ttlMs: number, now: number): Promise<ClaimResult> {
    wholeMs('now', now);
    if (!(wholeMs('ttlMs', ttlMs) > 0)) throw new TypeError('ttlMs must be above 0');
    const values = [id, record.caller, record.fingerprint, record.owner, ...fields(record), now + ttlMs, now, ticketOf(record)];
    this.trusted();
    return this.call(async (q) => {
      for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
        const taken = await q(CLAIM, values);
        if (taken.rowCount === 1) return tookPlaceOf(taken.rows[0] as unknown as ReplacedRow);
        const [row] = (await q(READ, [id, now])).rows;
        if (row && !isOpen(recordOf(row), now)) return { taken: false, existing: recordOf(row) };
        // Gone (swept, or it expired) or opened between the two: the upsert would take it now.
      }
      throw unreachable();
    });
  }

  async update(id: string, record: ClaimRecord, options: { durable?: boolean; ttlMs?: number } = {}): Promise<boolean> {
    const now = Date.now();
    const expiresAt = options.ttlMs === undefined ? null : now + wholeMs('ttlMs', options.ttlMs);
    // synchronous_commit = on: an acknowledged update is as durable as this server can make it (`durable` asks nothing more).
    const values = [id, record.owner, record.caller, record.fingerprint, ...fields(record), expiresAt, now, ticketOf(record)];
    // Before a payment is sent (`durable`): a standby found asynchronous since the claim was taken refuses it.
    if (options.durable) this.trusted();
    return this.call(async (q) => (await q(UPDATE, values)).rowCount === 1);
  }

  async read(id: string): Promise<ClaimRecord | undefined> {
    const { rows } = await this.call((q) => q(READ, [id, Date.now()]));
    return rows[0] && recordOf(rows[0]);
  }

  async listUnknown(now: number, limit: number): Promise<UnknownClaim[]> {
    const { rows } = await this.call((q) => q(LIST_UNKNOWN, [wholeMs('now', now), Math.max(1, Math.floor(limit))]));
    return rows.map((row) => ({ id: (row as Row & { id: string }).id, record: recordOf(row) }));
  }

  async settleLease(id: string, holder: string, ms: number, now: number): Promise<boolean> {
    const values = [id, holder, wholeMs('now', now), wholeMs('ms', Math.round(ms))];
    return this.call(async (q) => (await q(SETTLE_LEASE, values)).rowCount === 1);
  }

  changed(_id: string, ms: number): Promise<void> {
    const wait = Math.min(Number.isFinite(ms) ? Math.max(0, ms) : 0, CHANGED_POLL_MS);
    return new Promise((resolve) => setTimeout(resolve, wait));
  }

  /** One call: its statements on one connection, under one deadline. While PostgreSQL is down, one call at
   * a time tries (making the table first if it is not known to be there); the others are refused at once.
   * The background retry (not `gated`) never holds a call back: the first call after a recovery tries. */
  private async call<T>(work: (q: Query) => Promise<T>, gated = true): Promise<T> {
    if (this.closed) throw unreachable();
    const probe = gated && this.up !== true;
    if (probe && this.probing) throw unreachable();
    if (probe) this.probing = true;
    const deadline = Date.now() + this.commandTimeoutMs;
    try {
      const result = await this.session(deadline, async (q) => {
        if (!this.schemaReady) await this.makeTable(q);
        return work(q);
      });
      this.setUp(true);
      if (Date.now() - this.lastSweep >= SWEEP_EVERY_MS) void this.sweep();
      return result;
    } catch (err) {
      if (err instanceof ClaimStoreError) throw err;
      const reason = reasonOf(err);
      // Out of disk: PostgreSQL answers, it cannot take another claim.
      if (reason === '53100') throw full();
      // The table was dropped under a running gateway: made again by the next call.
      if (reason === '42P01') this.schemaReady = false;
      // A value PostgreSQL refused (class 22 or 23) is this gateway's fault, not an outage: the state stays.
      if (/^2[23]/.test(reason)) {
        this.logger.error({ postgres: this.postgres, reason }, 'PostgreSQL refused a payment claim statement');
        throw unreachable();
      }
      this.setUp(false, reason);
      throw unreachable();
    } finally {
      if (probe) this.probing = false;
    }
  }

  /** The table, made when missing. Looked up first: a user allowed to use an existing table but not to
   * create one (CREATE ... IF NOT EXISTS still asks for that right) works with a table made beforehand. */
  private async makeTable(q: Query): Promise<void> {
    const { rows } = await q(`SELECT to_regclass('${CLAIMS_TABLE}') IS NOT NULL AS present`);
    if (!(rows[0] as unknown as { present: boolean }).present) await q(SCHEMA);
    else if (((await q(HAS_SETTLE_COLUMNS)).rows[0] as unknown as { n: number }).n < 3) await q(SETTLE_COLUMNS);
    this.schemaReady = true;
  }

  /** A client of the pool for `work`, with an `error` listener while it is out (a client in use that
   * loses its server emits `error`, which would otherwise crash the process). */
  private async session<T>(deadline: number, work: (q: Query) => Promise<T>): Promise<T> {
    const client = await this.checkout(deadline);
    let failure: Error | undefined;
    const onError = (err: Error) => (failure ??= err);
    client.on('error', onError);
    const q: Query = async (text, values = []) => {
      if (failure) throw failure;
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new DeadlineError(`no answer within ${this.commandTimeoutMs} ms`);
      let cancelledWait = false;
      const onNotice = (notice: { code?: string; message?: string }) => (cancelledWait ||= cancelledSyncWait(notice));
      client.on('notice', onNotice);
      try {
        const result = await client.query<Row>(this.timed(text, values, remaining));
        if (cancelledWait) throw notDurable();
        return { rows: result.rows, rowCount: result.rowCount ?? 0 };
      } finally {
        client.off('notice', onNotice);
      }
    };
    try {
      return await work(q);
    } catch (err) {
      failure ??= err instanceof Error ? err : new Error('failed');
      throw err;
    } finally {
      client.off('error', onError);
      // A client that failed is closed, not reused (a timed-out one may still be busy with its statement).
      client.release(failure);
    }
  }

  /** pool.connect() within the deadline; a client that comes after it goes straight back to the pool. */
  private checkout(deadline: number): Promise<pg.PoolClient> {
    return new Promise((resolve, reject) => {
      let late = false;
      const timer = setTimeout(() => {
        late = true;
        reject(new DeadlineError(`no connection within ${this.commandTimeoutMs} ms`));
      }, Math.max(0, deadline - Date.now()));
      this.pool.connect().then(
        (client) => {
          if (late) return client.release();
          clearTimeout(timer);
          resolve(client);
        },
        (err: unknown) => {
          clearTimeout(timer);
          if (!late) reject(err);
        },
      );
    });
  }

  /** A statement with a client-side deadline too: statement_timeout does not cover a server that never answers. */
  private timed(text: string, values: unknown[], ms: number): pg.QueryConfig {
    const config: pg.QueryConfig & { query_timeout: number } = { text, values, query_timeout: ms };
    return config;
  }

  /** One log line per change of state; while down, a timer tries again in the background. */
  private setUp(now: boolean, reason?: string): void {
    if (this.closed) return;
    if (!now) this.scheduleRetry();
    if (now === this.up) return;
    const before = this.up;
    this.up = now;
    if (now) {
      this.retries = 0;
      clearTimeout(this.retryTimer);
      this.retryTimer = undefined;
    }
    const { level, msg } = stateMessage(now, before);
    this.logger[level]({ postgres: this.postgres, ...(now ? {} : { reason }) }, msg);
  }

  /** Equal jitter, doubling up to RETRY_MAX_MS: replicas retrying never come back at once. Unref'd: it
   * never keeps the process alive. */
  private scheduleRetry(): void {
    if (this.retryTimer !== undefined || this.closed) return;
    const ceiling = Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** Math.min(this.retries++, 20));
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (this.closed || this.up === true) return;
      this.call((q) => this.readReplication(q), false).catch(() => this.scheduleRetry());
    }, Math.round(ceiling / 2 + (Math.random() * ceiling) / 2));
    this.retryTimer.unref();
  }

  /** Deletes expired rows (a batch at a time); never throws, never marks PostgreSQL down. */
  private async sweep(): Promise<void> {
    if (this.sweeping || this.closed || this.up !== true) return;
    this.sweeping = true;
    try {
      const { rowCount } = await this.session(Date.now() + this.commandTimeoutMs, (q) => q(SWEEP, [Date.now()]));
      // A full batch: more are left, and the next call sweeps again.
      if (rowCount < SWEEP_BATCH) this.lastSweep = Date.now();
      if (rowCount > 0) this.logger.debug({ postgres: this.postgres, deleted: rowCount }, 'expired payment claims deleted');
    } catch (err) {
      this.logger.debug({ postgres: this.postgres, reason: reasonOf(err) }, 'expired payment claims could not be deleted now');
    } finally {
      this.sweeping = false;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.retryTimer);
    clearInterval(this.checkTimer);
    await this.pool.end().catch(() => undefined);
  }
}

/** Connects at once, in the background: await `started` for the first attempt's outcome. */
export function createPostgresClaimStore(options: PostgresClaimStoreOptions): PostgresClaimStore {
  return new Store(options);
}
