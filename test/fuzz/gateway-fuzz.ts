// Fuzzing the running gateway (fast-check), for gateway-fuzz.test.ts (a few inputs, a fixed seed) and
// gateway-fuzz.long.test.ts (the volume, a new seed each run): random legacy paths, query strings,
// headers, methods and payment bodies, sent as raw bytes to a gateway on loopback in front of a recording fake upstream, with
// a second "canary" server standing for any other host. Asserted for every input: never a 500 from the
// gateway itself (the fake upstream never answers 500), never a crash or an unhandled rejection, no
// X-Powered-By; every upstream request a legacy call caused is under /api/v1/ on the upstream host, and a
// passed-through request reaches the upstream with exactly the path it came with; the canary hears nothing.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHardenedGateway, type HardenedGateway } from '../e2e/hardening-harness.js';

interface Seen {
  method: string;
  url: string;
  host: string | undefined;
}

const MAPPED = ['clients', 'client', 'staffs', 'meetourstaff', 'staff', 'practitioners', 'meetourteam', 'practitioner', 'services', 'service', 'sessions', 'session', 'testimonials'];

let upstream: http.Server;
let canary: http.Server;
let gateway: HardenedGateway;
let upstreamHost: string;
let canaryHost: string;
const received: Seen[] = [];
const canaryReceived: Seen[] = [];
const rejections: unknown[] = [];
const onRejection = (reason: unknown) => rejections.push(reason);

/** A plausible v1: lists, records, created records; 404 for anything else. Never a 500. */
function fakeV1(req: IncomingMessage, res: ServerResponse): void {
  const send = (status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };
  const path = (req.url ?? '').split('?')[0]!;
  if (!path.startsWith('/api/v1/')) return send(404, { error: { code: 'not_found', message: 'not here' } });
  if (req.method === 'POST') return send(201, { object: 'record', id: 42 });
  const detail = /^\/api\/v1\/[a-z-]+\/(\d+)$/.exec(path);
  if (detail) return send(200, { object: 'record', id: Number(detail[1]), first_name: 'Ann', priority: 1, group_num: 1, timezone: 'America/Chicago' });
  return send(200, {
    object: 'list',
    total: 2,
    limit: 100,
    offset: 0,
    has_more: false,
    data: [
      { object: 'record', id: 1, first_name: 'Ann', last_name: 'Lee', email: 'ann@example.com', username: 'ann', priority: 2, name: 'America/Chicago', code: 'SAVE', status: 'active' },
      { object: 'record', id: 2, first_name: 'Bo', last_name: null, email: 'bo@example.com,b@example.com', priority: null },
    ],
  });
}

function recordingServer(log: Seen[], handler: (req: IncomingMessage, res: ServerResponse) => void): http.Server {
  return http.createServer((req, res) => {
    log.push({ method: req.method ?? '', url: req.url ?? '', host: req.headers.host });
    req.on('error', () => undefined);
    req.resume();
    req.on('end', () => handler(req, res));
  });
}

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Writes a raw request and reads the raw reply until the gateway closes the connection. */
function rawExchange(head: string, body: Buffer = Buffer.alloc(0)): Promise<{ status: number; head: string }> {
  return new Promise((resolve) => {
    const socket = net.connect(gateway.port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      resolve({ status: Number(text.slice(9, 12)) || 0, head: end < 0 ? text : text.slice(0, end) });
    });
    // Not end(): a half-closed request is abandoned by Node's server (httpAllowHalfOpen is off).
    socket.write(Buffer.concat([Buffer.from(head, 'latin1'), body]));
  });
}

// --- arbitraries ---------------------------------------------------------------------------------

/** Characters that may appear raw in a request target, plus the tricky ones. */
const targetChar = fc.constantFrom(...'abcz09-._~!$&\'()*+,;=:@/%?#[]\\`^{}|"<>'.split(''));
const encodedTricks = fc.constantFrom('%2e%2e', '%2F', '%2f', '%00', '%0d%0a', '%5c', '%25', '%E0%A4%A', '%ff', '..', '.', '//', 'http:', `@${'evil.example'}`, '%40evil.example', 'api_key=');
const segment = fc.oneof(
  fc.nat({ max: 5000 }).map(String),
  fc.integer({ min: -5, max: 5 }).map(String),
  fc.string({ unit: targetChar, maxLength: 12 }),
  encodedTricks,
  fc.constantFrom('9'.repeat(30), '1e3', '0x10', '1.5', '%20', '+', ''),
);
const queryName = fc.oneof(fc.constantFrom('api_key', 'id', 'email', 'username', 'first_name', 'last_name', 'api%5Fkey', 'limit', 'offset'), fc.string({ unit: targetChar, maxLength: 8 }));
// CANARY stands for the canary's host:port, known only once it listens (see withCanary).
const queryValue = fc.oneof(fc.string({ unit: targetChar, maxLength: 16 }), encodedTricks, fc.nat().map(String), fc.constantFrom('CANARY', 'http://CANARY/x', '//CANARY'));
const queryString = fc
  .array(fc.tuple(queryName, queryValue), { maxLength: 6 })
  .map((pairs) => (pairs.length === 0 ? '' : `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}`));

/** A header name (an HTTP token) and a value of visible ASCII and spaces. */
const headerName = fc.oneof(
  fc.constantFrom('x-api-key', 'host', 'x-forwarded-host', 'x-forwarded-for', 'forwarded', 'connection', 'upgrade', 'te', 'x-request-id', 'accept', 'content-type', 'idempotency-key', 'authorization', 'cookie', 'expect', 'range'),
  fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/),
);
const headerValue = fc.oneof(
  fc.stringMatching(/^[\x21-\x7e][\x20-\x7e]{0,40}$/),
  fc.constantFrom('close', 'keep-alive, x-api-key', 'websocket', '100-continue', 'bytes=0-1', 'trailers', 'http://evil.example', ''),
  fc.constantFrom('CANARY', 'http://CANARY/'),
);
const headers = fc.array(fc.tuple(headerName, headerValue), { maxLength: 6 });

function headLines(method: string, target: string, extra: Array<[string, string]>, bodyLength: number): string {
  const lines = [`${method} ${target} HTTP/1.1`];
  let hasHost = false;
  for (const [name, rawValue] of extra) {
    // Framing headers are the client's to get right; the fuzz varies everything else.
    if (name === 'content-length' || name === 'transfer-encoding') continue;
    const value = withCanary(rawValue);
    if (name === 'host') {
      if (hasHost) continue;
      hasHost = true;
    }
    lines.push(`${name}: ${value}`);
  }
  if (!hasHost) lines.push('host: gateway.test');
  lines.push(`content-length: ${bodyLength}`, 'connection: close');
  return `${lines.join('\r\n')}\r\n\r\n`;
}

const withCanary = (text: string): string => text.replaceAll('CANARY', canaryHost);

/** Sends one request; checks the reply and the upstream requests it caused. */
async function probe(method: string, rawTarget: string, extra: Array<[string, string]>, body: Buffer, translated: boolean): Promise<void> {
  const target = withCanary(rawTarget);
  const before = received.length;
  const reply = await rawExchange(headLines(method, target, extra, body.length), body);
  const caused = received.slice(before);
  expect(reply.status, `${method} ${target}`).not.toBe(500);
  expect(reply.status, `${method} ${target}: no reply`).toBeGreaterThan(0);
  expect(reply.head.toLowerCase()).not.toContain('x-powered-by');
  for (const call of caused) {
    expect(call.host, `${method} ${target} -> ${call.url}`).toBe(upstreamHost);
    if (translated) {
      expect(call.url, `${method} ${target}`).toMatch(/^\/api\/v1\/[a-z-]+(\/\d+)?(\?|$)/);
    } else {
      // Passed through: exactly the incoming path (the query may only lose api_key).
      expect(call.url.split('?')[0], `${method} ${target}`).toBe(target.split('?')[0]);
    }
  }
  expect(canaryReceived).toEqual([]);
}

/** How many inputs each property is tried with, and the seed (none: a new one each run, as fast-check picks). */
export interface GatewayFuzzRuns {
  reads: number;
  payments: number;
  anyPath: number;
  seed?: number;
}

const seeded = (runs: { seed?: number }) => (runs.seed === undefined ? {} : { seed: runs.seed });

/** The fuzz, with its gateway, fake upstream and canary started for the file that calls it. */
export function fuzzTheGateway(runs: GatewayFuzzRuns): void {
  beforeAll(async () => {
    process.on('unhandledRejection', onRejection);
    upstream = recordingServer(received, fakeV1);
    canary = recordingServer(canaryReceived, (_req, res) => res.end('canary'));
    upstreamHost = await listen(upstream);
    canaryHost = await listen(canary);
    gateway = await startHardenedGateway({ UPSTREAM_URL: `http://${upstreamHost}`, UPSTREAM_API_KEY: 'fuzz-key', UPSTREAM_TIMEOUT_MS: '2000', LOG_LEVEL: 'silent' });
  });
  afterAll(async () => {
    process.off('unhandledRejection', onRejection);
    await gateway?.close();
    for (const server of [upstream, canary]) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  describe('fuzzing the gateway', () => {
    it('legacy read methods: random segments, queries and headers', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...MAPPED),
          fc.array(segment, { maxLength: 4 }),
          queryString,
          headers,
          fc.constantFrom('GET', 'HEAD'),
          async (method, segments, query, extra, verb) => {
            const target = `/api/${method}${segments.map((s) => `/${s}`).join('')}${query}`;
            // Raw '#' or '?' in a segment starts the query/fragment: still a call of this method.
            await probe(verb, target.replace(/#.*$/, ''), extra, Buffer.alloc(0), true);
          },
        ),
        { numRuns: runs.reads, ...seeded(runs) },
      );
    });

    it('payment: random bodies in every encoding', async () => {
      const legacyField = fc.constantFrom(
        'client_id', 'revenue_amount', 'send_email', 'first_name', 'last_name', 'state', 'country', 'status', 'service_id', 'discount',
        'timezone', 'password', 'password2', 'token', 'email', 'username', 'date', 'start_time', 'api_key', 'notes',
      );
      const fieldValue = fc.oneof(
        fc.constantFrom('1', '0', '12', '45.50', '1,000.00', '$5', '5.', '-1', '2024-02-30', '25:00', 'SAVE', 'America/Chicago', ''),
        fc.string({ maxLength: 20 }),
        fc.nat().map(String),
      );
      const fields = fc.array(fc.tuple(fc.oneof(legacyField, fc.string({ maxLength: 8 })), fieldValue), { maxLength: 12 });
      const encoded = fc.tuple(fields, fc.constantFrom('form', 'json', 'json-odd', 'multipart', 'garbage', 'none')).map(([pairs, kind]): [string | undefined, Buffer] => {
        switch (kind) {
          case 'form':
            return ['application/x-www-form-urlencoded', Buffer.from(new URLSearchParams(pairs).toString())];
          case 'json':
            return ['application/json', Buffer.from(JSON.stringify(Object.fromEntries(pairs)))];
          case 'json-odd':
            return ['application/json', Buffer.from(JSON.stringify(pairs))];
          case 'multipart': {
            const boundary = 'fuzzBoundary';
            const parts = pairs.map(([k, v]) => `--${boundary}\r\ncontent-disposition: form-data; name="${k.replace(/["\r\n]/g, '')}"\r\n\r\n${v}\r\n`).join('');
            return [`multipart/form-data; boundary=${boundary}`, Buffer.from(`${parts}--${boundary}--\r\n`)];
          }
          case 'garbage':
            return [pairs[0]?.[1] ?? 'text/plain', Buffer.from(pairs.map(([k, v]) => `${k}${v}`).join('\u0000'))];
          default:
            return [undefined, Buffer.alloc(0)];
        }
      });
      await fc.assert(
        fc.asyncProperty(encoded, headers, queryString, async ([contentType, body], extra, query) => {
          const all: Array<[string, string]> = contentType === undefined ? extra : [['content-type', contentType], ...extra.filter(([n]) => n !== 'content-type')];
          await probe('POST', `/api/payment${query}`.replace(/#.*$/, ''), all, body, true);
        }),
        { numRuns: runs.payments, ...seeded(runs) },
      );
    });

    it('any path, any method: never a 500, never another host', async () => {
      const path = fc.oneof(
        fc.array(segment, { minLength: 1, maxLength: 5 }).map((s) => `/${s.join('/')}`),
        fc.tuple(fc.constantFrom('/api/v1', '/ondemand', '/assets', '/api', '/metrics', '/healthz', '/readyz', ''), fc.array(segment, { maxLength: 3 })).map(
          ([prefix, s]) => `${prefix}/${s.join('/')}`,
        ),
      );
      await fc.assert(
        fc.asyncProperty(path, queryString, headers, fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH'), async (p, query, extra, verb) => {
          const target = `${p}${query}`.replace(/#.*$/, '');
          const mapped = /^\/api\/([a-z][a-z0-9_]*)(\/|\?|$)/.exec(target);
          const translated = (verb === 'GET' || verb === 'HEAD') && mapped !== null && MAPPED.includes(mapped[1]!);
          const payment = verb === 'POST' && /^\/api\/payment\/?(\?|$)/.test(target);
          await probe(verb, target, extra, Buffer.from(verb === 'GET' || verb === 'HEAD' ? '' : '{}'), translated || payment);
        }),
        { numRuns: runs.anyPath, ...seeded(runs) },
      );
    });

    it('is still serving, with no unhandled rejection', async () => {
      const reply = await rawExchange('GET /healthz HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n');
      expect(reply.status).toBe(200);
      expect(rejections).toEqual([]);
    });
  });
}
