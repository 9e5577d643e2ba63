// Fault injection under load: a fake v1 upstream (loopback) that resets connections, answers slowly or
// never, sends truncated or invalid JSON, 500/503/429 storms, huge bodies, and flaps between good and
// failing; 2000 legacy calls, 50 at a time, from this test. Asserted: every reply is legacy-shaped with
// the status DESIGN.md documents for its fault; no unhandled rejection; the gateway still serves; no
// payment POST reached the upstream twice; and the heap is back near where it started.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startHardenedGateway, type HardenedGateway } from '../e2e/hardening-harness.js';
import { collectGarbage as exposedGc } from '../helpers/collect-garbage.js';

const TOTAL = 2000;
const CONCURRENCY = 50;
// Generous: this one process hosts the test client, the gateway and the upstream on a small machine,
// and a 16 MB body arriving while 49 other calls are served must not be mistaken for a hung upstream.
const TIMEOUT_MS = 3000;

const collectGarbage = exposedGc();
// 2000 calls take their time on a busy machine: the timeout is the run's, not the quick suite's.
vi.setConfig({ testTimeout: 180_000 });

/** What a scenario's legacy reply must be. */
interface Expected {
  status: number;
  /** The legacy failure message, when the reply is an error. */
  message?: string | RegExp;
  retryAfter?: string;
}

/** GET scenarios, selected by the v1 `offset` (scenario * 1000 + variant). */
const SCENARIOS: Record<number, { name: string; expected: Expected }> = {
  1: { name: 'ok', expected: { status: 200 } },
  2: { name: 'connection reset', expected: { status: 502, message: 'the upstream could not be reached' } },
  3: { name: 'slow but in time', expected: { status: 200 } },
  4: { name: 'never answers', expected: { status: 504, message: `the upstream did not answer within ${TIMEOUT_MS} ms` } },
  5: { name: 'truncated body', expected: { status: 502, message: 'the upstream could not be reached' } },
  6: { name: 'invalid JSON', expected: { status: 502, message: 'the upstream sent a reply that is not valid JSON' } },
  7: { name: '500 storm', expected: { status: 500, message: 'v1 storm 500' } },
  8: { name: '503 storm', expected: { status: 503, message: 'v1 storm 503' } },
  9: { name: '429 storm', expected: { status: 429, message: 'v1 storm 429', retryAfter: '60' } },
  10: { name: 'huge declared body', expected: { status: 502, message: 'the upstream reply was larger than the gateway accepts' } },
  11: { name: 'huge streamed body', expected: { status: 502, message: 'the upstream reply was larger than the gateway accepts' } },
  12: { name: 'flapping (good twice, then 503)', expected: { status: 200 } },
  13: { name: 'large valid page', expected: { status: 200 } },
};
/** The mix of GET scenarios, in turn (10 stands for both huge-body scenarios, and mostly for `ok`;
 * a hung upstream, 4, costs a whole timeout, so it comes once a round). */
const SCHEDULE = [1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 1, 12, 3, 1, 10, 1, 2, 3, 1, 5, 6, 7, 8, 9, 12, 13, 1, 12, 3, 1, 10];

/** Payment outcomes, selected by the amount's whole part modulo 5. */
const PAYMENT_OUTCOMES: Array<{ name: string; expected: Expected & { code: number } }> = [
  { name: 'created', expected: { status: 200, code: 12 } },
  { name: '503', expected: { status: 503, code: 8 } },
  { name: 'reset after the POST arrived', expected: { status: 502, code: 8 } },
  { name: 'no answer', expected: { status: 504, code: 8 } },
  { name: 'created, slowly', expected: { status: 200, code: 12 } },
];

const record = (id: number) => ({ object: 'client', id, first_name: `F${id}`, last_name: `L${id}`, email: `c${id}@example.com`, active: true });
const page = (n: number, offset: number) => JSON.stringify({ object: 'list', total: 5000, limit: n, offset, has_more: true, data: Array.from({ length: n }, (_, i) => record(offset + i)) });

let upstream: http.Server;
let upstreamUrl: string;
const paymentPosts: string[] = [];
/** Upstream calls per flapping URL: the first good reply is cached (and a second is spare, for CACHE_MIN_USES=2). */
const flapped = new Map<string, number>();
const held = new Set<ServerResponse>();

function fakeV1(req: IncomingMessage, res: ServerResponse, body: Buffer): void {
  const url = new URL(req.url ?? '/', 'http://x');
  const send = (status: number, text: string, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
    res.end(text);
  };
  const storm = (status: number, headers: Record<string, string> = {}) =>
    send(status, JSON.stringify({ error: { code: 'storm', message: `v1 storm ${status}` } }), headers);

  if (req.method === 'POST' && url.pathname === '/api/v1/payments') {
    const amount = (JSON.parse(body.toString('utf8')) as { amount: number }).amount;
    paymentPosts.push(String(amount));
    switch (Math.floor(amount) % 5) {
      case 0:
        return send(201, JSON.stringify({ object: 'payment', id: paymentPosts.length }));
      case 1:
        return storm(503);
      case 2:
        return void req.socket.destroy();
      case 3:
        held.add(res);
        return;
      default:
        setTimeout(() => send(201, JSON.stringify({ object: 'payment', id: paymentPosts.length })), 20);
        return;
    }
  }
  if (req.method === 'GET' && /^\/api\/v1\/clients\/\d+$/.test(url.pathname)) return send(200, JSON.stringify(record(1)));

  const offset = Number(url.searchParams.get('offset') ?? 0);
  const limit = Number(url.searchParams.get('limit') ?? 5);
  switch (Math.floor(offset / 1000)) {
    case 1:
      return send(200, page(limit, offset));
    case 2:
      return void req.socket.destroy();
    case 3:
      setTimeout(() => send(200, page(limit, offset)), 20);
      return;
    case 4:
      held.add(res);
      return;
    case 5:
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '4000' });
      res.write(page(limit, offset).slice(0, 100));
      setImmediate(() => req.socket.destroy());
      return;
    case 6:
      return send(200, '{"object":"list","total":1,"data":[{"id":1},');
    case 7:
      return storm(500);
    case 8:
      return storm(503);
    case 9:
      return storm(429, { 'retry-after': '60' });
    case 10:
    case 11: {
      // 10 declares its (huge) length, 11 is chunked; both send more than the gateway's 16 MB limit.
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (offset < 11_000) headers['content-length'] = String(200 * 1024 * 1024);
      res.writeHead(200, headers);
      const chunk = Buffer.alloc(256 * 1024, 0x20);
      let sent = 0;
      // Bounded: stops at 17 MB whatever happens, or as soon as the gateway hangs up.
      const pump = (): void => {
        while (sent < 17 * 1024 * 1024 && !res.destroyed) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.on('error', () => undefined);
      return pump();
    }
    case 12: {
      const calls = (flapped.get(url.search) ?? 0) + 1;
      flapped.set(url.search, calls);
      return calls > 2 ? storm(503) : send(200, page(limit, offset));
    }
    case 13:
      return send(200, page(1000, offset));
    default:
      return send(404, JSON.stringify({ error: { code: 'not_found', message: 'no scenario' } }));
  }
}

let gateway: HardenedGateway;
const rejections: unknown[] = [];
const onRejection = (reason: unknown) => rejections.push(reason);

beforeAll(async () => {
  process.on('unhandledRejection', onRejection);
  upstream = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => fakeV1(req, res, Buffer.concat(chunks)));
    req.on('error', () => undefined);
    res.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  // A 1 ms cache lifetime: nearly every call is a miss, so stale-if-error is exercised under load.
  gateway = await startHardenedGateway({
    UPSTREAM_URL: upstreamUrl,
    UPSTREAM_API_KEY: 'fault-key',
    UPSTREAM_TIMEOUT_MS: String(TIMEOUT_MS),
    CACHE_TTL_MS: '1',
    LOG_LEVEL: 'silent',
  });
});
afterAll(async () => {
  process.off('unhandledRejection', onRejection);
  await gateway?.close();
  for (const res of held) res.destroy();
  upstream.closeAllConnections();
  await new Promise<void>((resolve) => upstream.close(() => resolve()));
});

interface Call {
  label: string;
  expected: Expected & { code?: number };
  method: 'GET' | 'POST';
  path: string;
  body?: string;
}

function callFor(i: number): Call {
  if (i % 10 === 9) {
    // The amount is unique per call and picks the upstream's behaviour (its whole part modulo 5).
    const n = Math.floor(i / 10);
    const amount = `${n}.25`;
    const outcome = PAYMENT_OUTCOMES[n % 5]!;
    return {
      label: `payment ${outcome.name}`,
      expected: outcome.expected,
      method: 'POST',
      path: '/api/payment',
      body: new URLSearchParams({ client_id: '1', revenue_amount: amount, send_email: '0' }).toString(),
    };
  }
  let scenario = SCHEDULE[i % SCHEDULE.length]!;
  // Huge bodies are costly to send: about one call in 150.
  if (scenario === 10) scenario = i % 160 < 16 ? 10 + (Math.floor(i / 160) % 2) : 1;
  const variant = scenario === 13 ? i % 2 : i % 40;
  return { label: SCENARIOS[scenario]!.name, expected: SCENARIOS[scenario]!.expected, method: 'GET', path: `/api/clients/${scenario * 1000 + variant}/5` };
}

const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });

function send(call: Call): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${gateway.url}${call.path}`,
      {
        method: call.method,
        agent,
        headers: call.body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(call.body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(call.body);
  });
}

describe('fault injection under load', () => {
  it(`${TOTAL} calls, ${CONCURRENCY} at a time: documented statuses, legacy shapes, no double payment, heap back`, async () => {
    // Warm-up, so the baseline includes what any serving gateway holds (pools, compiled code).
    for (let i = 0; i < 100; i++) await send(callFor(i * 10));
    collectGarbage();
    const heapBefore = process.memoryUsage().heapUsed;

    const problems: string[] = [];
    const seen = new Map<string, number>();
    let staleReplies = 0;
    let next = 0;
    const worker = async () => {
      while (next < TOTAL) {
        const call = callFor(next++);
        const reply = await send(call).catch((err: unknown) => ({ status: -1, headers: {} as http.IncomingHttpHeaders, text: String(err) }));
        seen.set(call.label, (seen.get(call.label) ?? 0) + 1);
        if (reply.headers.warning !== undefined) staleReplies++;
        const problem = check(call, reply);
        if (problem) problems.push(`${call.method} ${call.path} (${call.label}): ${problem}`);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));

    expect(problems.slice(0, 10)).toEqual([]);
    // Every scenario was exercised.
    for (const s of Object.values(SCENARIOS)) expect(seen.get(s.name), s.name).toBeGreaterThan(0);
    for (const p of PAYMENT_OUTCOMES) expect(seen.get(`payment ${p.name}`), p.name).toBeGreaterThan(0);

    // The flapping URLs were answered from the cache (stale-if-error) once their upstream failed.
    expect(staleReplies).toBeGreaterThan(0);

    // No payment POST reached the upstream twice (each legacy call carries its own amount).
    const counts = new Map<string, number>();
    for (const amount of paymentPosts) counts.set(amount, (counts.get(amount) ?? 0) + 1);
    expect([...counts].filter(([, n]) => n > 1)).toEqual([]);

    expect(rejections).toEqual([]);
    const health = await send({ label: 'health', expected: { status: 200 }, method: 'GET', path: '/healthz' });
    expect(health.status).toBe(200);

    for (const res of held) res.destroy();
    held.clear();
    agent.destroy();
    collectGarbage();
    const grownMb = (process.memoryUsage().heapUsed - heapBefore) / 1024 / 1024;
    expect(grownMb).toBeLessThan(25);
  });
});

function check(call: Call, reply: { status: number; headers: http.IncomingHttpHeaders; text: string }): string | undefined {
  const { expected } = call;
  if (reply.status !== expected.status) return `status ${reply.status}, expected ${expected.status}: ${reply.text.slice(0, 120)}`;
  if (reply.headers['x-powered-by'] !== undefined) return 'x-powered-by';
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(reply.text) as Record<string, unknown>;
  } catch {
    return `not JSON: ${reply.text.slice(0, 120)}`;
  }
  if (call.method === 'POST') {
    if (body.code !== expected.code) return `code ${String(body.code)}, expected ${expected.code}`;
    if (Object.keys(body).join() !== 'status,code,response' || typeof body.response !== 'string') return `not a payment reply: ${reply.text}`;
    if (body.status !== (expected.code === 12 ? 'success' : 'failure')) return `status field ${String(body.status)}`;
    return undefined;
  }
  if (expected.status === 200) {
    if (body.status !== 'success' || typeof body.total !== 'string' || !Array.isArray(body.response)) return `not a legacy list: ${reply.text.slice(0, 120)}`;
    const warning = reply.headers.warning;
    if (warning !== undefined && warning !== '110 - "Response is Stale"') return `warning ${warning}`;
    return undefined;
  }
  if (Object.keys(body).join() !== 'status,response' || body.status !== 'failure') return `not a legacy failure: ${reply.text}`;
  if (expected.message !== undefined && body.response !== expected.message) return `message ${String(body.response)}`;
  if (expected.retryAfter !== undefined && reply.headers['retry-after'] !== expected.retryAfter) return `retry-after ${String(reply.headers['retry-after'])}`;
  return undefined;
}
