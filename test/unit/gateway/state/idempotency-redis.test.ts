// The Idempotency-Key store in Redis, against a real redis-server, with two stores standing for two
// replicas (one connection each, one secret): one payment per key across them, a repeat in flight waits
// for the other's reply without polling, a reused key is a mismatch everywhere, a claim whose owner
// stopped is outcome-unknown (never paid again), Redis down refuses before any payment and the same store
// works again once Redis is back, the owner's lease renewal keeps a long payment's claim alive, and
// nothing is kept in clear.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { refusedTheApiKey, reply, type LegacyPaymentReply } from '../../../../src/payment/contract.js';
import type { IdempotencyEvent, IdempotencyStore } from '../../../../src/gateway/state/idempotency.js';
import { createRedisIdempotencyStore, type RedisIdempotencyOptions } from '../../../../src/gateway/state/idempotency-redis.js';
import { startTestRedis, type TestRedis } from '../../../helpers/redis-server.js';
import { connectIdempotencyPort, type IdempotencyTestPort } from './idempotency-redis-port.js';

const SECRET = 'test-gateway-secret';
const FIELDS = { client_id: '1', revenue_amount: '45.50', send_email: '0', token: 'tok_visa_SECRET' };

let redis: TestRedis;
const opened: Array<{ close(): Promise<void> }> = [];
let prefixes = 0;

beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(async () => {
  await redis?.close();
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((o) => o.close()));
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(condition: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await sleep(20);
  }
}

interface Replica {
  store: IdempotencyStore;
  port: IdempotencyTestPort;
  events: IdempotencyEvent[];
}

/** A store over a connection of its own: one replica. Every test has its own key prefix. */
async function replica(prefix: string, options: Partial<RedisIdempotencyOptions> = {}): Promise<Replica> {
  const port = await connectIdempotencyPort(redis.url);
  const events: IdempotencyEvent[] = [];
  const store = createRedisIdempotencyStore({ redis: port, prefix, secret: SECRET, waitMs: 3000, leaseMs: 2000, onEvent: (e) => events.push(e), ...options });
  opened.push(port, store);
  return { store, port, events };
}

async function replicas(count: number, options: Partial<RedisIdempotencyOptions> = {}): Promise<Replica[]> {
  const prefix = `t${++prefixes}:`;
  const all: Replica[] = [];
  for (let i = 0; i < count; i++) all.push(await replica(prefix, options));
  // Let the subscriptions settle before a test counts on them.
  await sleep(50);
  return all;
}

/** A payment that counts its runs and answers after `ms`. */
function payment(ms = 0) {
  let runs = 0;
  const pay = async (): Promise<LegacyPaymentReply> => {
    const n = ++runs;
    if (ms > 0) await sleep(ms);
    return reply(12, `payment added (payment id ${n})`);
  };
  return { pay, runs: () => runs };
}

const added = (n: number) => reply(12, `payment added (payment id ${n})`);

describe('one payment per key, across replicas', () => {
  it('concurrent runs of one key on two replicas pay once; the repeat waits for the reply, woken by its announcement', async () => {
    const [a, b] = await replicas(2);
    const p = payment(300);
    let gets = 0;
    b!.port.hooks.beforeGet = () => void gets++;
    const started = Date.now();
    const [first, second] = await Promise.all([a!.store.run('k', 'order-1', a!.store.fingerprint(FIELDS), p.pay), sleep(30).then(() => b!.store.run('k', 'order-1', b!.store.fingerprint(FIELDS), p.pay))]);
    expect(first).toEqual({ kind: 'fresh', reply: added(1) });
    expect(second).toEqual({ kind: 'replayed', reply: added(1) });
    expect(p.runs()).toBe(1);
    expect([a!.events, b!.events]).toEqual([['claimed'], ['waited']]);
    // Woken by the announcement, well before the lease (2 s) would have made it look: no polling.
    expect(Date.now() - started).toBeLessThan(1500);
    expect(gets).toBe(2);
  });

  it('many concurrent runs over both replicas: one payment, every one the same reply', async () => {
    const [a, b] = await replicas(2);
    const p = payment(100);
    const runs = Array.from({ length: 20 }, (_, i) => {
      const r = i % 2 === 0 ? a! : b!;
      return r.store.run('k', 'order-many', r.store.fingerprint(FIELDS), p.pay);
    });
    const outcomes = await Promise.all(runs);
    expect(p.runs()).toBe(1);
    expect(outcomes.filter((o) => o.kind === 'fresh')).toHaveLength(1);
    for (const o of outcomes) expect(o).toMatchObject({ reply: added(1) });
  });

  it('a later repeat on the other replica replays; another payment under the key is a mismatch on both', async () => {
    const [a, b] = await replicas(2);
    const p = payment();
    const fp = a!.store.fingerprint(FIELDS);
    expect(b!.store.fingerprint(FIELDS)).toBe(fp);
    await a!.store.run('k', 'order-2', fp, p.pay);
    expect(await b!.store.run('k', 'order-2', fp, p.pay)).toEqual({ kind: 'replayed', reply: added(1) });
    const other = b!.store.fingerprint({ ...FIELDS, revenue_amount: '99.00' });
    expect(await a!.store.run('k', 'order-2', other, p.pay)).toEqual({ kind: 'mismatch' });
    expect(await b!.store.run('k', 'order-2', other, p.pay)).toEqual({ kind: 'mismatch' });
    expect((await b!.store.run('another-api-key', 'order-2', other, p.pay)).kind).toBe('fresh');
    expect(p.runs()).toBe(2);
    expect(b!.events).toEqual(['replayed', 'mismatch', 'claimed']);
  });

  it('a repeat while the first is in flight with another payment is a mismatch at once', async () => {
    const [a, b] = await replicas(2);
    const p = payment(400);
    const first = a!.store.run('k', 'order-3', a!.store.fingerprint(FIELDS), p.pay);
    await sleep(50);
    const started = Date.now();
    expect(await b!.store.run('k', 'order-3', b!.store.fingerprint({ ...FIELDS, revenue_amount: '1' }), p.pay)).toEqual({ kind: 'mismatch' });
    expect(Date.now() - started).toBeLessThan(200);
    await first;
  });
});

describe('a claim whose owner stopped', () => {
  it('a replica that dies mid-payment leaves its claim to expire: the repeat answers outcome-unknown, never pays', async () => {
    const [a, b] = await replicas(2, { leaseMs: 300 });
    const p = payment();
    let release!: () => void;
    const hung = a!.store.run('k', 'order-4', a!.store.fingerprint(FIELDS), async () => {
      await new Promise<void>((resolve) => (release = resolve));
      return p.pay();
    });
    await sleep(50);
    // The replica's process is gone: no renewal, no reply.
    await a!.port.close();
    const started = Date.now();
    expect(await b!.store.run('k', 'order-4', b!.store.fingerprint(FIELDS), p.pay)).toEqual({ kind: 'outcome-unknown' });
    // It waited for the lease (300 ms from the claim), not for its whole wait (3 s).
    expect(Date.now() - started).toBeLessThan(1000);
    // And so on for the rest of the key's 24 hours, at once.
    expect(await b!.store.run('k', 'order-4', b!.store.fingerprint(FIELDS), p.pay)).toEqual({ kind: 'outcome-unknown' });
    expect(p.runs()).toBe(0);
    expect(b!.events).toEqual(['outcome_unknown', 'outcome_unknown']);
    release();
    await hung;
  });

  it('a reply that cannot be stored leaves the claim in flight: outcome-unknown once the lease runs out', async () => {
    const [a, b] = await replicas(2, { leaseMs: 300 });
    const p = payment();
    a!.port.hooks.beforeSet = (_key, value) => {
      if (value.includes('"done"')) throw new Error('connection lost');
    };
    expect(await a!.store.run('k', 'order-5', a!.store.fingerprint(FIELDS), p.pay)).toEqual({ kind: 'fresh', reply: added(1) });
    expect(await b!.store.run('k', 'order-5', b!.store.fingerprint(FIELDS), p.pay)).toEqual({ kind: 'outcome-unknown' });
    expect(p.runs()).toBe(1);
  });

  it('a payment that throws leaves its claim to expire: outcome-unknown', async () => {
    const [a, b] = await replicas(2, { leaseMs: 300 });
    const fp = a!.store.fingerprint(FIELDS);
    await expect(a!.store.run('k', 'order-6', fp, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    const p = payment();
    expect(await b!.store.run('k', 'order-6', fp, p.pay)).toEqual({ kind: 'outcome-unknown' });
    expect(p.runs()).toBe(0);
  });
});

describe('the lease and the wait', () => {
  it('the owner renews its lease: a payment many leases long is waited for and replayed, not outcome-unknown', async () => {
    const [a, b] = await replicas(2, { leaseMs: 200 });
    const p = payment(1200);
    const first = a!.store.run('k', 'order-7', a!.store.fingerprint(FIELDS), p.pay);
    await sleep(700);
    expect(await b!.store.run('k', 'order-7', b!.store.fingerprint(FIELDS), p.pay)).toEqual({ kind: 'replayed', reply: added(1) });
    expect(await first).toEqual({ kind: 'fresh', reply: added(1) });
    expect(p.runs()).toBe(1);
    expect(b!.events).toEqual(['waited']);
  });

  it('a lost announcement is covered by the re-read when the lease would run out', async () => {
    const [a, b] = await replicas(2, { leaseMs: 400 });
    a!.port.hooks.publishes = () => false;
    const p = payment(150);
    const first = a!.store.run('k', 'order-8', a!.store.fingerprint(FIELDS), p.pay);
    await sleep(30);
    expect(await b!.store.run('k', 'order-8', b!.store.fingerprint(FIELDS), p.pay)).toEqual({ kind: 'replayed', reply: added(1) });
    await first;
    expect(p.runs()).toBe(1);
  });

  it('past waitMs the repeat is refused (wait-expired) without paying; a later repeat replays', async () => {
    const [a] = await replicas(1);
    const b = await replica(`t${prefixes}:`, { waitMs: 200 });
    const p = payment(800);
    let gets = 0;
    b.port.hooks.beforeGet = () => void gets++;
    const first = a!.store.run('k', 'order-9', a!.store.fingerprint(FIELDS), p.pay);
    await sleep(30);
    expect(await b.store.run('k', 'order-9', b.store.fingerprint(FIELDS), p.pay)).toEqual({ kind: 'unavailable', reason: 'wait-expired' });
    // One read, then one more at the wait's end: no polling in between.
    expect(gets).toBe(2);
    await first;
    expect(await b.store.run('k', 'order-9', b.store.fingerprint(FIELDS), p.pay)).toEqual({ kind: 'replayed', reply: added(1) });
    expect(p.runs()).toBe(1);
    expect(b.events).toEqual(['wait_expired', 'replayed']);
  });
});

describe('Redis unreachable or full', () => {
  it('Redis stopped: refused before any payment; started again: the same store takes keys again', async () => {
    const [a] = await replicas(1);
    const p = payment();
    const fp = a!.store.fingerprint(FIELDS);
    expect((await a!.store.run('k', 'before', fp, p.pay)).kind).toBe('fresh');
    await redis.stop();
    try {
      await until(() => !a!.port.isUp());
      expect(await a!.store.run('k', 'during', fp, p.pay)).toEqual({ kind: 'unavailable', reason: 'store-unreachable' });
      expect(p.runs()).toBe(1);
      expect(a!.events).toEqual(['claimed', 'refused_unavailable']);
    } finally {
      await redis.start();
    }
    await until(() => a!.port.isUp());
    expect((await a!.store.run('k', 'after', fp, p.pay)).kind).toBe('fresh');
    expect(p.runs()).toBe(2);
    // Its subscription came back too: a repeat waiting on it is woken by another replica's announcement.
    const slow = payment(200);
    const b = await replica(`t${prefixes}:`);
    await sleep(50);
    const first = b.store.run('k', 'after-2', fp, slow.pay);
    await sleep(30);
    const started = Date.now();
    expect((await a!.store.run('k', 'after-2', fp, slow.pay)).kind).toBe('replayed');
    expect(Date.now() - started).toBeLessThan(1500);
    expect(a!.events.at(-1)).toBe('waited');
    await first;
  });

  it('a claim Redis rejects is refused before any payment; a command that fails while waiting too', async () => {
    const [a, b] = await replicas(2);
    const p = payment(200);
    a!.port.hooks.beforeSet = () => {
      throw new Error('connection reset');
    };
    expect(await a!.store.run('k', 'order-10', a!.store.fingerprint(FIELDS), p.pay)).toEqual({ kind: 'unavailable', reason: 'store-unreachable' });
    a!.port.hooks.beforeSet = undefined;
    const first = a!.store.run('k', 'order-10', a!.store.fingerprint(FIELDS), p.pay);
    await sleep(30);
    b!.port.hooks.beforeGet = () => {
      throw new Error('connection reset');
    };
    expect(await b!.store.run('k', 'order-10', b!.store.fingerprint(FIELDS), p.pay)).toEqual({ kind: 'unavailable', reason: 'store-unreachable' });
    await first;
    expect(p.runs()).toBe(1);
  });

  it('Redis out of memory (maxmemory, noeviction): a new key is refused as full, a stored key still replays', async () => {
    const [a] = await replicas(1);
    const p = payment();
    const fp = a!.store.fingerprint(FIELDS);
    await a!.store.run('k', 'kept', fp, p.pay);
    await a!.port.command(['CONFIG', 'SET', 'maxmemory-policy', 'noeviction']);
    await a!.port.command(['CONFIG', 'SET', 'maxmemory', '1']);
    try {
      expect(await a!.store.run('k', 'new', fp, p.pay)).toEqual({ kind: 'unavailable', reason: 'full' });
      expect(await a!.store.run('k', 'kept', fp, p.pay)).toEqual({ kind: 'replayed', reply: added(1) });
    } finally {
      await a!.port.command(['CONFIG', 'SET', 'maxmemory', '0']);
    }
    expect(p.runs()).toBe(1);
    expect(a!.events).toEqual(['claimed', 'refused_full', 'replayed']);
  });
});

describe('what Redis holds', () => {
  it('one key per (API key, Idempotency-Key), named by an HMAC, for 24 hours; no key, field or secret in clear', async () => {
    const [a] = await replicas(1);
    const p = payment();
    await a!.store.run('caller-api-key-123', 'order-secret-77', a!.store.fingerprint(FIELDS), p.pay);
    const keys = (await a!.port.command(['KEYS', `t${prefixes}:*`])) as string[];
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatch(new RegExp(`^t${prefixes}:idem:[A-Za-z0-9_-]{43}$`));
    const ttl = (await a!.port.command(['PTTL', keys[0]!])) as number;
    expect(ttl).toBeGreaterThan(24 * 3600 * 1000 - 60_000);
    expect(ttl).toBeLessThanOrEqual(24 * 3600 * 1000);
    const value = (await a!.port.get(keys[0]!))!;
    expect(JSON.parse(value)).toEqual({ state: 'done', fingerprint: a!.store.fingerprint(FIELDS), reply: added(1) });
    for (const secret of ['caller-api-key-123', 'order-secret-77', 'tok_visa_SECRET', SECRET]) {
      expect(keys[0]).not.toContain(secret);
      expect(value).not.toContain(secret);
    }
  });

  it('a reply showing v1 refused the API key itself is kept a minute, not 24 hours (made-up keys cannot fill Redis)', async () => {
    const [a] = await replicas(1, { releasesKey: refusedTheApiKey });
    const refused = async () => reply(8, 'payment error: the service could not be reached or refused the request (invalid key); no payment was made', 401);
    await a!.store.run('made-up-key', 'order-1', a!.store.fingerprint(FIELDS), refused);
    const keys = (await a!.port.command(['KEYS', `t${prefixes}:*`])) as string[];
    expect(keys).toHaveLength(1);
    const ttl = (await a!.port.command(['PTTL', keys[0]!])) as number;
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
    // A repeat at once still replays it.
    expect(await a!.store.run('made-up-key', 'order-1', a!.store.fingerprint(FIELDS), refused)).toMatchObject({ kind: 'replayed', reply: { httpStatus: 401 } });
  });

  it('another secret names the same key otherwise: replicas must share GATEWAY_SECRET', async () => {
    const [a] = await replicas(1);
    const other = await replica(`t${prefixes}:`, { secret: 'another-secret' });
    const p = payment();
    await a!.store.run('k', 'order-11', a!.store.fingerprint(FIELDS), p.pay);
    expect(other.store.fingerprint(FIELDS)).not.toBe(a!.store.fingerprint(FIELDS));
    expect((await other.store.run('k', 'order-11', other.store.fingerprint(FIELDS), p.pay)).kind).toBe('fresh');
  });

  it('close waits for the reply of a payment in flight to be stored', async () => {
    const [a, b] = await replicas(2);
    const p = payment(200);
    const first = a!.store.run('k', 'order-12', a!.store.fingerprint(FIELDS), p.pay);
    await sleep(30);
    await a!.store.close();
    expect((await first).kind).toBe('fresh');
    expect((await b!.store.run('k', 'order-12', b!.store.fingerprint(FIELDS), p.pay)).kind).toBe('replayed');
    expect(await a!.store.run('k', 'order-13', a!.store.fingerprint(FIELDS), p.pay)).toEqual({ kind: 'unavailable', reason: 'store-unreachable' });
  });
});
