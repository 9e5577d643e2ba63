// RECORD_FILE: the recorder middleware writes one redacted JSONL line per call, in the format replay
// reads (a recording replays identical against the same server), and never disturbs the request path.
import { mkdtempSync, rmSync, readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import express from 'express';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { runReplay } from '../../src/replay/run/runner.js';
import { EMPTY_RULE_SET } from '../../src/replay/rules/rules-file.js';
import { createRecorder, type Recorder } from '../../src/gateway/steps/record.js';

interface Line {
  time: string;
  request: { method: string; url: string; headers: Record<string, string>; body?: unknown };
  response: { status: number; headers: Record<string, string>; body?: unknown };
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'replay-recorder-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  servers = [];
});

async function legacyApp(recorder: Recorder): Promise<string> {
  const app = express();
  app.use('/api', recorder.middleware);
  app.get('/api/staff/:id', (req, res) => {
    res.json({ status: 'success', response: { id: req.params.id, first_name: 'Olivia', echoed_key: req.get('x-api-key') ?? null } });
  });
  app.get('/api/text', (_req, res) => {
    res.type('text/plain').write('part one, ');
    res.end('part two');
  });
  app.post('/api/payment', express.urlencoded({ extended: false }), (_req, res) => {
    res.status(200).json({ status: 'success', code: 12, response: 'Payment added' });
  });
  const server = app.listen(0, '127.0.0.1');
  servers.push(server);
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('createRecorder', () => {
  it('appends one redacted line per call, with the reply body as sent', async () => {
    const file = path.join(dir, 'calls.jsonl');
    const recorder = createRecorder(file, { now: () => new Date('2024-03-05T10:00:00Z') });
    const base = await legacyApp(recorder);
    await fetch(`${base}/api/staff/1?api_key=query-secret-123`, { headers: { 'X-API-KEY': 'header-secret-456', Cookie: 'sid=cookie-secret-789' } });
    await fetch(`${base}/api/text`);
    await fetch(`${base}/api/payment`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: 'Bearer bearer-secret-000' },
      body: 'client_id=1&revenue_amount=5.00&send_email=0&token=tok_card_secret_1&password=pass-secret-2&password2=pass-secret-2',
    });
    await recorder.close();

    const text = readFileSync(file, 'utf8');
    for (const secret of ['query-secret-123', 'header-secret-456', 'cookie-secret-789', 'bearer-secret-000', 'tok_card_secret_1', 'pass-secret-2']) {
      expect(text).not.toContain(secret);
    }
    const lines = text.trimEnd().split('\n').map((l) => JSON.parse(l) as Line);
    expect(lines).toHaveLength(3);
    const [staff, plain, payment] = lines;
    expect(staff).toMatchObject({
      time: '2024-03-05T10:00:00.000Z',
      request: { method: 'GET', url: expect.stringMatching(/\/api\/staff\/1\?api_key=\[REDACTED\]$/), headers: { 'x-api-key': '[REDACTED]', cookie: '[REDACTED]' } },
      // The key echoed in the body is scrubbed by value.
      response: { status: 200, body: { status: 'success', response: { id: '1', first_name: 'Olivia', echoed_key: '[REDACTED]' } } },
    });
    expect(staff?.response.headers['content-type']).toMatch(/application\/json/);
    expect(plain?.response.body).toBe('part one, part two');
    expect(payment).toMatchObject({
      request: { method: 'POST', headers: { authorization: '[REDACTED]' }, body: { client_id: '1', token: '[REDACTED]', password: '[REDACTED]', password2: '[REDACTED]' } },
      response: { status: 200, body: { status: 'success', code: 12 } },
    });
  });

  it('writes a file that replay reads and finds identical against the same server', async () => {
    const file = path.join(dir, 'roundtrip.jsonl');
    const recorder = createRecorder(file);
    const base = await legacyApp(recorder);
    for (const id of ['1', '2', '3']) await fetch(`${base}/api/staff/${id}`);
    await fetch(`${base}/api/text`);
    await recorder.close();
    const result = await runReplay({
      file,
      targetUrl: base,
      apiKey: undefined,
      safety: { includeWrites: false, allowProductionWrites: false, targetIsSandboxOrLoopback: true, allPaths: false },
      rules: EMPTY_RULE_SET,
      checkOrder: true,
      concurrency: 2,
      ratePerSecond: undefined,
      timeoutMs: 5000,
      hourlyBudget: 1000,
    });
    expect(result.summary).toMatchObject({ total: 4, identical: 4 });
  });

  it('never fails a request when the file cannot be written, and says so once', async () => {
    const errors: string[] = [];
    const recorder = createRecorder(path.join(dir, 'no-such-dir', 'calls.jsonl'), { onError: (e) => void errors.push(e.message) });
    const base = await legacyApp(recorder);
    const first = await fetch(`${base}/api/staff/1`);
    const second = await fetch(`${base}/api/staff/2`);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(await second.json()).toMatchObject({ response: { id: '2' } });
    await recorder.close();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/cannot write .*calls\.jsonl: ENOENT/);
  });

  it('records a large reply without its body rather than holding it', async () => {
    const file = path.join(dir, 'large.jsonl');
    const recorder = createRecorder(file, { maxBodyBytes: 10 });
    const base = await legacyApp(recorder);
    await fetch(`${base}/api/staff/1`);
    await recorder.close();
    const [line] = readFileSync(file, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as Line);
    expect(line?.response.status).toBe(200);
    expect(line?.response.body).toBeUndefined();
  });
});
