// Payment claims in Redis, against real redis-servers, with two engines over connections of their own
// standing for two replicas: one payment per key and per keyless payment across them, a repeat in flight
// woken by the other's write; and Redis trusted with money only while it shows it keeps claims: no
// append-only file, a Redis that came back empty, replicas that do not acknowledge, Redis down and out of
// memory each refuse before any payment, unless the operator accepted that risk by name.
import { createClient } from '@redis/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AcceptedRisk } from '../../../../../src/gateway/config.js';
import { reply } from '../../../../../src/payment/contract.js';
import { createRedisClaimStore, type RedisClaimStore } from '../../../../../src/gateway/state/claims/claims-redis.js';
import { createPaymentClaims, type ClaimOutcome, type PaidReply, type PaymentCall, type PaymentClaims, type SendGate } from '../../../../../src/payment/claims/payment-claims.js';
import { createRedisConnection, type RedisConnection } from '../../../../../src/gateway/state/redis-connection.js';
import { capturedLogger, type LogLine } from '../../../../helpers/captured-logger.js';
import { startTestRedis, type TestRedis } from '../../../../helpers/redis-server.js';

const SECRET = 'claims-redis-test-secret-0123456789abcdef';
const FIELDS = { client_id: '1', revenue_amount: '45.50', send_email: '0', token: 'tok_visa_SECRET' };


interface Replica {
  claims: PaymentClaims;
  store: RedisClaimStore;
  connection: RedisConnection;
  lines: LogLine[];
}

const closing: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

let prefixes = 0;
/** Engines over one Redis, one connection each, sharing a key prefix (a fresh one per call). */
async function replicas(url: string, count: number, acceptedRisks: AcceptedRisk[] = []): Promise<Replica[]> {
  const prefix = `t${++prefixes}:`;
  const all: Replica[] = [];
  for (let i = 0; i < count; i++) {
    const { logger, lines } = capturedLogger('info');
    const connection = createRedisConnection({ url, logger, backoff: { firstMs: 20, maxMs: 100 }, commandTimeoutMs: 800, heartbeatMs: 200 });
    await connection.started;
    const store = createRedisClaimStore({ redis: connection, prefix, logger, acceptedRisks, checkEveryMs: 100 });
    await store.checked;
    const claims = createPaymentClaims({ store, secret: SECRET, waitMs: 5000, keylessWindowMs: 600_000, logger, leaseMs: 1500 });
    closing.push(async () => {
      await claims.close();
      await store.close();
      await connection.close();
    });
    all.push({ claims, store, connection, lines });
  }
  return all;
}

/** A payment that counts its runs, sends through the gate, and answers once `release` resolves. */
function payment(release: Promise<unknown> = Promise.resolve()) {
  let runs = 0;
  const pay = async (gate: SendGate): Promise<PaidReply> => {
    const n = ++runs;
    await release;
    await gate.beforeSend();
    return { reply: reply(12, `payment added (payment id ${n})`), charge: 'paid' };
  };
  return { pay, runs: () => runs };
}

async function answered(outcome: ClaimOutcome, delivered = true): Promise<ClaimOutcome> {
  if (outcome.kind === 'fresh') await outcome.answered(delivered);
  return outcome;
}

const keyed = (key: string): PaymentCall => ({ apiKey: 'api-key-1', idempotencyKey: key, fields: FIELDS });
const keyless: PaymentCall = { apiKey: 'api-key-1', idempotencyKey: undefined, fields: FIELDS };

describe('one Redis with its append-only file', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startTestRedis();
  });
  afterAll(async () => {
    await redis?.close();
  });

  it('concurrent runs of one key on two replicas pay once; the repeat waits and is woken by the write', async () => {
    const [a, b] = await replicas(redis.url, 2);
    let release!: () => void;
    const p = payment(new Promise<void>((resolve) => (release = resolve)));
    const first = a!.claims.run(keyed('order-1'), p.pay);
    // The repeat arrives while the first is in flight on the other replica.
    const second = b!.claims.run(keyed('order-1'), p.pay);
    release();
    expect((await answered(await first)).kind).toBe('fresh');
    expect(await second).toEqual({ kind: 'replayed', reply: reply(12, 'payment added (payment id 1)'), waited: true });
    expect(p.runs()).toBe(1);
  });

  it("a keyless payment whose reply was lost is answered to its repeat on the other replica; one answered normally is paid again", async () => {
    const [a, b] = await replicas(redis.url, 2);
    const p = payment();
    await answered(await a!.claims.run(keyless, p.pay), false);
    expect(await b!.claims.run(keyless, p.pay)).toEqual({ kind: 'replayed', reply: reply(12, 'payment added (payment id 1)'), waited: false });
    const other = { ...keyless, fields: { ...FIELDS, revenue_amount: '10.00' } };
    await answered(await a!.claims.run(other, p.pay), true);
    expect((await answered(await b!.claims.run(other, p.pay))).kind).toBe('fresh');
    expect(p.runs()).toBe(3);
  });

  it('a replica that stopped after sending leaves its claim outcome-unknown: never paid again', async () => {
    const [a, b] = await replicas(redis.url, 2);
    const p = payment();
    let sent!: () => void;
    const wasSent = new Promise<void>((resolve) => (sent = resolve));
    // The owner sends, then its process dies: its connection is gone and its lease runs out.
    void a!.claims.run(keyed('order-dies'), async (gate) => {
      await gate.beforeSend();
      sent();
      return new Promise<PaidReply>(() => undefined);
    });
    await wasSent;
    await a!.connection.close();
    expect(await b!.claims.run(keyed('order-dies'), p.pay)).toEqual({ kind: 'outcome-unknown' });
    expect(p.runs()).toBe(0);
  });

  it('Redis stopped: refused before any payment; started again (its file kept), the same claims replay', async () => {
    const [a] = await replicas(redis.url, 1);
    const p = payment();
    await answered(await a!.claims.run(keyed('order-restart'), p.pay));
    await redis.stop();
    await until(() => !a!.connection.isUp());
    expect(await a!.claims.run(keyed('order-2'), p.pay)).toMatchObject({ kind: 'unavailable', reason: 'store-unreachable' });
    await redis.start();
    await until(() => a!.connection.isUp());
    expect(await a!.claims.run(keyed('order-restart'), p.pay)).toMatchObject({ kind: 'replayed', reply: reply(12, 'payment added (payment id 1)') });
    expect(p.runs()).toBe(1);
  });

  it('lists the claims whose outcome is unknown (any replica), drops them once settled, one settle lease at a time', async () => {
    const [a, b] = await replicas(redis.url, 2);
    const now = Date.now();
    const ticket = { sentAt: now - 5000, afterId: 3, filters: { client_id: '1' }, match: { amount: 'h' }, client: '1', amount: '5', unknown: true };
    const record = { phase: 'answered' as const, fingerprint: 'f', caller: 'c', owner: 'run-a', leaseUntil: 0, replays: true, reply: reply(8, 'unknown', 502), ticket };
    await a!.store.claim('unknown-1', record, 60_000, now);
    await a!.store.claim('in-flight', { ...record, phase: 'sent', leaseUntil: now + 60_000, ticket: { ...ticket, unknown: false } }, 60_000, now);
    expect((await b!.store.listUnknown(now, 10)).map((c) => c.id)).toEqual(['unknown-1']);
    expect(await a!.store.settleLease('unknown-1', 'r1', 10_000, now)).toBe(true);
    expect(await b!.store.settleLease('unknown-1', 'r2', 10_000, now)).toBe(false);
    expect(await a!.store.update('unknown-1', { ...record, reply: reply(12, 'payment added (payment id 9)'), ticket: { ...ticket, unknown: false } })).toBe(true);
    expect(await b!.store.listUnknown(now, 10)).toEqual([]);
  });

  it('a claim taken in place of an open one answers what that one held: its fingerprint and ticket', async () => {
    const [a, b] = await replicas(redis.url, 2);
    const now = Date.now();
    const ticket = { sentAt: now - 5000, afterId: 0, filters: { client_id: '701' }, match: { amount: 'h' }, client: '701', amount: '5', unknown: false, createdClient: '701' };
    const released = { phase: 'answered' as const, fingerprint: 'f', caller: 'c', owner: 'run-a', leaseUntil: 0, replays: false, reply: reply(8, 'not paid'), ticket };
    const fresh = { phase: 'claimed' as const, fingerprint: 'f', caller: 'c', owner: 'run-b', leaseUntil: now + 60_000, replays: false };
    expect(await a!.store.claim('released-1', released, 60_000, now)).toStrictEqual({ taken: true });
    expect(await b!.store.claim('released-1', fresh, 60_000, now)).toStrictEqual({ taken: true, replaced: { fingerprint: 'f', ticket } });
    expect(await a!.store.claim('released-1', { ...fresh, owner: 'run-c' }, 60_000, now)).toStrictEqual({ taken: false, existing: fresh });
  });

  it('keeps HMACs only: no API key, Idempotency-Key or field in Redis', async () => {
    const [a] = await replicas(redis.url, 1);
    await answered(await a!.claims.run(keyed('order-secret-77'), payment().pay));
    const raw = createClient({ url: redis.url });
    await raw.connect();
    const keys = await raw.keys(`t${prefixes}:*`);
    const values = await Promise.all(keys.filter((k) => k.includes(':claim:')).map((k) => raw.get(k)));
    await raw.quit();
    const kept = JSON.stringify([keys, values]);
    for (const value of ['api-key-1', 'order-secret-77', 'tok_visa_SECRET', '45.50']) expect(kept).not.toContain(value);
    expect(keys.some((k) => k.endsWith(':claims:epoch'))).toBe(true);
  });
});

async function until(condition: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('a Redis that cannot show it keeps claims', () => {
  it('no append-only file: every claim refused (not-durable), unless IDEMPOTENCY_ACCEPT_RISK=no-aof', async () => {
    const redis = await startTestRedis({ persistence: 'none' });
    closing.push(() => redis.close());
    const [a] = await replicas(redis.url, 1);
    expect(a!.store.problem()).toEqual({ risk: 'no-aof', detail: expect.stringContaining('no append-only file') });
    const p = payment();
    expect(await a!.claims.run(keyless, p.pay)).toEqual({
      kind: 'unavailable',
      reason: 'not-durable',
      detail: 'Redis keeps no append-only file (appendonly no), so a restart would forget payment claims',
    });
    expect(a!.lines.map((l) => l.msg)).toContain('Redis keeps no append-only file: payments are refused until it does (appendonly yes), or IDEMPOTENCY_ACCEPT_RISK=no-aof accepts the risk');
    const [accepted] = await replicas(redis.url, 1, ['no-aof']);
    expect(accepted!.store.problem()).toBeUndefined();
    expect((await accepted!.claims.run(keyless, p.pay)).kind).toBe('fresh');
    expect(p.runs()).toBe(1);
  });

  it('came back empty: the claims it held are lost, so payments are refused on every replica until the risk is accepted', async () => {
    const redis = await startTestRedis({ persistence: 'none' });
    closing.push(() => redis.close());
    const [a, b] = await replicas(redis.url, 2, ['no-aof']);
    const p = payment();
    await answered(await a!.claims.run(keyed('order-lost'), p.pay));
    await redis.stop();
    await redis.start();
    await until(() => a!.connection.isUp() && b!.connection.isUp());
    // The repeat of the payment whose claim Redis forgot is never paid again: refused before any payment.
    expect(await b!.claims.run(keyed('order-lost'), p.pay)).toMatchObject({ kind: 'unavailable', reason: 'not-durable' });
    await a!.store.check();
    expect(await a!.claims.run(keyed('order-lost'), p.pay)).toMatchObject({ kind: 'unavailable', reason: 'not-durable', detail: expect.stringContaining('lost the payment claims') });
    expect(p.runs()).toBe(1);
    expect([...a!.lines.map((l) => l.msg), ...b!.lines.map((l) => l.msg)].some((m) => m.startsWith('Redis lost the payment claims it held: payments are refused for 24 hours'))).toBe(true);
    // A replica started later learns of the loss from Redis itself; one that accepts the risk pays.
    const [later] = await replicasWithPrefix(redis.url, `t${prefixes}:`, ['no-aof']);
    expect(later!.store.problem()).toEqual({ risk: 'lost-claims', detail: expect.stringContaining('lost the payment claims') });
    const [accepting] = await replicasWithPrefix(redis.url, `t${prefixes}:`, ['no-aof', 'lost-claims']);
    expect(accepting!.store.problem()).toBeUndefined();
    expect((await answered(await accepting!.claims.run(keyed('order-after-loss'), p.pay))).kind).toBe('fresh');
  });

  it('replicas that do not acknowledge: refused before the payment is sent, unless IDEMPOTENCY_ACCEPT_RISK=unacknowledged', async () => {
    const primary = await startTestRedis();
    closing.push(() => primary.close());
    const replica = await startTestRedis({ extra: ['--replicaof', '127.0.0.1', String(primary.port)] });
    closing.push(() => replica.close());
    const [a] = await replicas(primary.url, 1);
    await until(() => (a!.store as unknown as { replicas: number }).replicas === 1, 10_000);
    replica.pause();
    closing.push(async () => replica.resume());
    let sent = false;
    const outcome = a!.claims.run(keyed('order-ack'), async (gate) => {
      await gate.beforeSend();
      sent = true;
      return { reply: reply(12, 'paid'), charge: 'paid' };
    });
    await expect(outcome).rejects.toThrow('Redis replicas did not acknowledge the payment claim, so a failover could lose it');
    expect(sent).toBe(false);
    const [accepting] = await replicas(primary.url, 1, ['unacknowledged']);
    await until(() => (accepting!.store as unknown as { replicas: number }).replicas === 1, 10_000);
    expect((await answered(await accepting!.claims.run(keyed('order-ack-2'), payment().pay))).kind).toBe('fresh');
    replica.resume();
  }, 30_000);

  it('out of memory: a new claim is refused as full, a stored claim still replays', async () => {
    const redis = await startTestRedis({ extra: ['--maxmemory-policy', 'noeviction'] });
    closing.push(() => redis.close());
    const [a] = await replicas(redis.url, 1);
    const p = payment();
    await answered(await a!.claims.run(keyed('order-kept'), p.pay));
    const raw = createClient({ url: redis.url });
    await raw.connect();
    // Redis over its bound: every write refused (OOM), reads still answered.
    await raw.configSet('maxmemory', '1');
    await raw.quit();
    expect(await a!.claims.run(keyed('order-new'), p.pay)).toMatchObject({ kind: 'unavailable', reason: 'full' });
    expect(await a!.claims.run(keyed('order-kept'), p.pay)).toMatchObject({ kind: 'replayed' });
    expect(p.runs()).toBe(1);
  });
});

/** Like `replicas`, under a given prefix (another replica of an earlier test's gateway). */
async function replicasWithPrefix(url: string, prefix: string, acceptedRisks: AcceptedRisk[]): Promise<Replica[]> {
  const { logger, lines } = capturedLogger('info');
  const connection = createRedisConnection({ url, logger });
  await connection.started;
  const store = createRedisClaimStore({ redis: connection, prefix, logger, acceptedRisks });
  await store.checked;
  const claims = createPaymentClaims({ store, secret: SECRET, waitMs: 5000, keylessWindowMs: 600_000, logger });
  closing.push(async () => {
    await store.close();
    await connection.close();
  });
  return [{ claims, store, connection, lines }];
}
