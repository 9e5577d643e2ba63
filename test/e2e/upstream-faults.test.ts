// Every v1 error status, an unreachable upstream, invalid JSON and a slow upstream give the documented
// legacy error, and the gateway keeps serving afterwards. Gateway + recording fake upstream on loopback.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { get, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { json, startRecordingUpstream, v1List, type RecordingUpstream } from '../helpers/recording-upstream.js';

let upstream: RecordingUpstream;
/** A timeout no test reaches: every call the upstream answers is answered, however slow the machine. */
let gateway: TestGateway;
/** A timeout a held call reaches soon, and that an answered call on loopback never nears. */
let impatient: TestGateway;

beforeAll(async () => {
  upstream = await startRecordingUpstream();
  // Cache off, so no stale reply stands in for the faults under test (stale-if-error has its own tests).
  const env = { UPSTREAM_URL: upstream.url, UPSTREAM_API_KEY: 'k', CACHE_TTL_MS: '0' };
  gateway = await startTestGateway({ ...env, UPSTREAM_TIMEOUT_MS: '600000' });
  impatient = await startTestGateway({ ...env, UPSTREAM_TIMEOUT_MS: '2000' });
});
afterAll(async () => {
  await gateway.close();
  await impatient.close();
  await upstream.close();
});
beforeEach(() => {
  upstream.received.length = 0;
});

async function stillServing(served = gateway): Promise<void> {
  upstream.handle((_req, res) => json(res, 200, v1List([{ object: 'staff', id: 1, first_name: 'Ann' }])));
  const reply = await get(served.url, '/api/staffs/0/1');
  expect(reply.status).toBe(200);
}

describe('v1 errors keep their HTTP status and message', () => {
  it.each([
    [401, 'invalid_key', 'The API key is missing or unknown.'],
    [403, 'resource_not_allowed', 'This key may not use staff.'],
    [404, 'not_found', 'No staff with id 9 on this account.'],
    [405, 'method_not_allowed', 'GET is not allowed here.'],
    [409, 'conflict', 'Conflict.'],
    [500, 'server_error', 'Something failed on our side.'],
    [503, 'maintenance', 'Down for maintenance until 02:00 UTC.'],
  ])('v1 %i -> legacy %i with the message', async (status, code, message) => {
    upstream.handle((_req, res) => json(res, status, { error: { code, message } }));
    const reply = await get(gateway.url, '/api/staff/9');
    expect(reply.status).toBe(status);
    expect(reply.text).toBe(JSON.stringify({ status: 'failure', response: message }));
    // A 503 is retried twice (DESIGN: Non-functional); the other statuses are answered at once.
    expect(upstream.received).toHaveLength(status === 503 ? 3 : 1);
    await stillServing();
  });

  it('a 429 keeps its Retry-After', async () => {
    upstream.handle((_req, res) => json(res, 429, { error: { code: 'rate_limited', message: 'Hourly limit reached.' } }, { 'retry-after': '1800' }));
    const reply = await get(gateway.url, '/api/clients/0/3');
    expect(reply.status).toBe(429);
    expect(reply.headers.get('retry-after')).toBe('1800');
    expect(reply.body).toEqual({ status: 'failure', response: 'Hourly limit reached.' });
  });

  it('an error body that is not v1 JSON keeps the status with a generic message', async () => {
    upstream.handle((_req, res) => {
      res.writeHead(503, { 'content-type': 'text/html' });
      res.end('<html>Service Unavailable</html>');
    });
    const reply = await get(gateway.url, '/api/staffs');
    expect(reply.status).toBe(503);
    expect(reply.body).toEqual({ status: 'failure', response: 'the upstream answered HTTP 503' });
  });
});

describe('upstream faults', () => {
  it('invalid JSON from the upstream answers 502', async () => {
    upstream.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"object":"list","total":1,"data":[{"id":1},');
    });
    const reply = await get(gateway.url, '/api/clients/0/3');
    expect(reply.status).toBe(502);
    expect(reply.body).toEqual({ status: 'failure', response: 'the upstream sent a reply that is not valid JSON' });
    await stillServing();
  });

  it('a reply of the wrong shape answers 502', async () => {
    upstream.handle((_req, res) => json(res, 200, { object: 'list', total: 'many', data: [] }));
    const reply = await get(gateway.url, '/api/clients/0/3');
    expect(reply.status).toBe(502);
    expect((reply.body as { response: string }).response).toMatch(/^the upstream sent a list the gateway does not understand/);
  });

  it('a slow upstream answers 504 after UPSTREAM_TIMEOUT_MS', async () => {
    upstream.handle(() => undefined); // never answers
    const reply = await get(impatient.url, '/api/staff/1');
    expect(reply.status).toBe(504);
    expect(reply.body).toEqual({ status: 'failure', response: 'the upstream did not answer within 2000 ms' });
    await stillServing(impatient);
  });

  it('a connection reset mid-reply answers 502', async () => {
    upstream.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"object":"list"');
      res.socket?.destroy();
    });
    const reply = await get(gateway.url, '/api/staffs');
    expect(reply.status).toBe(502);
    expect(reply.body).toEqual({ status: 'failure', response: 'the upstream could not be reached' });
    await stillServing();
  });

  it('an unreachable upstream answers 502, without its address in the reply', async () => {
    // A port that was just free: nothing listens there.
    const probe = http.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((r) => probe.close(() => r()));
    const dead = await startTestGateway({ UPSTREAM_URL: `http://127.0.0.1:${port}`, UPSTREAM_API_KEY: 'k' });
    try {
      for (const path of ['/api/clients/0/3', '/api/v1/clients', '/assets/x.png']) {
        const reply = await get(dead.url, path);
        expect(reply.status).toBe(502);
        expect(reply.text).toBe(JSON.stringify({ status: 'failure', response: 'the upstream could not be reached' }));
        expect(reply.text).not.toContain(String(port));
      }
      expect((await get(dead.url, '/healthz')).status).toBe(200);
      expect((await get(dead.url, '/readyz')).body).toMatchObject({ status: 'upstream unreachable' });
    } finally {
      await dead.close();
    }
  });
});
