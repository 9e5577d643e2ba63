// POST /api/payment when v1 faults before the payment POST, end to end through a recording fake upstream:
// a client or service check that reads a record of the wrong shape is code 8 (HTTP 502, "no payment was
// made"); a fault while creating the new client is code 5 with the fault's HTTP status. Neither ever
// reaches the payment POST: the exact reply, and every call the fake received.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SHIPPED_MAPPINGS_DIR } from '../../src/gateway/config.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { openApiDocumentFor } from '../../src/commands/openapi.js';
import { openApiChecker, type OpenApiChecker } from '../helpers/openapi-check.js';
import { json, startRecordingUpstream, type RecordingUpstream } from '../helpers/recording-upstream.js';

let fake: RecordingUpstream;
let gateway: TestGateway;
let surface: OpenApiChecker;
/** Reached by a call v1 never answers; never neared by one it answers on loopback, however loaded the machine. */
const TIMEOUT_MS = 2000;

beforeAll(async () => {
  surface = openApiChecker(await openApiDocumentFor(SHIPPED_MAPPINGS_DIR));
  fake = await startRecordingUpstream();
  gateway = await startTestGateway({ UPSTREAM_URL: fake.url, UPSTREAM_API_KEY: 'FAKE-UPSTREAM-KEY', UPSTREAM_TIMEOUT_MS: String(TIMEOUT_MS), CACHE_TTL_MS: '0' });
});
afterAll(async () => {
  await gateway.close();
  await fake.close();
});
beforeEach(() => {
  fake.received.length = 0;
});

async function pay(base: string, fields: Record<string, string>) {
  const res = await fetch(`${base}/api/payment`, { method: 'POST', body: new URLSearchParams(fields) });
  const text = await res.text();
  // Every reply is one the legacy surface's OpenAPI description allows.
  expect(surface.check({ method: 'POST', path: '/api/payment', status: res.status, contentType: res.headers.get('content-type'), body: JSON.parse(text) })).toEqual([]);
  return { status: res.status, text, headers: res.headers };
}

const calls = () => fake.received.map((r) => `${r.method} ${r.url}`);
const paymentPosts = () => calls().filter((c) => c === 'POST /api/v1/payments');

const existing = { client_id: '1', revenue_amount: '45.50', send_email: '0' };
const newClient = { first_name: 'Nia', last_name: 'Okafor', state: 'IL', country: 'US', status: 'active', revenue_amount: '30.00', send_email: '1' };

/** A fake v1 that finds client 1 and service 4 unless told otherwise, and creates payments. */
function v1(overrides: { client?: (res: http.ServerResponse) => void; service?: (res: http.ServerResponse) => void; createClient?: (res: http.ServerResponse) => void }) {
  fake.handle((req, res) => {
    if (req.method === 'GET' && req.url === '/api/v1/clients/1') return overrides.client ? overrides.client(res) : json(res, 200, { object: 'client', id: 1 });
    if (req.method === 'GET' && req.url === '/api/v1/services/4') return overrides.service ? overrides.service(res) : json(res, 200, { object: 'service', id: 4 });
    if (req.method === 'POST' && req.url === '/api/v1/clients') return overrides.createClient ? overrides.createClient(res) : json(res, 201, { object: 'client', id: 77 });
    if (req.method === 'POST' && req.url === '/api/v1/payments') return json(res, 201, { object: 'payment', id: 901 });
    json(res, 404, { error: { code: 'not_found', message: 'no such thing' } });
  });
}

describe('a check that reads a record of the wrong shape: code 8, HTTP 502, no payment POST', () => {
  const fault = (reason: string) =>
    JSON.stringify({
      status: 'failure',
      code: 8,
      response: `payment error: the service could not be reached or refused the request (the upstream sent a record the gateway does not understand (${reason})); no payment was made`,
    });
  const shapes = (id: number): Array<[string, unknown, string]> => [
    ['a list-like object', { data: 'not a list' }, `id: not the requested id ${id}`],
    ['an empty array', [], 'body: expected a JSON object'],
    ['a string', 'x', 'body: expected a JSON object'],
    ['an empty object', {}, `id: not the requested id ${id}`],
    ['another record', { object: 'record', id: id + 1 }, `id: not the requested id ${id}`],
    ['another record, id as a string', { object: 'record', id: String(id + 1) }, `id: not the requested id ${id}`],
  ];

  it.each(shapes(1))('client_id: %s', async (_what, body, reason) => {
    v1({ client: (res) => json(res, 200, body) });
    const r = await pay(gateway.url, existing);
    expect(r.status).toBe(502);
    expect(r.text).toBe(fault(reason));
    expect(calls()).toEqual(['GET /api/v1/clients/1']);
  });

  it.each(shapes(4))('service_id: %s', async (_what, body, reason) => {
    v1({ service: (res) => json(res, 200, body) });
    const r = await pay(gateway.url, { ...existing, service_id: '4' });
    expect(r.status).toBe(502);
    expect(r.text).toBe(fault(reason));
    expect(calls()).toEqual(['GET /api/v1/clients/1', 'GET /api/v1/services/4']);
  });

  it('the records asked for, ids as strings, still make the payment', async () => {
    v1({ client: (res) => json(res, 200, { object: 'client', id: '1' }), service: (res) => json(res, 200, { object: 'service', id: '4' }) });
    const r = await pay(gateway.url, { ...existing, service_id: '4' });
    expect(r.text).toBe('{"status":"success","code":12,"response":"payment added (payment id 901)"}');
    // The client's newest payment read before the POST: what an unknown outcome would be settled against.
    expect(calls()).toEqual(['GET /api/v1/clients/1', 'GET /api/v1/services/4', 'GET /api/v1/payments?client_id=1&offset=0&limit=1', 'POST /api/v1/payments']);
  });
});

describe('a fault while creating the new client: code 5 with its HTTP status, no payment POST', () => {
  const mayExist = (reason: string) =>
    JSON.stringify({
      status: 'failure',
      code: 5,
      response: `unable to create the client: the outcome is unknown (${reason}); the client may have been created: look it up before retrying; no payment was made`,
    });
  const noneCreated = (reason: string) =>
    JSON.stringify({ status: 'failure', code: 5, response: `unable to create the client: the service refused the request (${reason}); no client was created and no payment was made` });

  it.each([
    [500, 'server_error', 'Something failed on our side.'],
    [503, 'maintenance', 'Down for maintenance.'],
  ])('a v1 %i', async (status, code, message) => {
    v1({ createClient: (res) => json(res, status, { error: { code, message } }) });
    const r = await pay(gateway.url, newClient);
    expect(r.status).toBe(status);
    expect(r.text).toBe(mayExist(message));
    // Exactly one attempt: a POST is never retried, not even on a 503.
    expect(calls()).toEqual(['POST /api/v1/clients']);
  });

  it('a timeout (UPSTREAM_TIMEOUT_MS)', async () => {
    v1({ createClient: () => undefined }); // never answers
    const r = await pay(gateway.url, newClient);
    expect(r.status).toBe(504);
    expect(r.text).toBe(mayExist(`the upstream did not answer within ${TIMEOUT_MS} ms`));
    expect(calls()).toEqual(['POST /api/v1/clients']);
  });

  it('a dropped connection', async () => {
    v1({ createClient: (res) => res.socket?.destroy() });
    const r = await pay(gateway.url, newClient);
    expect(r.status).toBe(502);
    expect(r.text).toBe(mayExist('the upstream could not be reached'));
    expect(calls()).toEqual(['POST /api/v1/clients']);
  });

  it('a created client without an id', async () => {
    v1({ createClient: (res) => json(res, 201, { object: 'client' }) });
    const r = await pay(gateway.url, newClient);
    expect(r.status).toBe(502);
    expect(r.text).toBe(mayExist('the upstream created the client but sent no id'));
    expect(paymentPosts()).toEqual([]);
  });

  it.each([
    [401, 'invalid_key', 'The API key is missing or unknown.'],
    [403, 'resource_not_allowed', 'This key may not create clients.'],
  ])('a v1 %i: the service refused, nothing was created', async (status, code, message) => {
    v1({ createClient: (res) => json(res, status, { error: { code, message } }) });
    const r = await pay(gateway.url, newClient);
    expect(r.status).toBe(status);
    expect(r.text).toBe(noneCreated(message));
    expect(calls()).toEqual(['POST /api/v1/clients']);
  });

  it('a v1 429 keeps its Retry-After', async () => {
    v1({ createClient: (res) => json(res, 429, { error: { code: 'rate_limited', message: 'Hourly limit reached.' } }, { 'retry-after': '1800' }) });
    const r = await pay(gateway.url, newClient);
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBe('1800');
    expect(r.text).toBe(noneCreated('Hourly limit reached.'));
    expect(calls()).toEqual(['POST /api/v1/clients']);
  });

  it('an unreachable upstream', async () => {
    // A port that was just free: nothing listens there.
    const probe = http.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((r) => probe.close(() => r()));
    const dead = await startTestGateway({ UPSTREAM_URL: `http://127.0.0.1:${port}`, UPSTREAM_API_KEY: 'FAKE-UPSTREAM-KEY' });
    try {
      const r = await pay(dead.url, newClient);
      expect(r.status).toBe(502);
      expect(r.text).toBe(mayExist('the upstream could not be reached'));
      expect(r.text).not.toContain(String(port));
    } finally {
      await dead.close();
    }
  });

  it('the new client is asked for once, with the caller\'s fields', async () => {
    v1({ createClient: (res) => json(res, 500, { error: { code: 'server_error', message: 'x' } }) });
    await pay(gateway.url, newClient);
    expect(fake.received).toHaveLength(1);
    expect(JSON.parse(fake.received[0]!.body.toString('utf8'))).toMatchObject({ first_name: 'Nia', last_name: 'Okafor', state: 'IL' });
  });
});

describe('the payment POST is still the step that answers code 8', () => {
  it('a 500 on the payment POST after a new client: code 8, the new client named', async () => {
    fake.handle((req, res) => {
      if (req.method === 'POST' && req.url === '/api/v1/clients') return json(res, 201, { object: 'client', id: 77 });
      return json(res, 500, { error: { code: 'server_error', message: 'Something failed.' } });
    });
    const r = await pay(gateway.url, newClient);
    expect(r.status).toBe(500);
    expect(r.text).toBe(
      JSON.stringify({
        status: 'failure',
        code: 8,
        response:
          'payment error: the outcome of the payment is unknown (Something failed.); check the payments list before retrying (the new client was created with id 77: retry with client_id=77)',
      }),
    );
    expect(calls()).toEqual(['POST /api/v1/clients', 'POST /api/v1/payments']);
  });
});
