// Request bodies: JSON only, 256 KB at most, checked on Content-Length and on the bytes that arrive.
import { describe, expect, it } from 'vitest';
import { call, errorText, PRIMARY, useSandbox } from './harness.js';

const sandbox = useSandbox();
const LIMIT = 256 * 1024;
const TOO_LARGE = errorText('payload_too_large', 'request body is over 256 KB');

/** A JSON client body padded (in `notes`) to exactly `bytes` bytes. */
function clientBodyOfSize(bytes: number, username: string): string {
  const base = JSON.stringify({ first_name: 'Big', last_name: 'Body', status: 'active', username, notes: '' });
  return base.replace('"notes":""', `"notes":"${'n'.repeat(bytes - base.length)}"`);
}

describe('request body', () => {
  it('accepts a body of exactly 256 KB', async () => {
    const body = clientBodyOfSize(LIMIT, 'exactly-256k');
    expect(Buffer.byteLength(body)).toBe(LIMIT);
    const r = await call(sandbox().url, '/api/v1/clients', { method: 'POST', headers: { ...PRIMARY, 'Content-Type': 'application/json' }, body });
    // Accepted by the size check; notes is then too long as stored, which names the field.
    expect(r.text).toBe(errorText('invalid_request', 'notes is too long (at most 65535 characters as stored)'));
  });

  it('answers 413 payload_too_large when Content-Length is over 256 KB', async () => {
    const before = sandbox().state.clients.length;
    const r = await call(sandbox().url, '/api/v1/clients', {
      method: 'POST',
      headers: { ...PRIMARY, 'Content-Type': 'application/json' },
      body: clientBodyOfSize(LIMIT + 1, 'one-byte-over'),
    });
    expect(r.status).toBe(413);
    expect(r.text).toBe(TOO_LARGE);
    expect(sandbox().state.clients).toHaveLength(before);
  });

  it('answers 413 when a chunked body without Content-Length grows over 256 KB', async () => {
    const chunk = new TextEncoder().encode('x'.repeat(64 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 6) controller.close();
        else {
          sent += 1;
          controller.enqueue(chunk);
        }
      },
    });
    const r = await call(sandbox().url, '/api/v1/payments', {
      method: 'POST',
      headers: { ...PRIMARY, 'Content-Type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(r.status).toBe(413);
    expect(r.text).toBe(TOO_LARGE);
  });

  it('answers 400 invalid_request when the Content-Type is not application/json', async () => {
    for (const contentType of ['application/x-www-form-urlencoded', 'text/plain', 'multipart/form-data; boundary=x']) {
      const r = await call(sandbox().url, '/api/v1/payments', {
        method: 'POST',
        headers: { ...PRIMARY, 'Content-Type': contentType },
        body: 'client_id=1&amount=5',
      });
      expect(r.status, contentType).toBe(400);
      expect(r.text).toBe(errorText('invalid_request', 'Content-Type must be application/json'));
    }
  });

  it('accepts application/json with a charset parameter', async () => {
    const r = await call(sandbox().url, '/api/v1/payments', {
      method: 'POST',
      headers: { ...PRIMARY, 'Content-Type': 'Application/JSON; charset=utf-8' },
      body: JSON.stringify({ client_id: 1, amount: 5 }),
    });
    expect(r.status).toBe(201);
  });

  it('answers 400 invalid_request for a body that is not JSON or not a JSON object', async () => {
    const cases: [string, string][] = [
      ['{"client_id": 1,', 'request body is not valid JSON'],
      ['', 'request body is not valid JSON'],
      ['[1,2]', 'request body must be a JSON object'],
      ['"text"', 'request body must be a JSON object'],
      ['null', 'request body must be a JSON object'],
    ];
    for (const [body, message] of cases) {
      const r = await call(sandbox().url, '/api/v1/clients', { method: 'POST', headers: { ...PRIMARY, 'Content-Type': 'application/json' }, body });
      expect(r.status, body).toBe(400);
      expect(r.text).toBe(errorText('invalid_request', message));
    }
  });

  it('keeps serving after an oversized body', async () => {
    const r = await call(sandbox().url, '/api/v1/clients/1', { headers: PRIMARY });
    expect(r.status).toBe(200);
  });
});
