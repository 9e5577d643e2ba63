// The write generations every replica sees, in Redis: one token per hash of API key + resource under
// `<prefix>gen:<hash>`, kept (PX) the longest cache TTL plus the stale-if-error window after the write
// that stored it. It talks to Redis only through the SharedRedis port; while Redis is down every call
// rejects at once, and the caller (write-generations.ts) decides what that means.
import type { SharedRedis } from '../shared-redis.js';
import type { SharedGenerationStore } from './write-generations.js';

// One instance, so a call while Redis is down costs no stack trace.
const DOWN = new Error('the shared generation store is down');

export function createRedisGenerationStore(options: { redis: SharedRedis; prefix: string }): SharedGenerationStore {
  const { redis } = options;
  const redisKey = (id: string) => `${options.prefix}gen:${id}`;
  return {
    async read(id) {
      if (!redis.isUp()) throw DOWN;
      return redis.get(redisKey(id));
    },
    async write(id, token, keepMs) {
      if (!redis.isUp()) throw DOWN;
      await redis.set(redisKey(id), token, { ttlMs: Math.ceil(keepMs) });
    },
  };
}
