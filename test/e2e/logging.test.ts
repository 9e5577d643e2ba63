// One JSON log line per request (request id, legacy method, upstream calls, status, latency), and no key,
// token or password in any line. Gateway + recording fake upstream; the log is captured in memory.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { json, startRecordingUpstream, v1List, type RecordingUpstream } from '../helpers/recording-upstream.js';

let upstream: RecordingUpstream;
let gateway: TestGateway;
const SECRETS = ['OPERATOR-SECRET-KEY', 'HEADER-SECRET-KEY', 'QUERY-SECRET-KEY', 'tok_SECRET_CARD', 'hunter2-SECRET'];

beforeAll(async () => {
  upstream = await startRecordingUpstream((_req, res) => json(res, 200, v1List([{ object: 'staff', id: 1 }])));
  gateway = await startTestGateway({ UPSTREAM_URL: upstream.url, UPSTREAM_API_KEY: 'OPERATOR-SECRET-KEY' });
});
afterAll(async () => {
  await gateway.close();
  await upstream.close();
});

const requestLines = () => gateway.logs.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.req !== undefined);

describe('request logging', () => {
  it('writes one line per request with id, method, upstream calls, status and latency', async () => {
    const before = requestLines().length;
    const reply = await get(gateway.url, '/api/staffs/0/1', { 'x-request-id': 'req-42' });
    expect(reply.headers.get('x-request-id')).toBe('req-42');
    const lines = requestLines().slice(before);
    expect(lines).toHaveLength(1);
    // Each fact once: a JSON line with a repeated key would be read differently by different tools.
    expect(gateway.logs.at(-1)!.match(/"upstreamCalls"/g)).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 30,
      req: { id: 'req-42', method: 'GET', url: '/api/staffs/0/1' },
      res: { statusCode: 200 },
      legacyMethod: 'staffs',
      upstreamCalls: [{ path: '/staff', outcome: 200, ms: expect.any(Number) }],
      cacheHits: 0,
      responseTime: expect.any(Number),
      msg: 'request completed',
    });
  });

  it('gives every request an id of its own when the caller sends none (or a bad one)', async () => {
    const a = await get(gateway.url, '/api/staffs');
    const b = await get(gateway.url, '/api/staffs', { 'x-request-id': 'bad id with spaces' });
    expect(a.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(b.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
  });

  it('names the stable code of every error reply in its line (a 502 included)', async () => {
    const unreachable = await startTestGateway({ UPSTREAM_URL: 'http://127.0.0.1:9', UPSTREAM_TIMEOUT_MS: '1000' });
    try {
      expect((await get(unreachable.url, '/api/staffs/0/1')).status).toBe(502);
      expect((await get(unreachable.url, '/api/staffs/x')).status).toBe(400);
      const lines = unreachable.logs.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.req !== undefined);
      expect(lines.map((l) => [(l.res as { statusCode: number }).statusCode, l.errorCode])).toEqual([
        [502, 'LGW_UPSTREAM_UNREACHABLE'],
        [400, 'LGW_BAD_REQUEST'],
      ]);
    } finally {
      await unreachable.close();
    }
    const ok = await get(gateway.url, '/api/staffs/0/1');
    expect(ok.status).toBe(200);
    expect(requestLines().at(-1)).not.toHaveProperty('errorCode');
  });

  it('never writes a key, token or password', async () => {
    await get(gateway.url, '/api/staffs', { 'x-api-key': 'HEADER-SECRET-KEY' });
    await get(gateway.url, '/api/staffs?api_key=QUERY-SECRET-KEY');
    await get(gateway.url, '/api/client?API_KEY=QUERY-SECRET-KEY&username=x');
    await get(gateway.url, '/api/v1/clients?api%5Fkey=QUERY-SECRET-KEY&token=tok_SECRET_CARD&password=hunter2-SECRET');
    await get(gateway.url, '/api/staff/abc?password2=hunter2-SECRET');
    const all = gateway.logs.join('\n');
    for (const secret of SECRETS) expect(all).not.toContain(secret);
    expect(all).toContain('api_key=[REDACTED]');
    expect(all).toContain('token=[REDACTED]');
  });
});
