// A request with more than one Host header (in any case) is answered with a legacy 400 on every route
// (translated, payment, passthrough) before any upstream call: Node keeps only the first in req.headers,
// while a proxy in front may have routed by another. Gateway + recording fake upstream on loopback; raw
// sockets, since fetch never sends two Host headers.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { rawRequest } from '../helpers/raw-http.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { json, startRecordingUpstream, v1List, type RecordingUpstream } from '../helpers/recording-upstream.js';

let upstream: RecordingUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startRecordingUpstream((_req, res) => json(res, 200, v1List([{ object: 'staff', id: 1, first_name: 'Ann' }])));
  gateway = await startTestGateway({ UPSTREAM_URL: upstream.url, UPSTREAM_API_KEY: 'operator-key' });
});
afterAll(async () => {
  await gateway.close();
  await upstream.close();
});
beforeEach(() => {
  upstream.received.length = 0;
});

/** Sends the raw request head (and body); every request here says Connection: close. */
const raw = (text: string) => rawRequest(gateway.port, text);

/** A payment that would reach v1 (it passes the local checks), and one that stops at them (code 1). */
const FULL_FORM = 'client_id=1&revenue_amount=10.00&send_email=0';
const LOCAL_FORM = 'revenue_amount=10.00';
const payment = (hosts: string, form: string): string =>
  `POST /api/payment HTTP/1.1\r\n${hosts}Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${form.length}\r\nConnection: close\r\n\r\n${form}`;
const translated = (hosts: string): string => `GET /api/staffs/0/1 HTTP/1.1\r\n${hosts}Connection: close\r\n\r\n`;
const passthrough = (hosts: string): string => `GET /api/v1/clients?limit=1 HTTP/1.1\r\n${hosts}Connection: close\r\n\r\n`;

const REFUSED = { status: 'failure', response: 'the request has more than one Host header' };

describe('more than one Host header', () => {
  it.each([
    ['a translated read', translated],
    ['the payment', (hosts: string) => payment(hosts, FULL_FORM)],
    ['the passthrough', passthrough],
  ])('refuses %s with a legacy 400 and no upstream call', async (_name, request) => {
    const reply = await raw(request('Host: gateway.test\r\nHost: evil.example\r\n'));
    expect(reply.status).toBe(400);
    expect(JSON.parse(reply.body)).toEqual(REFUSED);
    expect(upstream.received).toEqual([]);
  });

  it('counts Host headers whatever their case, and the same value twice too', async () => {
    for (const hosts of ['host: gateway.test\r\nHOST: evil.example\r\n', 'Host: gateway.test\r\nhOsT: gateway.test\r\n', 'Host: a\r\nX-Other: 1\r\nhost: b\r\nHost: c\r\n']) {
      const reply = await raw(`GET /api/v1/clients HTTP/1.1\r\n${hosts}Connection: close\r\n\r\n`);
      expect(reply.status).toBe(400);
      expect(JSON.parse(reply.body)).toEqual(REFUSED);
    }
    expect(upstream.received).toEqual([]);
  });

  it('never names a Host value in the reply or the log line', async () => {
    const before = gateway.logs.length;
    const reply = await raw('GET /api/v1/clients HTTP/1.1\r\nHost: gateway.test\r\nHost: evil-HOST-VALUE.example\r\nConnection: close\r\n\r\n');
    expect(reply.body).not.toContain('evil-HOST-VALUE');
    const lines = gateway.logs.slice(before).map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.req !== undefined);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 40, res: { statusCode: 400 }, legacyMethod: 'rejected', errorCode: 'LGW_BAD_REQUEST' });
    expect(JSON.stringify(lines[0])).not.toContain('evil-HOST-VALUE');
  });

  it('still serves every route with one Host header', async () => {
    const read = await raw(translated('Host: gateway.test\r\n'));
    expect(read.status).toBe(200);
    expect(JSON.parse(read.body)).toMatchObject({ status: 'success', total: '1' });
    expect(upstream.received.map((r) => r.url)).toEqual(['/api/v1/staff?offset=0&limit=1']);

    const paid = await raw(payment('Host: gateway.test\r\n', LOCAL_FORM));
    expect(paid.status).toBe(200);
    expect(JSON.parse(paid.body)).toMatchObject({ status: 'failure', code: 1 });

    upstream.received.length = 0;
    const passed = await raw(passthrough('Host: gateway.test\r\n'));
    expect(passed.status).toBe(200);
    expect(upstream.received.map((r) => r.url)).toEqual(['/api/v1/clients?limit=1']);
  });
});
