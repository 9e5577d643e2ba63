// The Redis connection behind the SharedRedis port, against a real redis-server: the commands the stores
// use (SET NX/XX/PX/KEEPTTL, GET, PUBLISH/SUBSCRIBE), a command while Redis is stopped or stalled rejects
// at once or at its deadline (never hangs), the state goes down and comes back with one log line per
// change, subscriptions survive a restart, the eviction policy is read once, and the password never
// appears in a log line.
import { createClient, SocketClosedUnexpectedlyError } from '@redis/client';
import type { Logger } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRedisConnection, reasonOf, reconnectDelay, RedisUnavailableError, type RedisConnection, type RedisConnectionOptions } from '../../../../src/gateway/state/redis-connection.js';
import { capturedLogger, type LogLine } from '../../../helpers/captured-logger.js';
import { startTestRedis, type TestRedis } from '../../../helpers/redis-server.js';
import { settlesAtOnce } from '../../../helpers/settles-at-once.js';


/** The state changes a connection reports (the first "up" included), and a way to await the next one of a kind. */
function stateChanges(connection: RedisConnection) {
  const seen: boolean[] = [];
  let waiters: Array<{ up: boolean; resolve: () => void; from: number }> = [];
  connection.onStateChange((up) => {
    seen.push(up);
    const ready = waiters.filter((w) => w.up === up);
    waiters = waiters.filter((w) => w.up !== up);
    for (const w of ready) w.resolve();
  });
  return {
    seen,
    /** Resolves at the next change to `up` (or at once when that is the state now). */
    until: (up: boolean) => (connection.isUp() === up ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ up, resolve, from: seen.length }))),
  };
}

/** The lines about Redis's state: one per change. */
const stateLines = (lines: LogLine[]) => lines.filter((l) => /^Redis (connected|reachable again|unreachable)/.test(l.msg)).map((l) => l.msg);

const FAST: Partial<RedisConnectionOptions> = { backoff: { firstMs: 20, maxMs: 200 }, commandTimeoutMs: 500, heartbeatMs: 200 };

const opened: RedisConnection[] = [];
function connect(url: string, logger: Logger, extra: Partial<RedisConnectionOptions> = {}): RedisConnection {
  const connection = createRedisConnection({ url, logger, ...FAST, ...extra });
  opened.push(connection);
  return connection;
}
afterEach(async () => {
  await Promise.all(opened.splice(0).map((c) => c.close()));
});

describe('the commands the stores use', () => {
  let redis: TestRedis;
  let raw: ReturnType<typeof createClient>;
  let connection: RedisConnection;
  beforeAll(async () => {
    redis = await startTestRedis();
    raw = createClient({ url: redis.url });
    raw.on('error', () => undefined);
    await raw.connect();
  });
  afterAll(async () => {
    raw.destroy();
    await redis.close();
  });

  it('GET and SET, with NX, XX, PX and KEEPTTL', async () => {
    const { logger } = capturedLogger();
    connection = connect(redis.url, logger);
    await connection.started;
    expect(connection.isUp()).toBe(true);

    expect(await connection.get('k:absent')).toBeNull();
    expect(await connection.set('k:plain', 'v1')).toBe(true);
    expect(await connection.get('k:plain')).toBe('v1');
    expect(await raw.pTTL('k:plain')).toBe(-1);

    // NX: an atomic claim, taken once.
    expect(await connection.set('k:claim', 'first', { ifAbsent: true, ttlMs: 60_000 })).toBe(true);
    expect(await connection.set('k:claim', 'second', { ifAbsent: true, ttlMs: 60_000 })).toBe(false);
    expect(await connection.get('k:claim')).toBe('first');
    const ttl = await raw.pTTL('k:claim');
    expect(ttl).toBeGreaterThan(59_000);
    expect(ttl).toBeLessThanOrEqual(60_000);

    // XX with KEEPTTL: replaced, its time to live kept.
    expect(await connection.set('k:claim', 'done', { ifPresent: true, keepTtl: true })).toBe(true);
    expect(await connection.get('k:claim')).toBe('done');
    expect(await raw.pTTL('k:claim')).toBeGreaterThan(59_000);
    // XX on a key that does not exist: nothing set.
    expect(await connection.set('k:never', 'x', { ifPresent: true })).toBe(false);
    expect(await connection.get('k:never')).toBeNull();
    // A plain SET drops the TTL; PX sets one.
    expect(await connection.set('k:claim', 'plain')).toBe(true);
    expect(await raw.pTTL('k:claim')).toBe(-1);
    expect(await connection.set('k:short', 'x', { ttlMs: 1234 })).toBe(true);
    expect(await raw.pTTL('k:short')).toBeGreaterThan(1000);

    await expect(connection.set('k', 'v', { ifAbsent: true, ifPresent: true })).rejects.toThrow(TypeError);
    await expect(connection.set('k', 'v', { ttlMs: 10, keepTtl: true })).rejects.toThrow(TypeError);
    await expect(connection.set('k', 'v', { ttlMs: 0 })).rejects.toThrow(TypeError);
  });

  it('PUBLISH reaches a SUBSCRIBE on its own connection; every listener of the channel is called', async () => {
    const { logger } = capturedLogger();
    connection = connect(redis.url, logger);
    await connection.started;
    const first: string[] = [];
    const second: string[] = [];
    const got = new Promise<void>((resolve) => {
      void connection.subscribe('lgw:test:ch', (m) => first.push(m));
      void connection.subscribe('lgw:test:ch', (m) => {
        second.push(m);
        if (second.length === 2) resolve();
      });
    });
    // Subscribed before publishing: subscribe() resolves once Redis confirmed it.
    await connection.subscribe('lgw:test:other', () => undefined);
    await connection.subscribe('lgw:test:ch', () => undefined);
    await connection.publish('lgw:test:ch', 'one');
    await connection.publish('lgw:test:ch', 'two');
    await got;
    expect(first).toEqual(['one', 'two']);
    expect(second).toEqual(['one', 'two']);
  });

  it('passes Redis\'s own error replies on as they are (a store tells OOM from an outage)', async () => {
    const { logger } = capturedLogger();
    connection = connect(redis.url, logger);
    await connection.started;
    await raw.hSet('k:hash', 'f', 'v');
    const err = await connection.get('k:hash').then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(RedisUnavailableError);
    expect((err as Error).message).toMatch(/^WRONGTYPE/);
    expect(connection.isUp()).toBe(true);
  });
});

describe('outages', () => {
  // Two redis-server starts and a stop, each awaited on its event: slow only when the machine is loaded.
  it('a stopped Redis: down at once, commands rejected at once, back up after a restart, subscriptions kept; one log line per change', async () => {
    const redis = await startTestRedis();
    try {
      const { logger, lines } = capturedLogger();
      const connection = connect(redis.url, logger);
      const changes = stateChanges(connection);
      await connection.started;
      expect(connection.isUp()).toBe(true);
      const messages: string[] = [];
      let onMessage: () => void = () => undefined;
      await connection.subscribe('lgw:test:restart', (m) => {
        messages.push(m);
        onMessage();
      });

      await redis.stop();
      await changes.until(false);
      expect(connection.isUp()).toBe(false);
      // Refused at once: each has settled by the event loop's next turn, having waited on no socket or timer.
      const refused: Array<() => Promise<unknown>> = [() => connection.get('k'), () => connection.set('k', 'v', { ifAbsent: true }), () => connection.publish('lgw:test:restart', 'lost')];
      for (const work of refused) {
        const settled = await settlesAtOnce(work());
        expect(settled.state).toBe('rejected');
        expect((settled as { reason: unknown }).reason).toBeInstanceOf(RedisUnavailableError);
      }
      // A subscription asked for while down is made once Redis is back.
      await connection.subscribe('lgw:test:later', (m) => {
        messages.push(`later:${m}`);
        onMessage();
      });

      await redis.start();
      await changes.until(true);
      expect(changes.seen).toEqual([true, false, true]);
      const delivered = new Promise<void>((resolve) => {
        onMessage = () => messages.length === 2 && resolve();
      });
      await connection.publish('lgw:test:restart', 'after');
      await connection.publish('lgw:test:later', 'after');
      await delivered;
      expect(messages).toEqual(['after', 'later:after']);
      expect(await connection.set('k', 'v')).toBe(true);

      expect(stateLines(lines)).toEqual([
        'Redis connected: Idempotency-Keys and the read cache are shared',
        'Redis unreachable: shared state unavailable, reconnecting in the background',
        'Redis reachable again: Idempotency-Keys and the read cache are shared again',
      ]);
      // Nothing else was logged while reconnecting: no line per attempt, none per command.
      expect(lines.filter((l) => l.level >= 40).length).toBe(1);
    } finally {
      await redis.close();
    }
  }, 60_000);

  it('a stalled Redis (it accepts commands and never answers): a command rejects at its deadline, then at once; back when it answers again', async () => {
    const redis = await startTestRedis();
    const raw = createClient({ url: redis.url });
    raw.on('error', () => undefined);
    await raw.connect();
    const pid = Number(/process_id:(\d+)/.exec(await raw.info('server'))![1]);
    raw.destroy();
    try {
      const { logger, lines } = capturedLogger();
      const connection = connect(redis.url, logger, { commandTimeoutMs: 300, heartbeatMs: 60_000 });
      const changes = stateChanges(connection);
      await connection.started;
      expect(connection.isUp()).toBe(true);

      process.kill(pid, 'SIGSTOP');
      try {
        // The command waits for its deadline (it is still waiting on the next turn), then is refused.
        const command = connection.get('k');
        expect(await settlesAtOnce(command)).toEqual({ state: 'pending' });
        await expect(command).rejects.toBeInstanceOf(RedisUnavailableError);
        await changes.until(false);
        // While it stays stalled, nothing waits: the connection is down.
        const settled = await settlesAtOnce(connection.set('k', 'v'));
        expect(settled.state).toBe('rejected');
        expect((settled as { reason: unknown }).reason).toBeInstanceOf(RedisUnavailableError);
      } finally {
        process.kill(pid, 'SIGCONT');
      }
      await changes.until(true);
      expect(await connection.set('k', 'v')).toBe(true);
      expect(changes.seen, JSON.stringify(lines)).toEqual([true, false, true]);
      expect(stateLines(lines)).toHaveLength(3);
    } finally {
      await redis.close();
    }
  });

  it('a heartbeat notices a stalled Redis while nothing is asked of it', async () => {
    const redis = await startTestRedis();
    const raw = createClient({ url: redis.url });
    raw.on('error', () => undefined);
    await raw.connect();
    const pid = Number(/process_id:(\d+)/.exec(await raw.info('server'))![1]);
    raw.destroy();
    try {
      const { logger } = capturedLogger();
      const connection = connect(redis.url, logger, { commandTimeoutMs: 200, heartbeatMs: 100 });
      const changes = stateChanges(connection);
      await connection.started;
      process.kill(pid, 'SIGSTOP');
      try {
        await changes.until(false);
      } finally {
        process.kill(pid, 'SIGCONT');
      }
      await changes.until(true);
      expect(changes.seen).toEqual([true, false, true]);
    } finally {
      await redis.close();
    }
  });

  it('Redis down at start: the start settles (never fails), says so once, and it connects when Redis comes', async () => {
    const redis = await startTestRedis();
    await redis.stop();
    try {
      const { logger, lines } = capturedLogger();
      const connection = connect(redis.url, logger);
      const changes = stateChanges(connection);
      await connection.started;
      expect(connection.isUp()).toBe(false);
      await expect(connection.get('k')).rejects.toBeInstanceOf(RedisUnavailableError);
      // Never rejects: the subscription is made once Redis is up.
      await connection.subscribe('lgw:test:early', () => undefined);
      await redis.start();
      await changes.until(true);
      expect(changes.seen).toEqual([true]);
      expect(stateLines(lines)).toEqual([
        'Redis unreachable at start: serving anyway, reconnecting in the background',
        'Redis reachable again: Idempotency-Keys and the read cache are shared again',
      ]);
      const line = lines.find((l) => l.msg.startsWith('Redis unreachable at start'))!;
      expect(line.reason).toBe('ECONNREFUSED');
    } finally {
      await redis.close();
    }
  });

  it('close() ends both connections and every timer: no command is accepted afterwards', async () => {
    const redis = await startTestRedis();
    try {
      const { logger, lines } = capturedLogger();
      const connection = connect(redis.url, logger);
      await connection.started;
      await connection.close();
      expect(connection.isUp()).toBe(false);
      await expect(connection.get('k')).rejects.toBeInstanceOf(RedisUnavailableError);
      // Closing is not an outage: no "unreachable" line.
      expect(stateLines(lines)).toEqual(['Redis connected: Idempotency-Keys and the read cache are shared']);
    } finally {
      await redis.close();
    }
  });
});

describe('the eviction policy and the password', () => {
  it('warns once when Redis may evict keys (allkeys-lru), naming noeviction', async () => {
    const redis = await startTestRedis(['--maxmemory-policy', 'allkeys-lru']);
    try {
      const { logger, lines } = capturedLogger();
      const connection = connect(redis.url, logger);
      await connection.started;
      const warnings = lines.filter((l) => l.level === 40);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]!.msg).toMatch(/maxmemory-policy is allkeys-lru.*Idempotency-Keys could be forgotten.*set maxmemory-policy noeviction/);
      expect(warnings[0]!.maxmemoryPolicy).toBe('allkeys-lru');
      // Read once per process, not at every reconnect.
      const changes = stateChanges(connection);
      await redis.stop();
      await changes.until(false);
      await redis.start();
      await changes.until(true);
      expect(lines.filter((l) => /maxmemory-policy/.test(l.msg))).toHaveLength(1);
    } finally {
      await redis.close();
    }
  });

  it('says nothing under noeviction, and notes once at debug level a Redis that refuses CONFIG', async () => {
    const quiet = await startTestRedis(['--maxmemory-policy', 'noeviction']);
    const managed = await startTestRedis(['--rename-command', 'CONFIG', '']);
    try {
      const a = capturedLogger();
      await connect(quiet.url, a.logger).started;
      expect(a.lines.filter((l) => /maxmemory-policy/.test(l.msg))).toEqual([]);

      const b = capturedLogger();
      const connection = connect(managed.url, b.logger);
      await connection.started;
      expect(connection.isUp()).toBe(true);
      const notes = b.lines.filter((l) => /maxmemory-policy/.test(l.msg));
      expect(notes).toHaveLength(1);
      expect(notes[0]!.level).toBe(20);
    } finally {
      await quiet.close();
      await managed.close();
    }
  });

  it('never logs the password in REDIS_URL, whether it is right or wrong', async () => {
    const redis = await startTestRedis(['--requirepass', 'S3CRET-redis-pass']);
    try {
      const right = capturedLogger();
      const good = connect(redis.url.replace('redis://', 'redis://:S3CRET-redis-pass@'), right.logger);
      await good.started;
      expect(good.isUp()).toBe(true);
      const wrong = capturedLogger();
      const bad = connect(redis.url.replace('redis://', 'redis://:WRONG-redis-pass@'), wrong.logger);
      await bad.started;
      expect(bad.isUp()).toBe(false);
      expect(stateLines(wrong.lines)).toEqual(['Redis unreachable at start: serving anyway, reconnecting in the background']);
      expect(wrong.lines.find((l) => l.msg.startsWith('Redis unreachable'))!.reason).toBe('WRONGPASS');
      for (const line of [...right.raw, ...wrong.raw]) {
        expect(line).not.toContain('S3CRET');
        expect(line).not.toContain('WRONG-redis-pass');
      }
      expect(right.lines[0]!.redis).toBe(`redis://:***@127.0.0.1:${redis.port}`);
    } finally {
      await redis.close();
    }
  });
});

describe('reconnectDelay', () => {
  it('doubles from the first ceiling up to the cap, with at least half of each ceiling', () => {
    const backoff = { firstMs: 100, maxMs: 3000 };
    expect(reconnectDelay(0, backoff, () => 0)).toBe(50);
    expect(reconnectDelay(0, backoff, () => 1)).toBe(100);
    expect(reconnectDelay(3, backoff, () => 0)).toBe(400);
    expect(reconnectDelay(3, backoff, () => 1)).toBe(800);
    expect(reconnectDelay(10, backoff, () => 1)).toBe(3000);
    expect(reconnectDelay(1000, backoff, () => 0)).toBe(1500);
    for (let attempt = 0; attempt < 40; attempt += 1) {
      const delay = reconnectDelay(attempt, backoff);
      expect(delay).toBeGreaterThanOrEqual(50);
      expect(delay).toBeLessThanOrEqual(3000);
    }
  });
});

describe("the reason in the state's log line", () => {
  it("the error's code first, else its first line with a URL's credentials and the password masked", () => {
    expect(reasonOf(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' }))).toBe('ECONNREFUSED');
    // @redis/client's own errors carry no code, and their class name is "Error": their message is the reason.
    expect(reasonOf(new SocketClosedUnexpectedlyError())).toBe('Socket closed unexpectedly');
    expect(reasonOf(new Error('Connection timeout'))).toBe('Connection timeout');
    expect(reasonOf(new Error('cannot reach redis://app:p%40ss@h:6379/2\nat ...'))).toBe('cannot reach redis://***@h:6379/2');
    expect(reasonOf(new Error('bad password hunter2 given'), 'hunter2')).toBe('bad password *** given');
    expect(reasonOf(new Error(''))).toBe('unknown');
    expect(reasonOf('a string')).toBe('unknown');
  });
});
