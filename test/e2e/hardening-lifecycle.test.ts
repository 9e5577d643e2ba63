// Shutdown and server limits: the drain finishes requests in flight and turns readiness to 503; a
// payment in flight answers even past SHUTDOWN_TIMEOUT_MS while other requests are cut off; the real
// process exits by itself on SIGTERM after answering the request in flight; a gateway holding
// UPSTREAM_API_KEY refuses a non-loopback address HOST did not ask for. Loopback only.
import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/gateway/config.js';
import { startGateway } from '../../src/gateway/start.js';
import { json, startRecordingUpstream, v1List, type RecordingUpstream } from '../helpers/recording-upstream.js';
import { fetchText, startHardenedGateway } from './hardening-harness.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

let upstream: RecordingUpstream;
let release: () => void;
let waiters: Array<{ n: number; resolve: () => void }>;

/** Resolves once the upstream has received `n` requests. */
const arrivals = (n: number) =>
  new Promise<void>((resolve) => {
    if (upstream.received.length >= n) resolve();
    else waiters.push({ n, resolve });
  });

/** The upstream holds every request until release(). */
function holdUpstream(): void {
  waiters = [];
  const released = new Promise<void>((resolve) => (release = resolve));
  upstream.handle(async (req, res) => {
    for (const w of waiters) if (upstream.received.length >= w.n) w.resolve();
    await released;
    if (req.method === 'POST') return json(res, 201, { object: 'payment', id: 77 });
    if (req.url.startsWith('/api/v1/clients/')) return json(res, 200, { object: 'client', id: 1 });
    return json(res, 200, v1List([{ object: 'staff', id: 1, first_name: 'Ann' }]));
  });
}

beforeEach(async () => {
  upstream = await startRecordingUpstream();
  holdUpstream();
});
afterEach(async () => {
  release();
  await upstream.close();
});

describe('drain', () => {
  it('finishes a request in flight, refuses new connections, and answers /readyz 503', async () => {
    const gateway = await startHardenedGateway({ UPSTREAM_URL: upstream.url, SHUTDOWN_TIMEOUT_MS: '5000' });
    const inFlight = fetchText(`${gateway.url}/api/staffs/0/1`);
    await arrivals(1);
    const closed = gateway.close();
    expect(gateway.draining()).toBe(true);
    await expect(fetch(`${gateway.url}/healthz`)).rejects.toThrow();
    // /readyz as a connection that is still open sees it (the same listener, reached another way).
    const [listener] = gateway.server.listeners('request') as http.RequestListener[];
    const probe = http.createServer(listener);
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const ready = await fetchText(`http://127.0.0.1:${(probe.address() as { port: number }).port}/readyz`);
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    expect([ready.status, JSON.parse(ready.text)]).toEqual([503, { status: 'draining' }]);

    release();
    const reply = await inFlight;
    expect(reply.status).toBe(200);
    expect(reply.headers.get('connection')).toBe('close');
    expect(JSON.parse(reply.text)).toMatchObject({ status: 'success', total: '1' });
    await closed;
    expect(gateway.logs.some((l) => l.includes('"msg":"drained"') && l.includes('"cutOff":0'))).toBe(true);
  });

  it('closes the connection of a passthrough reply relayed while draining', async () => {
    const gateway = await startHardenedGateway({ UPSTREAM_URL: upstream.url, SHUTDOWN_TIMEOUT_MS: '5000' });
    const inFlight = fetchText(`${gateway.url}/api/v1/clients/1`);
    await arrivals(1);
    const closed = gateway.close();
    release();
    const reply = await inFlight;
    expect([reply.status, reply.headers.get('connection'), JSON.parse(reply.text)]).toEqual([200, 'close', { object: 'client', id: 1 }]);
    await closed;
  });

  it('answers other requests a legacy 503 at SHUTDOWN_TIMEOUT_MS, but a payment in flight always finishes and answers', async () => {
    const gateway = await startHardenedGateway({ UPSTREAM_URL: upstream.url, SHUTDOWN_TIMEOUT_MS: '100', UPSTREAM_TIMEOUT_MS: '10000' });
    const read = fetchText(`${gateway.url}/api/staffs/0/1`);
    const payment = fetchText(`${gateway.url}/api/payment`, {
      method: 'POST',
      body: new URLSearchParams({ client_id: '1', revenue_amount: '45.50', send_email: '0' }),
    });
    // The read's v1 call and the payment's first one (its client check) are both held.
    await arrivals(2);
    const closed = gateway.close();
    // The read is answered 503 at the deadline; only then does the upstream answer the payment's calls.
    const shutDown = await read;
    expect(shutDown.status).toBe(503);
    expect(shutDown.headers.get('connection')).toBe('close');
    expect(shutDown.text).toBe('{"status":"failure","response":"the gateway is shutting down: retry the call"}');
    release();
    const paid = await payment;
    expect(paid.status).toBe(200);
    expect(JSON.parse(paid.text)).toMatchObject({ status: 'success', code: 12 });
    await closed;
    const drained = gateway.logs.find((l) => l.includes('"msg":"drained"'));
    expect(JSON.parse(drained!)).toMatchObject({ cutOff: 1 });
    expect(upstream.received.filter((r) => r.method === 'POST')).toHaveLength(1);
  });

  it('closes at once when nothing is in flight', async () => {
    const gateway = await startHardenedGateway({ UPSTREAM_URL: upstream.url, SHUTDOWN_TIMEOUT_MS: '60000' });
    await fetchText(`${gateway.url}/healthz`);
    await gateway.close();
    expect(gateway.lifecycle.inFlight()).toBe(0);
  });
});

describe('the serve process on SIGTERM', () => {
  it('answers the request in flight, then exits 0 by itself', async () => {
    const child = spawn(process.execPath, [path.join(root, 'dist', 'cli.js'), 'serve'], {
      env: { PATH: process.env.PATH, UPSTREAM_URL: upstream.url, PORT: '0', HOST: '127.0.0.1', SHUTDOWN_TIMEOUT_MS: '5000', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const lines = createInterface({ input: child.stdout });
    const waitFor = (msg: string) =>
      new Promise<Record<string, unknown>>((resolve) => {
        const onLine = (line: string) => {
          const entry = JSON.parse(line) as Record<string, unknown>;
          if (entry.msg !== msg) return;
          lines.off('line', onLine);
          resolve(entry);
        };
        lines.on('line', onLine);
      });
    try {
      const { port } = (await waitFor('legacy-gateway listening')) as { port: number };
      const inFlight = fetchText(`http://127.0.0.1:${port}/api/staffs/0/1`);
      await arrivals(1);
      const shuttingDown = waitFor('shutting down: draining requests in flight');
      child.kill('SIGTERM');
      await shuttingDown;
      release();
      const reply = await inFlight;
      expect(reply.status).toBe(200);
      expect(JSON.parse(reply.text)).toMatchObject({ status: 'success' });
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});

describe('listening address and server limits', () => {
  it('refuses a non-loopback address with UPSTREAM_API_KEY unless HOST was set explicitly', async () => {
    const config = { ...loadConfig({ UPSTREAM_URL: upstream.url, UPSTREAM_API_KEY: 'k', PORT: '0' }), host: '0.0.0.0', hostExplicit: false };
    await expect(startGateway({ config })).rejects.toBeInstanceOf(ConfigError);
  });

  it('sets the timeouts of a server facing the internet', async () => {
    const gateway = await startHardenedGateway({ UPSTREAM_URL: upstream.url });
    try {
      expect(gateway.server.headersTimeout).toBeLessThanOrEqual(20_000);
      expect(gateway.server.requestTimeout).toBeGreaterThan(10_000);
      expect(gateway.server.keepAliveTimeout).toBe(5_000);
      expect(gateway.server.maxHeadersCount).toBe(100);
    } finally {
      await gateway.close();
    }
  });
});
