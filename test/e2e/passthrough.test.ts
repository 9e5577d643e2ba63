// Passthrough: unmapped paths reach the upstream unchanged and streamed, with the key rule applied and
// hop-by-hop headers dropped both ways. Gateway + recording fake upstream on loopback.
import { createHash } from 'node:crypto';
import http from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { json, startRecordingUpstream, v1List, type RecordingUpstream } from '../helpers/recording-upstream.js';

let upstream: RecordingUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startRecordingUpstream();
  gateway = await startTestGateway({ UPSTREAM_URL: upstream.url, UPSTREAM_API_KEY: 'operator-key' });
});
afterAll(async () => {
  await gateway.close();
  await upstream.close();
});
beforeEach(() => {
  upstream.received.length = 0;
});

/** A raw HTTP request through the gateway (fetch would normalise paths and refuse some headers). */
function request(options: http.RequestOptions, body?: Buffer | string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.request(new URL(gateway.url), { ...options, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('passthrough', () => {
  it.each(['/api/v1/clients?limit=2&status=active', '/ondemand/stu-1/4/5', '/assets/backend/images/headshots/blank.png', '/api/unmapped/1', '/metrics', '/api/clients%2F0'])(
    'passes %s through unchanged',
    async (path) => {
      upstream.handle((_req, res) => json(res, 200, { ok: true }, { 'x-upstream': 'yes' }));
      const reply = await request({ path, headers: { 'x-custom': 'kept' } });
      expect(reply.status).toBe(200);
      expect(reply.headers['x-upstream']).toBe('yes');
      expect(upstream.received).toHaveLength(1);
      expect(upstream.received[0]).toMatchObject({ method: 'GET', url: path });
      expect(upstream.received[0]!.headers).toMatchObject({ 'x-custom': 'kept', 'x-api-key': 'operator-key' });
    },
  );

  it('answers /healthz and /readyz itself, with or without a query string', async () => {
    upstream.handle((_req, res) => json(res, 200, v1List([])));
    for (const path of ['/healthz', '/healthz?probe=lb', '/readyz?x=1']) {
      const reply = await request({ path });
      expect(reply.status).toBe(200);
    }
    // /readyz probes the upstream's /api/v1 (any answer means reachable); /healthz reaches nothing.
    expect(upstream.received.every((r) => r.url === '/api/v1')).toBe(true);
  });

  it('passes an upstream error reply through as it is (a 410 for an unmapped legacy URL)', async () => {
    upstream.handle((_req, res) => json(res, 410, { error: { code: 'gone', message: 'use /api/v1/' } }));
    const reply = await request({ path: '/api/ondemandlinks' });
    expect(reply.status).toBe(410);
    expect(JSON.parse(reply.body.toString())).toEqual({ error: { code: 'gone', message: 'use /api/v1/' } });
  });

  it('moves api_key from the URL into X-API-KEY, leaving the rest of the query alone', async () => {
    upstream.handle((_req, res) => json(res, 200, {}));
    await request({ path: '/api/v1/clients?limit=2&api_key=query-key&status=active' });
    expect(upstream.received[0]!.url).toBe('/api/v1/clients?limit=2&status=active');
    expect(upstream.received[0]!.headers['x-api-key']).toBe('query-key');
  });

  it('passes a POST body through byte for byte, with its content type', async () => {
    upstream.handle((req, res) => json(res, 201, { received: req.body.length }));
    const body = JSON.stringify({ first_name: 'Ann', notes: 'ü & <b>' });
    const reply = await request({ path: '/api/v1/clients', method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'caller' } }, body);
    expect(reply.status).toBe(201);
    expect(upstream.received[0]).toMatchObject({ method: 'POST', url: '/api/v1/clients' });
    expect(upstream.received[0]!.body.toString('utf8')).toBe(body);
    expect(upstream.received[0]!.headers).toMatchObject({ 'content-type': 'application/json', 'x-api-key': 'caller' });
  });

  it('drops hop-by-hop headers both ways, including those named in Connection', async () => {
    upstream.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', connection: 'x-upstream-hop', 'x-upstream-hop': '1', 'x-powered-by': 'PHP/5.6', 'x-end-to-end': '1' });
      res.end('ok');
    });
    const reply = await request({
      path: '/assets/a.css',
      headers: { connection: 'keep-alive, x-client-hop', 'x-client-hop': '1', 'keep-alive': 'timeout=5', 'proxy-authorization': 'Basic abc', te: 'trailers', 'x-end-to-end': '1' },
    });
    const got = upstream.received[0]!.headers;
    expect(got['x-client-hop']).toBeUndefined();
    expect(got['proxy-authorization']).toBeUndefined();
    expect(got.te).toBeUndefined();
    expect(got['keep-alive']).toBeUndefined();
    expect(got['x-end-to-end']).toBe('1');
    expect(reply.headers['x-upstream-hop']).toBeUndefined();
    expect(reply.headers['x-powered-by']).toBeUndefined();
    expect(reply.headers['x-end-to-end']).toBe('1');
    expect(reply.body.toString()).toBe('ok');
  });

  it('streams a 50 MB body: the first bytes arrive before the upstream has finished sending', async () => {
    const chunk = Buffer.alloc(1024 * 1024, 7);
    const total = 50;
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    upstream.handle(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(total * chunk.length) });
      res.write(chunk);
      await released; // the rest only once the client has seen the first megabyte through the gateway
      for (let i = 1; i < total; i++) {
        if (!res.write(chunk)) await new Promise((r) => res.once('drain', r));
      }
      res.end();
    });
    const hash = createHash('sha256');
    let bytes = 0;
    await new Promise<void>((resolve, reject) => {
      http.get(`${gateway.url}/assets/big.bin`, { agent: false }, (res) => {
        res.on('data', (c: Buffer) => {
          if (bytes === 0) release();
          bytes += c.length;
          hash.update(c);
        });
        res.on('end', resolve);
        res.on('error', reject);
      });
    });
    const expected = createHash('sha256');
    for (let i = 0; i < total; i++) expected.update(chunk);
    expect(bytes).toBe(total * chunk.length);
    expect(hash.digest('hex')).toBe(expected.digest('hex'));
  });

  it('stops the upstream exchange when the caller leaves mid-reply, and serves the next call', async () => {
    let upstreamClosed!: () => void;
    const closed = new Promise<void>((r) => (upstreamClosed = r));
    upstream.handle((_req, res) => {
      res.on('close', () => upstreamClosed());
      // The first chunk only: the rest would never come, so only the gateway can end this exchange.
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(1024 * 1024) });
      res.write(Buffer.alloc(1024, 1));
    });
    await new Promise<void>((resolve, reject) => {
      const req = http.get(`${gateway.url}/assets/endless.bin`, { agent: false }, (res) => {
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
    });
    await closed;
    upstream.handle((_req, res) => json(res, 200, { ok: true }));
    const next = await request({ path: '/api/v1/clients' });
    expect(next.status).toBe(200);
    expect(JSON.parse(next.body.toString())).toEqual({ ok: true });
  });

  it('streams a large request body to the upstream unchanged', async () => {
    upstream.handle((req, res) => json(res, 200, { sha: createHash('sha256').update(req.body).digest('hex') }));
    const body = Buffer.alloc(5 * 1024 * 1024, 3);
    const reply = await request({ path: '/api/v1/uploads', method: 'PUT', headers: { 'content-type': 'application/octet-stream' } }, body);
    expect(JSON.parse(reply.body.toString())).toEqual({ sha: createHash('sha256').update(body).digest('hex') });
  });
});
