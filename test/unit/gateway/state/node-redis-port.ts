// A small SharedRedis over node-redis for the stores' tests against a real redis-server: no offline
// queue (a command while Redis is down rejects at once, as the port requires) and a quick reconnect, so a
// test can stop Redis and see the store come back once it is started again.
import { createClient } from '@redis/client';
import type { SetOptions, SharedRedis } from '../../../../src/gateway/state/shared-redis.js';

const openClient = (url: string) => createClient({ url, disableOfflineQueue: true, socket: { reconnectStrategy: () => 50, connectTimeout: 1000 } });
type Client = ReturnType<typeof openClient>;

export interface TestRedisPort extends SharedRedis {
  /** The client itself, to inspect what the store wrote (TTLs, raw values). */
  raw: Client;
}

export async function connectTestRedis(url: string): Promise<TestRedisPort> {
  const client = openClient(url);
  const listeners: Array<(up: boolean) => void> = [];
  const subscribers: Client[] = [];
  // node-redis emits every failed reconnect as an error: without a listener that would be an uncaught error.
  client.on('error', () => undefined);
  client.on('ready', () => listeners.forEach((listener) => listener(true)));
  client.on('reconnecting', () => listeners.forEach((listener) => listener(false)));
  await client.connect();
  return {
    raw: client,
    isUp: () => client.isReady,
    get: (key) => client.get(key),
    async set(key: string, value: string, options: SetOptions = {}) {
      const reply = await client.set(key, value, {
        ...(options.ttlMs !== undefined ? { expiration: { type: 'PX' as const, value: options.ttlMs } } : {}),
        ...(options.keepTtl ? { expiration: 'KEEPTTL' as const } : {}),
        ...(options.ifAbsent ? { condition: 'NX' as const } : options.ifPresent ? { condition: 'XX' as const } : {}),
      });
      return reply !== null;
    },
    async publish(channel, message) {
      await client.publish(channel, message);
    },
    async subscribe(channel, onMessage) {
      const subscriber = client.duplicate();
      subscriber.on('error', () => undefined);
      subscribers.push(subscriber);
      await subscriber.connect();
      await subscriber.subscribe(channel, (message) => onMessage(message));
    },
    onStateChange: (listener) => void listeners.push(listener),
    async close() {
      for (const subscriber of subscribers) subscriber.destroy();
      client.destroy();
    },
  };
}
