// Payment claims in Redis (REDIS_URL, or IDEMPOTENCY_URL=redis://), shared by every replica: one key per
// claim, <prefix>claim:<hmac>, holding the claim as JSON, moved on only by Lua scripts that compare its
// owner, so two replicas can never both hold one claim. Every write is announced on <prefix>claims:changed
// (the claim's HMAC), which wakes the repeats waiting on it on every replica.
//
// Redis is trusted with money only while it can show that it keeps what it was given:
// - its append-only file is on (INFO persistence): without it a restart forgets every claim;
// - it still holds the epoch this store saw (<prefix>claims:epoch, a random marker written once): a Redis
//   that came back empty, or a replica promoted without it, has lost the claims; the loss is written to
//   <prefix>claims:lost for the claims' lifetime, so every replica (and one started later) learns of it;
// - before a payment is sent, its claim is acknowledged by every replica connected to the primary (WAIT),
//   so a failover does not lose it.
// What it cannot show it refuses (ClaimStoreError 'not-durable', with the reason in words), unless the
// operator accepted that risk by name (IDEMPOTENCY_ACCEPT_RISK). WAIT narrows the failover window without
// closing it: a claim acknowledged by a replica can still be lost when that replica is not the one promoted.
// PostgreSQL with synchronous replication (claims-postgres.ts) is the store for failover.
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { AcceptedRisk } from '../../config.js';
import { ClaimWaiters } from '../../../payment/claims/claim-waiters.js';
import { ClaimStoreError, isUnknown, type ClaimRecord, type ClaimResult, type ClaimStore, type UnknownClaim } from '../../../payment/claims/claim-store.js';
import { IDEMPOTENCY_TTL_MS } from '../../../payment/claims/idempotency.js';
import type { ClaimsRedis } from '../shared-redis.js';

/** How often Redis's persistence, replicas and epoch are read again while it is up. */
const DEFAULT_CHECK_EVERY_MS = 5_000;
/** The longest a claim waits for its replicas' acknowledgement; under the connection's command deadline. */
const DEFAULT_REPLICA_ACK_TIMEOUT_MS = 500;

export interface RedisClaimStoreOptions {
  redis: ClaimsRedis;
  /** Put before every key and channel name (REDIS_KEY_PREFIX). */
  prefix: string;
  logger: Logger;
  /** IDEMPOTENCY_ACCEPT_RISK: the risks the operator accepted by name. */
  acceptedRisks: readonly AcceptedRisk[];
  checkEveryMs?: number;
  replicaAckTimeoutMs?: number;
}

/** Why Redis cannot be trusted with claims now, by the name of the risk an operator may accept. */
export interface DurabilityProblem {
  risk: AcceptedRisk;
  detail: string;
}

export interface RedisClaimStore extends ClaimStore {
  /** Settles once Redis's durability was read (or Redis was found down); never rejects. */
  readonly checked: Promise<void>;
  /** What keeps Redis from being trusted with claims now, and no accepted risk covers; undefined: nothing. */
  problem(): DurabilityProblem | undefined;
  /** Reads Redis's persistence, replicas and epoch again now (it does so by itself every few seconds). */
  check(): Promise<void>;
}

const NO_AOF: DurabilityProblem = { risk: 'no-aof', detail: 'Redis keeps no append-only file (appendonly no), so a restart would forget payment claims' };
const LOST: DurabilityProblem = { risk: 'lost-claims', detail: 'Redis lost the payment claims it held (it came back empty, or another server took its place)' };
const UNACKNOWLEDGED = 'Redis replicas did not acknowledge the payment claim, so a failover could lose it';
const UNREACHABLE = new ClaimStoreError('unreachable', 'the payment claims store (Redis) cannot be reached');

// The claims that may be unknown are kept in a sorted set, <prefix>claims:unknown (score: the ticket's
// sentAt), by the scripts that write them: a claim with a ticket that is `sent`, or answered with an unknown
// outcome; listUnknown reads it, drops what expired, and keeps what is unknown at that moment.
const INDEX_UNKNOWN = `
local function index(record, id)
  local t = record.ticket
  if type(t) == 'table' and (record.phase == 'sent' or (record.phase == 'answered' and record.replays and t.unknown == true)) then
    redis.call('ZADD', KEYS[#KEYS], t.sentAt, id)
  else
    redis.call('ZREM', KEYS[#KEYS], id)
  end
end`;

// KEYS: claim, epoch, the unknown index. ARGV: record, ttl ms, now, expected epoch, id. An answered record (a
// reply stored again after its claim vanished) starts no payment, so it is written whatever the epoch. A
// claim taken in place of an open one answers that one too.
const CLAIM_SCRIPT = `${INDEX_UNKNOWN}
local record = cjson.decode(ARGV[1])
if record.phase ~= 'answered' and redis.call('GET', KEYS[2]) ~= ARGV[4] then return {'epoch'} end
local current = redis.call('GET', KEYS[1])
if current then
  local c = cjson.decode(current)
  local open = (c.phase == 'answered' and not c.replays) or (c.phase == 'claimed' and c.leaseUntil <= tonumber(ARGV[3]))
  if not open then return {'held', current} end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
index(record, ARGV[5])
if current then return {'taken', current} end
return {'taken'}`;

// KEYS: claim, the unknown index. ARGV: record, owner, ttl ms ('' keeps the claim's), id. Only the claim's
// owner moves it on.
const UPDATE_SCRIPT = `${INDEX_UNKNOWN}
local current = redis.call('GET', KEYS[1])
if not current then return 'gone' end
if cjson.decode(current).owner ~= ARGV[2] then return 'other' end
if ARGV[3] == '' then redis.call('SET', KEYS[1], ARGV[1], 'KEEPTTL') else redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3]) end
index(cjson.decode(ARGV[1]), ARGV[4])
return 'ok'`;

// KEYS: the unknown index. ARGV: the claims' key prefix, how many. The indexed claims, oldest first, as
// {id, record} pairs; an id whose claim expired leaves the index.
const LIST_UNKNOWN_SCRIPT = `
local out = {}
local ids = redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[2]) - 1)
for _, id in ipairs(ids) do
  local raw = redis.call('GET', ARGV[1] .. id)
  if raw then
    table.insert(out, id)
    table.insert(out, raw)
  else
    redis.call('ZREM', KEYS[1], id)
  end
end
return out`;

// KEYS: the claim's settle lease. ARGV: holder, ms. Taken when free (or run out: PX) or held by the holder.
const SETTLE_LEASE_SCRIPT = `
local current = redis.call('GET', KEYS[1])
if current and current ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1`;

function parseRecord(raw: string): ClaimRecord | undefined {
  try {
    const r = JSON.parse(raw) as Partial<ClaimRecord>;
    if (typeof r.owner !== 'string' || typeof r.fingerprint !== 'string' || typeof r.leaseUntil !== 'number') return undefined;
    if (r.phase !== 'claimed' && r.phase !== 'sent' && r.phase !== 'answered') return undefined;
    return r as ClaimRecord;
  } catch {
    return undefined;
  }
}

/** A record no one can take over or replay: an unreadable claim is as good as one whose owner stopped after sending. */
const unreadable = (): ClaimRecord => ({ phase: 'sent', fingerprint: '', caller: '', owner: '', leaseUntil: 0, replays: false });

/** `name:value` from an INFO section. */
function infoField(info: string, name: string): string | undefined {
  return new RegExp(`^${name}:(.*)$`, 'm').exec(info)?.[1]?.trim();
}

const isOutOfMemory = (err: unknown): boolean => err instanceof Error && /^OOM\b/.test(err.message);

class RedisClaims implements RedisClaimStore {
  readonly checked: Promise<void>;
  private readonly redis: ClaimsRedis;
  private readonly keys: { epoch: string; lost: string; channel: string; unknown: string };
  private readonly accepted: ReadonlySet<AcceptedRisk>;
  private aof: boolean | undefined;
  private replicas = 0;
  private epoch: string | undefined;
  private lost = false;
  private checking: Promise<void> | undefined;
  private readonly timer: NodeJS.Timeout;
  private readonly waiting = new ClaimWaiters();
  private subscribed: Promise<void> | undefined;

  constructor(private readonly options: RedisClaimStoreOptions) {
    this.redis = options.redis;
    this.accepted = new Set(options.acceptedRisks);
    this.keys = { epoch: `${options.prefix}claims:epoch`, lost: `${options.prefix}claims:lost`, channel: `${options.prefix}claims:changed`, unknown: `${options.prefix}claims:unknown` };
    this.redis.onStateChange((up) => {
      if (!up) return;
      this.subscribe();
      void this.check();
    });
    if (this.redis.isUp()) this.subscribe();
    this.checked = this.redis.isUp() ? this.check() : Promise.resolve();
    this.timer = setInterval(() => {
      if (this.redis.isUp()) void this.check();
    }, options.checkEveryMs ?? DEFAULT_CHECK_EVERY_MS);
    this.timer.unref();
  }

  problem(): DurabilityProblem | undefined {
    if (this.aof === false && !this.accepted.has('no-aof')) return NO_AOF;
    if (this.lost && !this.accepted.has('lost-claims')) return LOST;
    return undefined;
  }

  /** Reads Redis's persistence, replicas and epoch again (one read at a time). */
  check(): Promise<void> {
    this.checking ??= this.readDurability()
      .catch(() => undefined)
      .finally(() => (this.checking = undefined));
    return this.checking;
  }

  private async readDurability(): Promise<void> {
    const persistence = await this.redis.info('persistence');
    const wasAof = this.aof;
    this.aof = infoField(persistence, 'aof_enabled') === '1';
    if (!this.aof && wasAof !== false) {
      this.options.logger[this.accepted.has('no-aof') ? 'warn' : 'error'](
        this.accepted.has('no-aof')
          ? 'Redis keeps no append-only file: a restart would forget payment claims (accepted: IDEMPOTENCY_ACCEPT_RISK=no-aof)'
          : 'Redis keeps no append-only file: payments are refused until it does (appendonly yes), or IDEMPOTENCY_ACCEPT_RISK=no-aof accepts the risk',
      );
    }
    this.replicas = Number(infoField(await this.redis.info('replication'), 'connected_slaves') ?? 0) || 0;
    let current = await this.redis.get(this.keys.epoch);
    if (current === null) {
      if (this.epoch !== undefined) await this.noteLoss('came back without its epoch marker');
      await this.redis.set(this.keys.epoch, randomBytes(12).toString('base64url'), { ifAbsent: true });
      current = await this.redis.get(this.keys.epoch);
    } else if (this.epoch !== undefined && current !== this.epoch) {
      await this.noteLoss('holds another epoch marker');
    }
    this.epoch = current ?? undefined;
    const wasLost = this.lost;
    this.lost = (await this.redis.get(this.keys.lost)) !== null;
    if (this.lost && !wasLost) {
      this.options.logger.error(
        { marker: this.keys.lost },
        this.accepted.has('lost-claims')
          ? 'Redis lost the payment claims it held: a repeat of a recent payment may be paid again (accepted: IDEMPOTENCY_ACCEPT_RISK=lost-claims)'
          : `Redis lost the payment claims it held: payments are refused for 24 hours, until IDEMPOTENCY_ACCEPT_RISK=lost-claims accepts the risk, or the marker ${this.keys.lost} is deleted after the payments list was checked`,
      );
    }
  }

  /** Writes the loss for the claims' lifetime, so every replica learns of it. */
  private async noteLoss(how: string): Promise<void> {
    this.options.logger.error({ marker: this.keys.epoch }, `Redis ${how}: the payment claims it held are lost`);
    await this.redis.set(this.keys.lost, String(Date.now()), { ifAbsent: true, ttlMs: IDEMPOTENCY_TTL_MS });
  }

  private fault(err: unknown): ClaimStoreError {
    if (err instanceof ClaimStoreError) return err;
    if (isOutOfMemory(err)) return new ClaimStoreError('full', 'the payment claims store (Redis) is out of memory');
    return UNREACHABLE;
  }

  /** Redis's durability, known and acceptable, before a claim is taken or sent. */
  private async trusted(): Promise<void> {
    if (!this.redis.isUp()) throw UNREACHABLE;
    if (this.epoch === undefined) await this.check();
    if (this.epoch === undefined) throw UNREACHABLE;
    const problem = this.problem();
    if (problem) throw new ClaimStoreError('not-durable', problem.detail);
  }

  async claim(id: string, record: ClaimRecord, ttlMs: number, now: number): Promise<ClaimResult> {
    if (record.phase !== 'answered') await this.trusted();
    let reply: unknown;
    try {
      reply = await this.redis.evalScript(CLAIM_SCRIPT, [this.key(id), this.keys.epoch, this.keys.unknown], [JSON.stringify(record), String(Math.max(1, Math.round(ttlMs))), String(now), this.epoch ?? '', id]);
    } catch (err) {
      throw this.fault(err);
    }
    const [verdict, current] = reply as [string, string?];
    if (verdict === 'epoch') {
      await this.check();
      throw new ClaimStoreError('not-durable', LOST.detail);
    }
    if (verdict === 'held') return { taken: false, existing: parseRecord(current ?? '') ?? unreadable() };
    this.announce(id);
    const replaced = current === undefined ? undefined : parseRecord(current);
    return replaced === undefined ? { taken: true } : { taken: true, replaced: { fingerprint: replaced.fingerprint, ...(replaced.ticket === undefined ? {} : { ticket: replaced.ticket }) } };
  }

  async update(id: string, record: ClaimRecord, options: { durable?: boolean; ttlMs?: number } = {}): Promise<boolean> {
    if (options.durable) await this.trusted();
    let verdict: unknown;
    try {
      const ttl = options.ttlMs === undefined ? '' : String(Math.max(1, Math.round(options.ttlMs)));
      verdict = await this.redis.evalScript(UPDATE_SCRIPT, [this.key(id), this.keys.unknown], [JSON.stringify(record), record.owner, ttl, id]);
    } catch (err) {
      throw this.fault(err);
    }
    if (verdict !== 'ok') return false;
    this.announce(id);
    if (options.durable) await this.acknowledged();
    return true;
  }

  /** Every replica connected to the primary has the writes made so far on this connection. */
  private async acknowledged(): Promise<void> {
    const replicas = this.replicas;
    if (replicas === 0) return;
    let acked: number;
    try {
      acked = await this.redis.waitReplicas(replicas, this.options.replicaAckTimeoutMs ?? DEFAULT_REPLICA_ACK_TIMEOUT_MS);
    } catch (err) {
      throw this.fault(err);
    }
    if (acked >= replicas) return;
    if (this.accepted.has('unacknowledged')) {
      this.options.logger.warn({ replicas, acked }, `${UNACKNOWLEDGED} (accepted: IDEMPOTENCY_ACCEPT_RISK=unacknowledged)`);
      return;
    }
    this.options.logger.warn({ replicas, acked }, `${UNACKNOWLEDGED}: the payment was refused before it was sent`);
    throw new ClaimStoreError('not-durable', UNACKNOWLEDGED);
  }

  async settleLease(id: string, holder: string, ms: number): Promise<boolean> {
    try {
      return (await this.redis.evalScript(SETTLE_LEASE_SCRIPT, [`${this.options.prefix}claim-settle:${id}`], [holder, String(Math.max(1, Math.round(ms)))])) === 1;
    } catch (err) {
      throw this.fault(err);
    }
  }

  async listUnknown(now: number, limit: number): Promise<UnknownClaim[]> {
    let reply: unknown;
    try {
      // Claims still in flight are indexed too: read more than asked, keep the unknown ones.
      reply = await this.redis.evalScript(LIST_UNKNOWN_SCRIPT, [this.keys.unknown], [`${this.options.prefix}claim:`, String(Math.max(1, limit) * 4)]);
    } catch (err) {
      throw this.fault(err);
    }
    const flat = (Array.isArray(reply) ? reply : []) as string[];
    const found: UnknownClaim[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) {
      const record = parseRecord(flat[i + 1]!);
      if (record !== undefined && isUnknown(record, now)) found.push({ id: flat[i]!, record });
    }
    return found.slice(0, limit);
  }

  async read(id: string): Promise<ClaimRecord | undefined> {
    let raw: string | null;
    try {
      raw = await this.redis.get(this.key(id));
    } catch (err) {
      throw this.fault(err);
    }
    return raw === null ? undefined : (parseRecord(raw) ?? unreadable());
  }

  // Waiting for another replica's write: the subscription wakes a repeat when its claim is announced, and
  // the engine reads the claim again. A lost announcement (Redis restarted, the subscription not back yet)
  // is covered by the engine's own re-reads when the lease would run out and at its wait's end.
  changed(id: string, ms: number): Promise<void> {
    this.subscribe();
    return this.waiting.wait(id, ms);
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
  }

  /** Once per store: the connection subscribes again by itself after a reconnect. */
  private subscribe(): void {
    this.subscribed ??= this.redis
      .subscribe(this.keys.channel, (message) => this.wake(message))
      .catch(() => {
        this.subscribed = undefined;
      });
  }

  private key(id: string): string {
    return `${this.options.prefix}claim:${id}`;
  }

  private wake(id: string): void {
    this.waiting.wake(id);
  }

  private announce(id: string): void {
    // Waiters on this replica are woken at once; the others by the announcement.
    this.wake(id);
    this.redis.publish(this.keys.channel, id).catch(() => undefined);
  }
}

export function createRedisClaimStore(options: RedisClaimStoreOptions): RedisClaimStore {
  return new RedisClaims(options);
}
