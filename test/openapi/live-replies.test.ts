// Replies of running gateways validate against the OpenAPI document, for the path, method and status they
// came with: every legacy path in its success and error forms (lists in every path form, details, lookups by
// id, e-mail, username and name, bad paging, unknown records, an operator file unset), every payment code the
// embedded sandbox can show (README's curl examples), Idempotency-Key reuse, 413 and 415, and v1's faults
// (401, 403, 405, 429, 500, 502, 503, 504) from a fake upstream. Each reply is checked as it arrives.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocumentFor } from '../../src/commands/openapi.js';
import { SHIPPED_MAPPINGS_DIR } from '../../src/gateway/config.js';
import type { OpenApiDocument } from '../../src/legacy-surface/openapi/types.js';
import { fetchReply, type Reply } from '../helpers/fetch-reply.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { openApiChecker, type OpenApiChecker } from '../helpers/openapi-check.js';
import { json, startRecordingUpstream, type RecordingUpstream } from '../helpers/recording-upstream.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const TESTIMONIALS_FILE = path.join(ROOT, 'test', 'fixtures', 'testimonials.json');

let doc: OpenApiDocument;
let checker: OpenApiChecker;
/** The sandbox-backed gateway, with no TESTIMONIALS_FILE. */
let gateway: TestGateway;
/** The same with TESTIMONIALS_FILE. */
let withFile: TestGateway;
/** A gateway in front of a fake v1 that answers what each test says. */
let faulty: TestGateway;
let fake: RecordingUpstream;
/** A gateway in front of an upstream that never answers. */
let stalled: TestGateway;
let silent: Server;

/** Every (document path, status) a checked reply came with. */
const seen: Array<{ path: string | undefined; status: number }> = [];

beforeAll(async () => {
  doc = await openApiDocumentFor(SHIPPED_MAPPINGS_DIR);
  checker = openApiChecker(doc);
  fake = await startRecordingUpstream();
  silent = createServer(() => undefined);
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  [gateway, withFile, faulty, stalled] = await Promise.all([
    startTestGateway(),
    startTestGateway({ TESTIMONIALS_FILE }),
    startTestGateway({ UPSTREAM_URL: fake.url, UPSTREAM_API_KEY: 'FAKE-KEY', CACHE_TTL_MS: '0' }),
    startTestGateway({ UPSTREAM_URL: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`, UPSTREAM_API_KEY: 'FAKE-KEY', UPSTREAM_TIMEOUT_MS: '300' }),
  ]);
});
afterAll(async () => {
  await Promise.all([gateway, withFile, faulty, stalled].map((g) => g?.close()));
  await fake?.close();
  silent?.closeAllConnections();
  await new Promise<void>((resolve) => (silent ? silent.close(() => resolve()) : resolve()));
});

/** One call; its reply must be one the document describes for its path, method and status. */
async function described(base: string, method: string, target: string, init: RequestInit = {}): Promise<Reply> {
  const reply = await fetchReply(`${base}${target}`, { ...init, method });
  const problems = checker.check({ method, path: target, status: reply.status, contentType: reply.headers.get('content-type'), body: reply.body });
  expect(problems, `${method} ${target}: ${reply.text.slice(0, 300)}`).toEqual([]);
  seen.push({ path: checker.pathOf(target), status: reply.status });
  return reply;
}

const read = (base: string, target: string, headers: Record<string, string> = {}) => described(base, 'GET', target, { headers });

async function pay(base: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Reply & { code: unknown }> {
  const reply = await described(base, 'POST', '/api/payment', { body: new URLSearchParams(fields), headers });
  return { ...reply, code: (reply.body as { code?: unknown }).code };
}

describe('reads, success', () => {
  it('every paged method in each path form: bare, start only, start and limit, trailing slash', async () => {
    for (const [docPath, item] of Object.entries(doc.paths)) {
      if (!docPath.endsWith('/{start}/{limit}')) continue;
      const base = docPath.replace('/{start}/{limit}', '');
      expect(item['x-accepted-paths']).toContain(base);
      for (const target of [base, `${base}/`, `${base}/1`, `${base}/0/2`, `${base}/0/2/`, `${base}/0/100000`]) {
        expect((await read(gateway.url, target)).status, target).toBe(200);
      }
    }
  });

  it('details, the operator file, and the golden calls of every method', async () => {
    for (const target of ['/api/staff/4', '/api/staff/4/', '/api/practitioner/5', '/api/service/11', '/api/session/93']) {
      expect((await read(gateway.url, target)).status, target).toBe(200);
    }
    expect((await read(withFile.url, '/api/testimonials')).status).toBe(200);
  });

  it('lookups by id, e-mail, username and name', async () => {
    for (const query of ['id=2', 'email=g.hopper@navy.example.mil', 'username=ghopper', 'first_name=Grace&last_name=Hopper', 'last_name=Hopper', 'email=G.HOPPER@navy.example.mil&id=3']) {
      const reply = await read(gateway.url, `/api/client?${query}`);
      expect(reply.status, query).toBe(200);
      expect((reply.body as { response: { id: string } }).response.id, query).toBe('2');
    }
  });

  it('HEAD answers like GET, with the JSON content type', async () => {
    const head = await fetch(`${gateway.url}/api/clients/0/1`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toMatch(/^application\/json/);
  });
});

describe('reads, failures', () => {
  it('400 for bad paging, ids, lookup parameters, path segments and a malformed key', async () => {
    const bad = [
      '/api/clients/x/5', '/api/clients/0/0', '/api/clients/-1/5', '/api/clients/0/5/7', '/api/sessions/0/1.5',
      '/api/staff', '/api/staff/abc', '/api/staff/4/5', '/api/client', '/api/client?id=abc', '/api/client?email=', '/api/client/2',
      '/api/testimonials/5',
    ];
    for (const target of bad) expect((await read(gateway.url, target)).status, target).toBe(400);
    expect((await read(gateway.url, '/api/clients/0/1', { 'X-API-KEY': 'not a key' })).status).toBe(400);
  });

  it('404 when a lookup finds nothing or v1 has no such record; 501 without the operator file', async () => {
    for (const target of ['/api/client?email=nobody@example.com', '/api/client?id=99999', '/api/client?first_name=Nobody', '/api/staff/99999', '/api/session/99999']) {
      expect((await read(gateway.url, target)).status, target).toBe(404);
    }
    const unset = await read(gateway.url, '/api/testimonials');
    expect(unset.status).toBe(501);
  });

  it('v1\'s own refusal of a key keeps its status (401)', async () => {
    expect((await read(gateway.url, '/api/clients/0/1', { 'X-API-KEY': 'no-such-key' })).status).toBe(401);
  });

  it('v1\'s faults keep their status: 401, 403, 405, 429 (Retry-After), 500, 503; unreachable 502; silent 504', async () => {
    for (const status of [401, 403, 404, 405, 429, 500, 503]) {
      fake.handle((_req, res) => json(res, status, { error: { code: 'fault', message: `v1 says ${status}` } }, status === 429 ? { 'retry-after': '30' } : {}));
      for (const target of ['/api/clients/0/1', '/api/meetourteam', '/api/staff/4', '/api/client?email=a@b.c', '/api/client?id=2']) {
        const reply = await read(faulty.url, target);
        expect(reply.status, `${status} ${target}`).toBe(target === '/api/client?id=2' && status === 404 ? 404 : status);
        if (status === 429) expect(reply.headers.get('retry-after')).toBe('30');
      }
    }
    fake.handle((_req, res) => void res.destroy());
    expect((await read(faulty.url, '/api/services/0/1')).status).toBe(502);
    fake.handle((_req, res) => json(res, 200, { not: 'a list' }));
    expect((await read(faulty.url, '/api/services/0/1')).status).toBe(502);
    expect((await read(stalled.url, '/api/session/93')).status).toBe(504);
  });
});

describe('POST /api/payment', () => {
  const existing = { client_id: '1', revenue_amount: '5', send_email: '0' };
  const newClient = { first_name: 'A', last_name: 'B', state: 'IL', country: 'US', status: 'active', revenue_amount: '5', send_email: '0' };

  it('answers each code as README\'s examples do, with HTTP 200', async () => {
    const cases: Array<[number, Record<string, string>]> = [
      [12, { client_id: '1', revenue_amount: '45.50', send_email: '0' }],
      [1, { revenue_amount: '45.50' }],
      [0, { client_id: '1', revenue_amount: '1,000.00', send_email: '0' }],
      [3, { ...newClient, password: 'x', password2: 'y' }],
      [6, { ...existing, client_id: '99999' }],
      [10, { ...existing, service_id: '999' }],
      [7, { ...existing, discount: 'SWIM5', service_id: '4' }],
      [4, { ...newClient, username: 'GHopper' }],
      [2, { ...newClient, email: 'ada.lovelace@example.com' }],
      [9, { ...existing, service_id: '2' }],
      [11, { ...existing, token: 'tok_declined' }],
      [8, { ...existing, token: 'tok_refused' }],
    ];
    for (const [code, fields] of cases) {
      const reply = await pay(gateway.url, fields);
      expect([reply.status, reply.code], JSON.stringify(fields)).toEqual([200, code]);
    }
  });

  it('takes JSON and multipart bodies; a file part is code 0', async () => {
    const asJson = await described(gateway.url, 'POST', '/api/payment', { body: JSON.stringify({ client_id: 1, revenue_amount: 5, send_email: false }), headers: { 'content-type': 'application/json' } });
    expect((asJson.body as { code: number }).code).toBe(12);
    const form = new FormData();
    for (const [k, v] of Object.entries(existing)) form.set(k, v);
    expect(((await described(gateway.url, 'POST', '/api/payment/', { body: form })).body as { code: number }).code).toBe(12);
    form.set('receipt', new Blob(['%PDF']), 'receipt.pdf');
    expect(((await described(gateway.url, 'POST', '/api/payment', { body: form })).body as { code: number }).code).toBe(0);
  });

  it('Idempotency-Key: a repeat replays, another payment under the same key is 409, a malformed key 400', async () => {
    const key = { 'Idempotency-Key': `order-${Date.now()}` };
    const first = await pay(gateway.url, existing, key);
    const again = await pay(gateway.url, existing, key);
    expect([first.code, again.code, again.headers.get('idempotent-replayed')]).toEqual([12, 12, 'true']);
    const other = await pay(gateway.url, { ...existing, revenue_amount: '6' }, key);
    expect([other.status, other.code]).toEqual([409, 0]);
    const malformed = await pay(gateway.url, existing, { 'Idempotency-Key': 'not visible ascii' });
    expect([malformed.status, malformed.code]).toEqual([400, 0]);
  });

  it('413 over 256 KB, 415 for another body type, 400 for a malformed API key', async () => {
    const big = await pay(gateway.url, { ...existing, revenue_note: 'x'.repeat(300 * 1024) });
    expect([big.status, big.code]).toEqual([413, 0]);
    const text = await described(gateway.url, 'POST', '/api/payment', { body: 'client_id=1', headers: { 'content-type': 'text/plain' } });
    expect(text.status).toBe(415);
    const badKey = await pay(gateway.url, existing, { 'X-API-KEY': 'not a key' });
    expect(badKey.status).toBe(400);
  });

  it('v1\'s faults answer code 8 with their status; unreachable 502; silent 504', async () => {
    for (const status of [401, 403, 429, 500, 503]) {
      fake.handle((_req, res) => json(res, status, { error: { code: 'fault', message: `v1 says ${status}` } }));
      const reply = await pay(faulty.url, existing);
      expect([reply.status, reply.code], String(status)).toEqual([status, 8]);
    }
    fake.handle((_req, res) => void res.destroy());
    expect((await pay(faulty.url, existing)).status).toBe(502);
    expect((await pay(stalled.url, existing)).status).toBe(504);
  });
});

describe('the gateway\'s own routes', () => {
  it('/healthz and /readyz: 200, and 503 when the upstream cannot be reached', async () => {
    expect((await read(gateway.url, '/healthz')).status).toBe(200);
    expect((await read(gateway.url, '/readyz')).status).toBe(200);
    const unreachable = await startTestGateway({ UPSTREAM_URL: 'http://127.0.0.1:1', UPSTREAM_API_KEY: 'FAKE-KEY' });
    try {
      expect((await read(unreachable.url, '/readyz')).status).toBe(503);
      expect((await read(unreachable.url, '/api/clients/0/1')).status).toBe(502);
    } finally {
      await unreachable.close();
    }
  });
});

describe('what was checked', () => {
  it('every path of the document answered 200 at least once, and every status listed was seen', () => {
    const ok = new Set(seen.filter((s) => s.status === 200).map((s) => s.path));
    expect(Object.keys(doc.paths).filter((p) => !ok.has(p))).toEqual([]);
    const statuses = new Set(seen.map((s) => s.status));
    expect([400, 401, 403, 404, 405, 409, 413, 415, 429, 500, 501, 502, 503, 504].filter((s) => !statuses.has(s))).toEqual([]);
  });
});
