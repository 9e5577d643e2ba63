// SharedRedis over node-redis for the Idempotency-Key store's tests against a real redis-server, as the
// port asks: a command while Redis is down rejects at once (no offline queue), it reconnects by itself
// (quickly, so a test can stop and start Redis), and a subscription is renewed after a reconnect. Hooks
// let a test make a command fail or drop an announcement, as a failing network would.
import { createClient } from '@redis/client';
import type { SetOptions, SharedRedis } from '../../../../src/gateway/state/shared-redis.js';

export interface PortHooks {
  /** Called before each SET; throwing makes the SET reject. */
  beforeSet?: (key: string, value: string, options: SetOptions) => void;
  /** Called before each GET. */
  beforeGet?: (key: string) => void;
  /** When it returns false, the PUBLISH is silently dropped. */
  publishes?: (channel: string, message: string) => boolean;
}

export interface IdempotencyTestPort extends SharedRedis {
  hooks: PortHooks;
  /** A command sent to Redis as is (inspection, CONFIG SET). */
  command(args: string[]): Promise<unknown>;
}

export async function connectIdempotencyPort(url: string): Promise<IdempotencyTestPort> {
  const options = { url, disableOfflineQueue: true, socket: { reconnectStrategy: () => 50, connectTimeout: 1000 } };
  const client = createClient(options);
  const subscriber = createClient(options);
  const listeners: Array<(up: boolean) => void> = [];
  // node-redis reports every failed reconnect as an error: without a listener it would be uncaught.
  client.on('error', () => undefined);
  subscriber.on('error', () => undefined);
  client.on('ready', () => listeners.forEach((listener) => listener(true)));
  client.on('reconnecting', () => listeners.forEach((listener) => listener(false)));
  await Promise.all([client.connect(), subscriber.connect()]);
  const hooks: PortHooks = {};
  const up = (): void => {
    if (!client.isReady) throw new Error('redis is down');
  };
  return {
    hooks,
    isUp: () => client.isReady,
    async get(key) {
      up();
      hooks.beforeGet?.(key);
      return client.get(key);
    },
    async set(key, value, setOptions = {}) {
      up();
      hooks.beforeSet?.(key, value, setOptions);
      const reply = await client.set(key, value, {
        ...(setOptions.ttlMs !== undefined ? { expiration: { type: 'PX' as const, value: setOptions.ttlMs } } : {}),
        ...(setOptions.keepTtl ? { expiration: 'KEEPTTL' as const } : {}),
        ...(setOptions.ifAbsent ? { condition: 'NX' as const } : setOptions.ifPresent ? { condition: 'XX' as const } : {}),
      });
      return reply !== null;
    },
    async publish(channel, message) {
      up();
      if (hooks.publishes?.(channel, message) === false) return;
      await client.publish(channel, message);
    },
    async subscribe(channel, onMessage) {
      if (!subscriber.isReady) throw new Error('redis is down');
      await subscriber.subscribe(channel, (message) => onMessage(message));
    },
    onStateChange: (listener) => void listeners.push(listener),
    command: (args) => client.sendCommand(args),
    async close() {
      if (subscriber.isOpen) subscriber.destroy();
      if (client.isOpen) client.destroy();
    },
  };
}
