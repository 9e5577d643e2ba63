// RECORD_FILE through a real gateway: legacy calls (reads and payments) are appended as JSONL with secrets
// redacted; the gateway's own routes and passthrough calls are not; the file replays with `replay`.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { SANDBOX_KEYS, startSandbox } from '../../src/sandbox/index.js';
import { parseJsonExact, stringifyExact, type JsonObject } from '../../src/shared/json-exact.js';
import { startTestGateway } from '../helpers/gateway.js';

const run = promisify(execFile);
const cli = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/cli.js');

describe('RECORD_FILE', () => {
  it('records each legacy call and reply, secrets redacted, in a file replay reads back as identical', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'lgw-record-'));
    const file = path.join(dir, 'calls.jsonl');
    const sandbox = await startSandbox({ port: 0 });
    const gateway = await startTestGateway({ UPSTREAM_URL: sandbox.url, RECORD_FILE: file, CACHE_TTL_MS: '0' });
    try {
      await fetch(`${gateway.url}/api/staffs/0/2?api_key=${SANDBOX_KEYS.primary}`);
      await fetch(`${gateway.url}/api/payment`, {
        method: 'POST',
        headers: { 'x-api-key': SANDBOX_KEYS.primary },
        body: new URLSearchParams({ client_id: '1', revenue_amount: '5.00', send_email: '0', token: 'tok_SECRET_99', password: 'pw-SECRET', password2: 'pw-SECRET' }),
      });
      await fetch(`${gateway.url}/healthz`);
      await fetch(`${gateway.url}/api/v1/clients?limit=1`, { headers: { 'x-api-key': SANDBOX_KEYS.primary } });
    } finally {
      await gateway.close();
    }
    const text = await readFile(file, 'utf8');
    const lines = text.trim().split('\n').map((l) => JSON.parse(l) as { request: { method: string; url: string; body?: unknown }; response: { status: number; body: unknown } });
    expect(lines.map((l) => `${l.request.method} ${new URL(l.request.url, 'http://x').pathname} ${l.response.status}`)).toEqual([
      'GET /api/staffs/0/2 200',
      'POST /api/payment 200',
    ]);
    expect(lines[0]!.request.url).toContain('api_key=[REDACTED]');
    expect(lines[1]!.request.body).toMatchObject({ client_id: '1', token: '[REDACTED]', password: '[REDACTED]', password2: '[REDACTED]' });
    expect(lines[1]!.response.body).toMatchObject({ status: 'success', code: 12 });
    for (const secret of [SANDBOX_KEYS.primary, 'tok_SECRET_99', 'pw-SECRET']) expect(text).not.toContain(secret);

    // The recording replays through a fresh gateway on the same sandbox: the read is identical.
    try {
      const { stdout } = await run(process.execPath, [cli, 'replay', file, '--upstream', sandbox.url, '--api-key', SANDBOX_KEYS.primary], { env: { ...process.env, CACHE_TTL_MS: '0' } });
      expect(stdout).toMatch(/staffs +1 +1 +0 +0 +0/);
      expect(stdout).not.toContain(SANDBOX_KEYS.primary);
    } finally {
      await sandbox.close();
    }
  });

  it('records of each reply the very bytes its caller received: a read, the same read from the reply cache, a read v1 refused, a payment', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'lgw-record-'));
    const file = path.join(dir, 'calls.jsonl');
    const sandbox = await startSandbox({ port: 0 });
    const gateway = await startTestGateway({ UPSTREAM_URL: sandbox.url, RECORD_FILE: file, CACHE_TTL_MS: '60000' });
    const keyed = { headers: { 'x-api-key': SANDBOX_KEYS.primary } };
    const received: { status: number; body: string }[] = [];
    try {
      const calls: [string, RequestInit][] = [
        ['/api/clients/0/3', keyed],
        ['/api/clients/0/3', keyed],
        ['/api/clients/0/3', { headers: { 'x-api-key': 'not-a-key-of-the-sandbox' } }],
        ['/api/payment', { method: 'POST', ...keyed, body: new URLSearchParams({ client_id: '1', revenue_amount: '5.00', send_email: '0' }) }],
      ];
      for (const [at, init] of calls) {
        const reply = await fetch(`${gateway.url}${at}`, init);
        received.push({ status: reply.status, body: Buffer.from(await reply.arrayBuffer()).toString('utf8') });
      }
    } finally {
      await gateway.close();
      await sandbox.close();
    }
    // The second read was the reply cache's bytes.
    expect(gateway.logs.filter((l) => l.includes('"cacheHits":1'))).toHaveLength(1);
    // Read exactly: a number keeps its spelling, so the JSON embedded in a line prints back as it was sent.
    const recorded = (await readFile(file, 'utf8'))
      .trimEnd()
      .split('\n')
      .map((l) => (parseJsonExact(l) as { response: JsonObject }).response)
      .map(({ status, body }) => ({ status, body: typeof body === 'string' ? body : stringifyExact(body!) }));
    expect(recorded).toEqual(received);
    expect(received.map((r) => r.status)).toEqual([200, 200, 401, 200]);
  });
});
