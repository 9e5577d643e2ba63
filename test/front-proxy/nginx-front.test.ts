// A real nginx, configured by `legacy-gateway routes --format nginx`, in front of a real gateway and a fake
// v1 (both on loopback): legacy calls reach the gateway and answer in the legacy shape; every other call
// goes straight to v1, byte for byte, and the gateway never sees it (its request counter does not move);
// a key in the query never reaches v1 in a URL; the body limits and the replies to an unreachable gateway
// are the gateway's own.
import http, { type IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SHIPPED_MAPPINGS_DIR } from '../../src/gateway/config.js';
import { frontRoutes, type FrontRoutes } from '../../src/gateway/front-proxy/front-routes.js';
import { loadMappingDirectory } from '../../src/gateway/loaders/mapping-files.js';
import type { Mapping } from '../../src/mapping/schema.js';
import { routesConfig } from '../../src/commands/routes.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { freePort, startTestNginx, type TestNginx } from '../helpers/nginx.js';
import { json, startRecordingUpstream, v1List, type RecordingUpstream } from '../helpers/recording-upstream.js';

interface RawReply {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** One request with the target exactly as given (fetch would normalise it). */
function send(base: string, method: string, target: string, options: { headers?: Record<string, string>; body?: Buffer | string; chunked?: boolean } = {}): Promise<RawReply> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: hostname, port, method, path: target, headers: options.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (options.body !== undefined && !options.chunked) req.setHeader('content-length', Buffer.byteLength(options.body));
    req.end(options.body);
  });
}

const text = (r: RawReply) => r.body.toString('utf8');

let v1: RecordingUpstream;
let gateway: TestGateway;
let front: TestNginx;
let routes: FrontRoutes;
let mappings: Mapping[];

/** legacy_gateway_requests_total, summed over every label or for one legacy method label. */
async function requestsCounted(method?: string): Promise<number> {
  const metrics = await (await fetch(`${gateway.metricsUrl!}/metrics`)).text();
  let total = 0;
  for (const line of metrics.split('\n')) {
    if (!line.startsWith('legacy_gateway_requests_total{')) continue;
    if (method !== undefined && !line.includes(`method="${method}"`)) continue;
    total += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return total;
}

const PERSON = { id: 1, first_name: 'Ada', last_name: 'Lovelace', priority: 1, timezone: 'America/Chicago' };

/** A fake v1 that answers the resources the mappings read, and anything else with a fixed page of its own. */
function fakeV1(): void {
  v1.handle((req, res) => {
    const [pathPart] = req.url.split('?') as [string];
    if (req.method === 'POST' && pathPart === '/api/v1/payments') return json(res, 201, { object: 'payment', id: 77 });
    const detail = /^\/api\/v1\/[a-z-]+\/(\d+)$/.exec(pathPart);
    if (detail) return json(res, 200, { ...PERSON, object: 'record', id: Number(detail[1]) });
    if (pathPart.startsWith('/api/v1/')) return json(res, 200, v1List([PERSON]));
    // Pages, assets, retired paths: bytes v1 alone knows, with a header of its own.
    const page = `v1 page for ${req.method} ${req.url}\n${'x'.repeat(20_000)}`;
    res.writeHead(pathPart.startsWith('/api/') ? 410 : 200, { 'content-type': 'text/plain', 'x-v1-own': 'yes', 'content-length': Buffer.byteLength(page) });
    res.end(req.method === 'HEAD' ? undefined : page);
  });
}

beforeAll(async () => {
  v1 = await startRecordingUpstream();
  fakeV1();
  gateway = await startTestGateway({ UPSTREAM_URL: v1.url, METRICS_PORT: '0', CACHE_TTL_MS: '0', LOG_LEVEL: 'warn' });
  const port = await freePort();
  const config = await routesConfig({ format: 'nginx', listen: `127.0.0.1:${port}`, gateway: [gateway.url], upstream: v1.url }, {});
  front = await startTestNginx(config, port);
  const { reads, payment } = await loadMappingDirectory(SHIPPED_MAPPINGS_DIR);
  routes = frontRoutes({ reads, payment: payment!, upstreamTimeoutMs: 10_000 });
  mappings = [...reads.values()];
});
afterAll(async () => {
  await front?.close();
  await gateway?.close();
  await v1?.close();
});
beforeEach(() => {
  fakeV1();
  v1.received.length = 0;
});

/** A legacy call for a mapping, by its kind (the route is the same whatever the call's segments). */
function sampleCall(mapping: Mapping): string {
  switch (mapping.kind) {
    case 'detail':
      return `/api/${mapping.method}/1`;
    case 'lookup':
      return `/api/${mapping.method}?id=1`;
    case 'static':
      return `/api/${mapping.method}`;
    default:
      return `/api/${mapping.method}/0/2`;
  }
}

describe('legacy calls through the front reach the gateway and answer in the legacy shape', () => {
  it('every mapped method the routes name', () => {
    expect(mappings.map((m) => m.method).sort()).toEqual(routes.readMethods);
  });

  it.each(['clients', 'client', 'staffs', 'meetourstaff', 'staff', 'practitioners', 'meetourteam', 'practitioner', 'services', 'service', 'sessions', 'session', 'testimonials'])(
    '%s: the same reply as the gateway gives, counted by the gateway',
    async (method) => {
      const call = sampleCall(mappings.find((m) => m.method === method)!);
      const direct = await send(gateway.url, 'GET', call);
      const before = await requestsCounted(method);
      const through = await send(front.url, 'GET', call);
      expect(await requestsCounted(method)).toBe(before + 1);
      expect(through.status).toBe(direct.status);
      expect(text(through)).toBe(text(direct));
      expect(JSON.parse(text(through))).toHaveProperty('status', method === 'testimonials' ? 'failure' : 'success');
      expect(through.headers['content-type']).toBe('application/json; charset=utf-8');
    },
  );

  it('with a trailing segment, a trailing slash and HEAD', async () => {
    const before = await requestsCounted('clients');
    for (const [verb, call] of [['GET', '/api/clients/'], ['GET', '/api/clients/0/2/'], ['HEAD', '/api/clients/0/2']] as const) {
      expect((await send(front.url, verb, call)).status).toBe(200);
    }
    expect(await requestsCounted('clients')).toBe(before + 3);
  });

  it.each(['/api/payment', '/api/payment/'])('POST %s: the payment is made by the gateway', async (target) => {
    const before = await requestsCounted('payment');
    const reply = await send(front.url, 'POST', target, {
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-api-key': 'caller-key' },
      body: 'client_id=1&revenue_amount=45.50&send_email=0',
    });
    expect(text(reply)).toBe('{"status":"success","code":12,"response":"payment added (payment id 77)"}');
    expect(await requestsCounted('payment')).toBe(before + 1);
    expect(v1.received.filter((r) => r.method === 'POST').map((r) => [r.url, r.headers['x-api-key']])).toEqual([['/api/v1/payments', 'caller-key']]);
  });

  it.each(['/healthz', '/readyz'])('%s is the gateway\'s', async (target) => {
    const label = target.slice(1);
    const before = await requestsCounted(label);
    const reply = await send(front.url, 'GET', target);
    expect(reply.status).toBe(200);
    expect(text(reply)).toBe(text(await send(gateway.url, 'GET', target)));
    expect(await requestsCounted(label)).toBe(before + 2);
  });
});

describe('every other call goes straight to v1, and never reaches the gateway', () => {
  const PASSTHROUGH: Array<[string, string]> = [
    ['GET', '/api/v1/clients?limit=2'],
    ['GET', '/api/v1/clients/1'],
    ['GET', '/assets/app.js?v=3'],
    ['GET', '/ondemand/12/agent/agent'],
    ['GET', '/'],
    ['GET', '/metrics'],
    ['GET', '/api/Clients/0/5'],
    ['GET', '/api/unmapped/1'],
    ['GET', '/api/payment'],
    ['POST', '/api/clients/0/5'],
    ['GET', '/api//clients/0/5'],
    ['GET', '/a/./b/../c//d'],
    ['HEAD', '/assets/app.js'],
    ['DELETE', '/api/v1/sessions/4'],
  ];

  it.each(PASSTHROUGH)('%s %s: the same bytes as v1 directly, the target unchanged', async (verb, target) => {
    const direct = await send(v1.url, verb, target);
    v1.received.length = 0;
    const before = await requestsCounted();
    const through = await send(front.url, verb, target);
    expect(await requestsCounted()).toBe(before);
    expect(through.status).toBe(direct.status);
    expect(through.body.equals(direct.body)).toBe(true);
    expect(through.headers['content-type']).toBe(direct.headers['content-type']);
    expect(v1.received.map((r) => `${r.method} ${r.url}`)).toEqual([`${verb} ${target}`]);
  });

  it("a body is streamed on to v1 as it came, with v1's Host and the X-Forwarded-* the gateway's passthrough sets", async () => {
    const body = Buffer.alloc(3 * 1024 * 1024, 'b');
    const before = await requestsCounted();
    const reply = await send(front.url, 'PUT', '/api/v1/files/1', {
      headers: { host: 'old-host.example.com', 'x-forwarded-for': '203.0.113.9', 'x-api-key': 'header-key', 'proxy-authorization': 'Basic eA==', 'x_custom': 'kept' },
      body,
    });
    expect(await requestsCounted()).toBe(before);
    expect(reply.status).toBe(200);
    const [received] = v1.received;
    expect(received!.body.equals(body)).toBe(true);
    expect(received!.headers).toMatchObject({
      host: new URL(v1.url).host,
      'x-api-key': 'header-key',
      'x-forwarded-for': '203.0.113.9, 127.0.0.1',
      'x-forwarded-host': 'old-host.example.com',
      'x-forwarded-proto': 'http',
      'x-forwarded-port': String(front.port),
      x_custom: 'kept',
    });
    expect(received!.headers).not.toHaveProperty('proxy-authorization');
  });

  it("v1's reply headers come through, hop-by-hop ones and X-Powered-By dropped", async () => {
    v1.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'x-v1-own': 'yes', 'x-powered-by': 'PHP', 'proxy-authenticate': 'Basic', 'content-length': 2 });
      res.end('ok');
    });
    const reply = await send(front.url, 'GET', '/assets/x');
    expect(reply.headers['x-v1-own']).toBe('yes');
    expect(reply.headers).not.toHaveProperty('x-powered-by');
    expect(reply.headers).not.toHaveProperty('proxy-authenticate');
  });
});

describe('a key in the query never reaches v1 in a URL', () => {
  it.each([
    ['/api/v1/clients?api_key=SECRET-k1&limit=2', 'SECRET-k1', '/api/v1/clients?limit=2'],
    ['/api/v1/clients?%61pi_key=SECRET-k2', 'SECRET-k2', '/api/v1/clients'],
    ['/api/v1/clients?limit=1&api%5Fkey=SECRET-k3', 'SECRET-k3', '/api/v1/clients?limit=1'],
    ['/assets/app.js?api_key=SECRET-k4', 'SECRET-k4', '/assets/app.js'],
  ])('%s goes through the gateway, which sends the key as X-API-KEY', async (target, key, url) => {
    const before = await requestsCounted('passthrough');
    const reply = await send(front.url, 'GET', target);
    expect(reply.status).toBe(200);
    expect(await requestsCounted('passthrough')).toBe(before + 1);
    const received = v1.received.filter((r) => !r.url.startsWith('/api/v1?') && r.url !== '/api/v1');
    expect(received.map((r) => [r.url, r.headers['x-api-key']])).toEqual([[url, key]]);
    for (const r of v1.received) expect(r.url).not.toContain('SECRET');
  });

  it('a percent-escape anywhere in the query sends the call through the gateway, which passes it on unchanged', async () => {
    const before = await requestsCounted('passthrough');
    await send(front.url, 'GET', '/assets/a.js?name=a%20b');
    expect(await requestsCounted('passthrough')).toBe(before + 1);
    expect(v1.received.map((r) => r.url)).toEqual(['/assets/a.js?name=a%20b']);
  });
});

describe('request limits are the gateway\'s', () => {
  it('a payment body over 256 KB is refused by the front (413, the payment shape), and never reaches the gateway', async () => {
    const before = await requestsCounted();
    const body = `client_id=1&revenue_amount=5&send_email=0&notes=${'n'.repeat(256 * 1024)}`;
    const headers = { 'content-type': 'application/x-www-form-urlencoded' };
    for (const chunked of [false, true]) {
      const reply = await send(front.url, 'POST', '/api/payment', { headers, body, chunked });
      expect(reply.status).toBe(413);
      expect(text(reply)).toBe('{"status":"failure","code":0,"response":"the request body is larger than 262144 bytes"}');
      expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
    }
    expect(await requestsCounted()).toBe(before);
    expect(v1.received).toEqual([]);
  });

  it('a payment body within the limit goes on', async () => {
    const body = `client_id=1&revenue_amount=5&send_email=0&notes=${'n'.repeat(200 * 1024)}`;
    const reply = await send(front.url, 'POST', '/api/payment', { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
    expect(JSON.parse(text(reply))).toMatchObject({ code: 12 });
  });

  it('a body over 64 KB on a translated read is refused as the gateway refuses it', async () => {
    const body = 'x'.repeat(64 * 1024 + 1);
    const direct = await send(gateway.url, 'GET', '/api/clients/0/1', { body });
    const through = await send(front.url, 'GET', '/api/clients/0/1', { body });
    expect(through.status).toBe(413);
    expect(text(through)).toBe(text(direct));
  });
});

describe('a gateway that cannot be reached', () => {
  let lonely: TestNginx;
  beforeAll(async () => {
    const [port, closed] = [await freePort(), await freePort()];
    const config = await routesConfig({ format: 'nginx', listen: `127.0.0.1:${port}`, gateway: [`http://127.0.0.1:${closed}`], upstream: v1.url }, {});
    lonely = await startTestNginx(config, port);
  });
  afterAll(() => lonely?.close());

  it('answers a read in the legacy shape (502)', async () => {
    const reply = await send(lonely.url, 'GET', '/api/clients/0/2');
    expect(reply.status).toBe(502);
    expect(text(reply)).toBe('{"status":"failure","response":"the gateway could not be reached"}');
  });

  it('answers a payment with code 8 (502): check before retrying', async () => {
    const reply = await send(lonely.url, 'POST', '/api/payment', { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'client_id=1' });
    expect(reply.status).toBe(502);
    expect(JSON.parse(text(reply))).toMatchObject({ status: 'failure', code: 8 });
  });

  it('still passes everything else straight to v1', async () => {
    expect((await send(lonely.url, 'GET', '/api/v1/clients')).status).toBe(200);
  });
});
