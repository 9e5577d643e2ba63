// The passthrough never leaves UPSTREAM_URL's path prefix: a path with a `.` or `..` segment, raw or
// percent-encoded in any case, or reached through an encoded slash or backslash, is answered with a
// legacy 400 before any upstream call (so the gateway's own UPSTREAM_API_KEY is never sent with it).
// Ordinary paths, dots inside a segment and dots in the query still pass through, under the prefix.
// Gateway + recording fake upstream on loopback, UPSTREAM_URL with a path prefix; raw sockets, since
// fetch would resolve the dot segments before sending.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { rawRequest } from '../helpers/raw-http.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { json, startRecordingUpstream, type RecordingUpstream } from '../helpers/recording-upstream.js';

let upstream: RecordingUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startRecordingUpstream();
  gateway = await startTestGateway({ UPSTREAM_URL: `${upstream.url}/prefix`, UPSTREAM_API_KEY: 'operator-key' });
});
afterAll(async () => {
  await gateway.close();
  await upstream.close();
});
beforeEach(() => {
  upstream.received.length = 0;
  upstream.handle((_req, res) => json(res, 200, { ok: true }));
});

/** Sends one raw request (Connection: close): fetch would resolve the dot segments before sending. */
function raw(method: string, target: string, body = ''): Promise<{ status: number; body: string }> {
  const framing = body === '' ? '' : `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`;
  return rawRequest(gateway.port, `${method} ${target} HTTP/1.1\r\nHost: gateway.test\r\n${framing}Connection: close\r\n\r\n${body}`);
}

const REFUSED = '{"status":"failure","response":"the request path must not hold dot segments"}';

describe('the passthrough stays under UPSTREAM_URL\'s path prefix', () => {
  it.each([
    ['..', '/api/v1/../x'],
    ['.. at the end', '/api/v1/clients/..'],
    ['.. before a query', '/api/v1/..?limit=1'],
    ['.. at the root', '/../api/v1/clients'],
    ['.', '/assets/./x.png'],
    ['%2e%2e', '/api/v1/%2e%2e/x'],
    ['%2E%2e', '/api/v1/%2E%2e/x'],
    ['.%2E', '/api/v1/.%2E/x'],
    ['%2e%2e at the root', '/%2e%2e/%2e%2e/etc/passwd'],
    ['%2e', '/assets/%2e/x.png'],
    ['..%2f', '/api/v1/..%2f..%2fadmin'],
    ['..%2F', '/api/v1/..%2F..%2Fadmin'],
    ['%2f..%2f', '/api/v1/clients%2f..%2fadmin'],
    ['%2e%2e%5c', '/api/v1/%2e%2e%5cadmin'],
    ['..%5C', '/api/v1/..%5Cadmin'],
    ['a raw backslash', '/api/v1/..\\admin'],
    ['..;', '/api/v1/..;/admin'],
  ])('refuses %s with a legacy 400 and no upstream call', async (_name, target) => {
    const reply = await raw('GET', target);
    expect(reply).toEqual({ status: 400, body: REFUSED });
    expect(upstream.received).toEqual([]);
  });

  it('refuses a write with a body, and a call carrying its own key, the same way', async () => {
    expect(await raw('POST', '/api/v1/../payments', '{"amount":1}')).toEqual({ status: 400, body: REFUSED });
    expect(await raw('GET', '/api/v1/%2e%2e/clients?api_key=CALLER-KEY')).toEqual({ status: 400, body: REFUSED });
    expect(upstream.received).toEqual([]);
  });

  it('names the refusal in the log line, without the path', async () => {
    const before = gateway.logs.length;
    await raw('GET', '/api/v1/%2e%2e/SECRET-PATH-NAME');
    const lines = gateway.logs.slice(before).map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.req !== undefined);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 40, res: { statusCode: 400 }, legacyMethod: 'passthrough', errorCode: 'LGW_BAD_REQUEST', upstreamCalls: [] });
  });

  it.each([
    '/api/v1/clients?limit=2&status=active',
    '/api/v1/clients?next=../../admin&x=%2e%2e',
    '/assets/.well-known/a..b/x.png',
    '/assets/v1.2/...',
    '/api/clients%2F0',
    '/ondemand/stu-1/4/5',
  ])('still passes %s through, under the prefix, with the key', async (target) => {
    const reply = await raw('GET', target);
    expect(reply).toEqual({ status: 200, body: '{"ok":true}' });
    expect(upstream.received).toHaveLength(1);
    expect(upstream.received[0]).toMatchObject({ method: 'GET', url: `/prefix${target}` });
    expect(upstream.received[0]!.headers['x-api-key']).toBe('operator-key');
  });
});
