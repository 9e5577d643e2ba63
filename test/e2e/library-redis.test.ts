// The library with Redis: `legacyGateway({ redisUrl, gatewaySecret, redisKeyPrefix })` shares its
// Idempotency-Keys through Redis under the prefix, like a served replica; without gatewaySecret it throws at
// once; a host's GatewayMetrics written before redisState/idempotencyEvent existed still works; close()
// disconnects from Redis.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from '@redis/client';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ConfigError } from '../../src/gateway/config.js';
import { legacyGateway } from '../../src/gateway/library.js';
import type { GatewayMetrics } from '../../src/gateway/metrics/gateway-metrics.js';
import { fetchReply } from '../helpers/fetch-reply.js';
import { json, startRecordingUpstream, type RecordingUpstream } from '../helpers/recording-upstream.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';

const GATEWAY_SECRET = 'e2e-library-redis-gateway-secret-0123456789';

let upstream: RecordingUpstream;
let redis: TestRedis;
let raw: ReturnType<typeof createClient>;

beforeAll(async () => {
  upstream = await startRecordingUpstream((req, res) => {
    if (req.method === 'POST' && req.url === '/api/v1/payments') return json(res, 201, { object: 'payment', id: 7, client_id: 1 });
    if (/^\/api\/v1\/clients\/\d+$/.test(req.url)) return json(res, 200, { object: 'client', id: 1, first_name: 'Ada' });
    return json(res, 200, { object: 'api' });
  });
  redis = await startTestRedis();
  raw = createClient({ url: redis.url });
  raw.on('error', () => undefined);
  await raw.connect();
});
afterAll(async () => {
  raw.destroy();
  await redis.close();
  await upstream.close();
});

describe('legacyGateway with redisUrl', () => {
  it('throws at once without gatewaySecret, naming it and never the URL', () => {
    expect(() => legacyGateway({ upstreamUrl: upstream.url, redisUrl: 'redis://:pw-LIBRARY@127.0.0.1:1/0' })).toThrow(ConfigError);
    expect(() => legacyGateway({ upstreamUrl: upstream.url, redisUrl: 'redis://:pw-LIBRARY@127.0.0.1:1/0' })).toThrow(
      /^legacyGateway: gatewaySecret is required when redisUrl is set/,
    );
    expect(() => legacyGateway({ upstreamUrl: upstream.url, redisUrl: 'http://:pw-LIBRARY@h', gatewaySecret: GATEWAY_SECRET })).toThrow(/^legacyGateway: redisUrl must be a redis:\/\/ or rediss:\/\/ URL$/);
  });

  it('shares Idempotency-Keys under the prefix, with a host\'s older GatewayMetrics, and disconnects on close()', async () => {
    let onUp: () => void = () => undefined;
    const connected = new Promise<void>((resolve) => {
      onUp = resolve;
    });
    // Written before idempotencyEvent existed: the gateway must not throw when it counts one.
    const hostMetrics: Partial<GatewayMetrics> = {
      requestStarted: () => undefined,
      requestFinished: () => undefined,
      upstreamCall: () => undefined,
      cacheEvent: () => undefined,
      retried: () => undefined,
      paymentCompleted: () => undefined,
      redisState: (up) => up && onUp(),
    };
    const legacy = legacyGateway({
      upstreamUrl: upstream.url,
      redisUrl: redis.url,
      gatewaySecret: GATEWAY_SECRET,
      redisKeyPrefix: 'lib-test:',
      logLevel: 'silent',
      metrics: hostMetrics as GatewayMetrics,
    });
    const app = express();
    app.use('/legacy', legacy);
    const server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/legacy`;
    try {
      await connected;
      expect((await fetchReply(`${base}/readyz`)).body).toMatchObject({ status: 'ready', redis: 'up' });
      const pay = () =>
        fetchReply(`${base}/api/payment`, {
          method: 'POST',
          body: new URLSearchParams({ client_id: '1', revenue_amount: '3.00', send_email: '0' }),
          headers: { 'x-api-key': 'library-caller-key', 'idempotency-key': 'library-key-000001' },
        });
      const first = await pay();
      const repeat = await pay();
      expect(first.status).toBe(200);
      expect(repeat.text).toBe(first.text);
      expect(upstream.received.filter((r) => r.method === 'POST')).toHaveLength(1);
      const keys = await raw.keys('*');
      expect(keys.length).toBeGreaterThan(0);
      expect(keys.every((k) => k.startsWith('lib-test:'))).toBe(true);
      expect(keys.join(' ')).not.toContain('library-key-000001');
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await legacy.close();
    }
    // Only the test's own client is left on the server once Redis has seen the two go.
    await vi.waitFor(async () => expect((await raw.clientList()).length).toBe(1), { timeout: 5000, interval: 20 });
  });
});
