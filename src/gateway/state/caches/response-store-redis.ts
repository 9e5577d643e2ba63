// The read cache's second tier in Redis: each v1 reply as one JSON string `{status, body, storedAt, ttlMs}`
// (a large reply's body as v1's own text, written in as it is: no second JSON.stringify of the page), or
// for a reply read as bytes `{status, text, storedAt, ttlMs}` with their text as a JSON string (it was never
// parsed: written as it is, a text that is not JSON could make the value read back as another reply),
// under `<prefix>cache:<hash of API key + v1 URL>`, kept (PX) for its TTL plus the stale-if-error window,
// so Redis drops it once no replica may serve it. It talks to Redis only through the SharedRedis port.
// It must never hold a value over its byte bound, never queue writes without bound, and never hand out a
// value it cannot read back as a reply: anything else in the key is a miss.
import { z } from 'zod';
import type { SharedRedis } from '../shared-redis.js';
import type { SharedResponseStore, StoredReply } from './response-store.js';

export interface RedisResponseStoreOptions {
  redis: SharedRedis;
  /** REDIS_KEY_PREFIX, e.g. `lgw:`. */
  prefix: string;
  /** A serialised reply larger than this (UTF-8 bytes) is not stored. */
  maxValueBytes?: number;
  /** Writes sent and not answered yet; past this, a reply is not stored (Redis is slow: no queue builds up). */
  maxPendingWrites?: number;
}

/** A 1000-record v1 page is 1-2 MB: 4 MB shares every page the gateway asks for, and bounds one value. */
export const DEFAULT_MAX_VALUE_BYTES = 4 * 1024 * 1024;
export const DEFAULT_MAX_PENDING_WRITES = 64;

const storedFacts = {
  status: z.number().int().min(200).max(299),
  storedAt: z.number().finite(),
  ttlMs: z.number().finite().positive(),
};

const storedReply = z.union([
  z.object({ ...storedFacts, body: z.custom<unknown>((value) => value !== undefined, 'missing') }),
  z.object({ ...storedFacts, text: z.string() }),
]);

// One instance, so a read while Redis is down costs no stack trace: the cache layer only counts it as a miss.
const DOWN = new Error('the shared response store is down');

function parseStored(text: string): StoredReply | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = storedReply.safeParse(value);
  return parsed.success ? (parsed.data as StoredReply) : undefined;
}

function serialised(reply: StoredReply): string {
  const { status, storedAt, ttlMs } = reply;
  if ('text' in reply) return JSON.stringify({ status, text: reply.text, storedAt, ttlMs } satisfies StoredReply);
  const { body, bodyText } = reply;
  // v1's own text of the body, when given, goes in as it is: the same JSON (it was parsed), with no second
  // JSON.stringify of a page of hundreds of records.
  return bodyText === undefined
    ? JSON.stringify({ status, body, storedAt, ttlMs } satisfies StoredReply)
    : `{"status":${JSON.stringify(status)},"body":${bodyText},"storedAt":${JSON.stringify(storedAt)},"ttlMs":${JSON.stringify(ttlMs)}}`;
}

export function createRedisResponseStore(options: RedisResponseStoreOptions): SharedResponseStore {
  const { redis } = options;
  const maxValueBytes = options.maxValueBytes ?? DEFAULT_MAX_VALUE_BYTES;
  const maxPendingWrites = options.maxPendingWrites ?? DEFAULT_MAX_PENDING_WRITES;
  const redisKey = (key: string) => `${options.prefix}cache:${key}`;
  let pendingWrites = 0;

  return {
    async get(key) {
      if (!redis.isUp()) throw DOWN;
      const text = await redis.get(redisKey(key));
      return text === null ? undefined : parseStored(text);
    },
    async set(key, reply, keepMs) {
      if (!redis.isUp() || pendingWrites >= maxPendingWrites || keepMs <= 0) return;
      const text = serialised(reply);
      // UTF-8 takes 1 to 3 bytes per UTF-16 unit: the exact count is only needed near the bound.
      if (text.length > maxValueBytes || (text.length * 3 > maxValueBytes && Buffer.byteLength(text) > maxValueBytes)) return;
      pendingWrites += 1;
      try {
        await redis.set(redisKey(key), text, { ttlMs: Math.ceil(keepMs) });
      } finally {
        pendingWrites -= 1;
      }
    },
  };
}
