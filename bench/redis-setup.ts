// The Redis rows' server (bench/redis-server.ts runs it): started once, and kept for the rows only once a
// gateway started with REDIS_URL has been seen to use it; else the Redis rows are skipped, with one line
// saying why.
import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { launchGateway, type GatewayLauncher } from './gateway-launch.js';
import type { BenchProcess } from './processes.js';
import { redisServerBinary, startBenchRedis, type BenchRedis } from './redis-server.js';
import { HANDFUL_OF_KEYS, checkPayment } from './requests.js';

/** A secret for the gateways that share state through Redis (GATEWAY_SECRET: 32 characters or more). */
const GATEWAY_SECRET = randomBytes(24).toString('hex');

/** The bench's Redis keeps nothing on disk (the disk stays out of the figures): a gateway refuses to trust
 * such a Redis with payment claims unless the risk is accepted, which a measurement may do. */
export const redisEnv = (redis: BenchRedis): Record<string, string> => ({ REDIS_URL: redis.url, GATEWAY_SECRET, IDEMPOTENCY_ACCEPT_RISK: 'no-aof' });

/** Whether this build of the gateway reads REDIS_URL at all (else it would run the Redis rows without it). */
function buildReadsRedisUrl(root: string): boolean {
  const dirs = [path.join(root, 'dist', 'gateway'), path.join(root, 'dist', 'commands')];
  return dirs.some((dir) =>
    readdirSync(dir, { recursive: true, encoding: 'utf8' }).some((f) => f.endsWith('.js') && readFileSync(path.join(dir, f), 'utf8').includes('REDIS_URL')),
  );
}

function commandsSent(before: Map<string, number>, after: Map<string, number>): Set<string> {
  return new Set([...after].filter(([name, count]) => count > (before.get(name) ?? 0)).map(([name]) => name));
}

/**
 * The bench's redis-server, once a gateway started with REDIS_URL has been seen to use it (a read and a
 * payment sent it commands); else undefined, with one line saying why the Redis rows are skipped.
 */
export async function startRedis(root: string, fake: BenchProcess, launcher: GatewayLauncher, lifetimeS: number): Promise<BenchRedis | undefined> {
  const skip = (why: string) => {
    console.log(`Redis rows skipped: ${why}`);
    return undefined;
  };
  const binary = redisServerBinary();
  if (!binary) return skip('redis-server is not installed (Debian: apt-get install redis-server)');
  if (!buildReadsRedisUrl(root)) return skip('this build of the gateway does not read REDIS_URL (dist/gateway/, dist/commands/)');
  const redis = await startBenchRedis(binary, lifetimeS);
  try {
    const before = await redis.commandCalls();
    const gw = await launchGateway(launcher, 'gateway, Redis (check)', fake.url, { env: redisEnv(redis) });
    try {
      const read = await fetch(`${gw.url}/api/clients/0/100`, { headers: { 'x-api-key': HANDFUL_OF_KEYS[0]! } });
      if (!read.ok) throw new Error(`${gw.name}: /api/clients/0/100 answered ${read.status} ${await read.text()}`);
      await checkPayment(gw);
    } finally {
      await gw.stop();
    }
    const sent = [...commandsSent(before, await redis.commandCalls())];
    if (sent.length === 0) {
      await redis.stop();
      return skip('a gateway started with REDIS_URL sent redis-server no command');
    }
    console.log(`Redis: redis-server ${redis.version} at ${redis.url}, persistence off, emptied before each run`);
    return redis;
  } catch (err) {
    await redis.stop();
    return skip(`a gateway with REDIS_URL could not serve a read and a payment (${err instanceof Error ? err.message : String(err)})`);
  }
}
