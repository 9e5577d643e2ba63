// Input limits and leaks: request size limits per route (declared and streamed), request targets that
// could name another host, malformed API keys and oversized query strings answered 400 before any
// upstream call; no X-Powered-By, stack trace or upstream address in any reply; the upstream only ever
// sees its own host. Gateway + recording fake upstream on loopback, raw sockets where fetch would tidy up.
import net from 'node:net';
import http from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { json, startRecordingUpstream, v1List, type RecordingUpstream } from '../helpers/recording-upstream.js';
import { fetchText, startHardenedGateway, type HardenedGateway } from './hardening-harness.js';

let upstream: RecordingUpstream;
let gateway: HardenedGateway;

beforeAll(async () => {
  upstream = await startRecordingUpstream();
  gateway = await startHardenedGateway({ UPSTREAM_URL: upstream.url, UPSTREAM_API_KEY: 'operator-key' });
});
afterAll(async () => {
  await gateway.close();
  await upstream.close();
});
beforeEach(() => {
  upstream.received.length = 0;
  upstream.handle((_req, res) => {
    res.setHeader('x-powered-by', 'PHP/5.6');
    json(res, 200, v1List([{ object: 'staff', id: 1, first_name: 'Ann' }]));
  });
});

/** Sends raw bytes, reads until the server closes or answers one reply; returns the status line and head. */
function raw(bytes: string): Promise<{ status: number; head: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(gateway.port, '127.0.0.1');
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      text += chunk;
      const end = text.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: (\d+)/i.exec(text);
      if (end >= 0 && length && text.length >= end + 4 + Number(length[1])) socket.destroy();
    });
    socket.on('close', () => {
      const end = text.indexOf('\r\n\r\n');
      resolve({ status: Number(text.slice(9, 12)), head: text.slice(0, end), body: text.slice(end + 4) });
    });
    socket.on('error', reject);
    socket.write(bytes, 'latin1');
  });
}

describe('request targets', () => {
  it.each([
    ['an absolute URL', 'GET http://evil.example/api/v1/clients HTTP/1.1'],
    ['a protocol-relative path', 'GET //evil.example/api/v1/clients HTTP/1.1'],
    ['a backslash protocol-relative path', 'GET /\\evil.example/api/v1/clients HTTP/1.1'],
  ])('refuses %s with a legacy 400 and no upstream call', async (_name, line) => {
    const reply = await raw(`${line}\r\nHost: evil.example\r\n\r\n`);
    expect(reply.status).toBe(400);
    expect(upstream.received).toEqual([]);
  });

  it('closes a CONNECT tunnel request without an answer or an upstream call', async () => {
    const reply = await raw('CONNECT evil.example:443 HTTP/1.1\r\nHost: evil.example:443\r\n\r\n');
    expect(reply.head).toBe('');
    expect(upstream.received).toEqual([]);
  });

  it('refuses a query string with too many parameters', async () => {
    const query = Array.from({ length: 150 }, (_, i) => `p${i}=1`).join('&');
    for (const path of [`/api/staffs?${query}`, `/api/v1/clients?${query}`]) {
      const reply = await fetchText(`${gateway.url}${path}`);
      expect(reply.status).toBe(400);
      expect(JSON.parse(reply.text)).toEqual({ status: 'failure', response: 'the query string has too many parameters' });
    }
    expect(upstream.received).toEqual([]);
  });

  it('passes a path through byte for byte, `//`, `http:/` and backslashes included', async () => {
    for (const path of ['/assets//a.png', '/ondemand/http:/x', '/assets/a\\b@c']) {
      upstream.received.length = 0;
      await raw(`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      expect(upstream.received.map((r) => r.url)).toEqual([path]);
    }
  });

  it('applies the passthrough rules to a request with Expect: 100-continue too', async () => {
    await raw(
      'POST /assets//up HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nConnection: close, x-hop\r\nX-Hop: 1\r\nContent-Length: 2\r\n\r\n{}',
    );
    expect(upstream.received).toHaveLength(1);
    expect(upstream.received[0]!.url).toBe('/assets//up');
    expect(upstream.received[0]!.headers['x-hop']).toBeUndefined();
    expect(upstream.received[0]!.headers['x-api-key']).toBe('operator-key');
  });

  it('passes the Host of the upstream, never the one the caller sent', async () => {
    await raw(`GET /api/v1/clients HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n`);
    expect(upstream.received[0]!.headers.host).toBe(new URL(upstream.url).host);
  });
});

describe('API keys', () => {
  it.each([
    ['a header with a space', { 'x-api-key': 'two words' }, ''],
    ['a header of 300 characters', { 'x-api-key': 'k'.repeat(300) }, ''],
    ['a query key with a line break', {}, '?api_key=a%0D%0AX-Injected:%201'],
    ['a query key with a NUL', {}, '?api_key=a%00b'],
  ])('refuses %s with a legacy 400 on every route, before any upstream call', async (_name, headers, query) => {
    for (const path of ['/api/staffs', '/api/v1/clients', '/assets/x.png']) {
      const reply = await fetchText(`${gateway.url}${path}${query}`, { headers });
      expect(reply.status).toBe(400);
      expect(JSON.parse(reply.text)).toEqual({ status: 'failure', response: 'the API key is malformed' });
    }
    const payment = await fetchText(`${gateway.url}/api/payment${query}`, { method: 'POST', headers, body: new URLSearchParams({ client_id: '1' }) });
    expect(payment.status).toBe(400);
    expect(upstream.received).toEqual([]);
  });
});

describe('request size limits', () => {
  it('refuses a declared body over 64 KB on a translated route (413), without an upstream call', async () => {
    const reply = await raw(`GET /api/staffs HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n`);
    expect(reply.status).toBe(413);
    expect(JSON.parse(reply.body)).toEqual({ status: 'failure', response: 'the request body is larger than 65536 bytes' });
    expect(upstream.received).toEqual([]);
  });

  it('refuses a declared body over 16 MB on the passthrough (413), without an upstream call', async () => {
    const reply = await raw(`PUT /api/v1/uploads HTTP/1.1\r\nHost: x\r\nContent-Length: ${20 * 1024 * 1024}\r\n\r\n`);
    expect(reply.status).toBe(413);
    expect(upstream.received).toEqual([]);
  });

  it('cuts a streamed (chunked) passthrough body at 16 MB with a 413', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(`${gateway.url}/api/v1/uploads`, { method: 'PUT', headers: { 'transfer-encoding': 'chunked' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      // Writing stops at the answer; a reset while writing after it is expected.
      req.on('error', (err) => (req.writableEnded ? undefined : reject(err)));
      const chunk = Buffer.alloc(256 * 1024, 1);
      let sent = 0;
      const pump = (): void => {
        while (sent < 20 * 1024 * 1024) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
        req.end();
      };
      req.once('response', () => req.destroy());
      pump();
    });
    expect(status).toBe(413);
  });

  it('refuses a payment body over its limit in the payment shape', async () => {
    const reply = await fetchText(`${gateway.url}/api/payment`, { method: 'POST', body: new URLSearchParams({ notes: 'x'.repeat(300 * 1024) }) });
    expect(reply.status).toBe(413);
    expect(JSON.parse(reply.text)).toMatchObject({ status: 'failure', code: 0 });
  });
});

describe('nothing leaks', () => {
  it('no reply carries X-Powered-By, a stack trace or the upstream address', async () => {
    const replies = [
      await fetchText(`${gateway.url}/api/staffs`),
      await fetchText(`${gateway.url}/api/staffs/x`),
      await fetchText(`${gateway.url}/api/v1/clients`),
      await fetchText(`${gateway.url}/healthz`),
      await fetchText(`${gateway.url}/api/%E0%A4%A`),
    ];
    // And a gateway whose upstream is gone: its own 502s.
    const gone = await startRecordingUpstream();
    const orphan = await startHardenedGateway({ UPSTREAM_URL: gone.url, UPSTREAM_API_KEY: 'k' });
    await gone.close();
    replies.push(await fetchText(`${orphan.url}/api/staffs/1/1`), await fetchText(`${orphan.url}/assets/a.png`));
    await orphan.close();
    for (const reply of replies) {
      expect(reply.headers.get('x-powered-by')).toBeNull();
      expect(reply.text).not.toMatch(/at .+\.(js|ts):\d+|node_modules|\/src\/|127\.0\.0\.1/);
      expect(reply.text).not.toContain(new URL(upstream.url).port);
      expect(reply.text).not.toContain(new URL(gone.url).port);
    }
    expect(replies.slice(-2).map((r) => r.status)).toEqual([502, 502]);
  });
});
