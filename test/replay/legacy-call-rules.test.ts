// The replay names and guards recorded calls by the gateway's own rules (src/shared/request-target.ts):
// the legacy method it reports is the one the gateway serves, a path the gateway passes through is
// `(other)`, and the payment it guards is the one the gateway would run. Shown on the rules themselves,
// then end to end: a replay through the in-process gateway in front of a recording fake upstream, where
// what reached the upstream tells how the gateway read each call.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { legacyMethodOf } from '../../src/replay/recordings/legacy-method.js';
import { runReplayCommand } from '../../src/replay/run/run-command.js';
import { replayGateway } from '../../src/commands/replay-gateway.js';
import { isPaymentCall, recordedPath } from '../../src/replay/run/safety.js';
import { isPaymentTarget, parseLegacyPath } from '../../src/shared/request-target.js';
import { json, startRecordingUpstream, v1List, type RecordingUpstream } from '../helpers/recording-upstream.js';

describe('the replay names a call as the gateway reads it', () => {
  const names: Array<[string, string]> = [
    ['/api/clients/0/5', 'clients'],
    ['https://old.example.com/api/clients/0/5?api_key=k', 'clients'],
    ['/api/clients/0/5/', 'clients'],
    ['/api/client?email=a@b.example', 'client'],
    ['/api/meetourteam', 'meetourteam'],
    ['/api/v1/clients/7', 'v1'],
    // Not a legacy method to the gateway (it passes these through): not lower-cased, not decoded here.
    ['/api/Clients/0/5', '(other)'],
    ['/API/clients/0/5', '(other)'],
    ['/api/cl%69ents/0/5', '(other)'],
    ['/api/clients%2F0/5', '(other)'],
    ['/api/', '(other)'],
    ['/api', '(other)'],
    ['/ondemand/5/agent/agent', 'ondemand'],
    ['/ondemand', 'ondemand'],
    ['/assets/app.js', '(other)'],
    ['https://cdn.example.com/', '(other)'],
    ['data:text/plain,hi', '(other)'],
  ];

  it.each(names)('%s is %s', (url, name) => {
    expect(legacyMethodOf(url)).toBe(name);
  });

  it('gives every /api/ call the method parseLegacyPath gives its path, or (other) when it gives none', () => {
    for (const [url] of names) {
      const p = recordedPath(url);
      if (p === undefined || !p.startsWith('/api/')) continue;
      expect(legacyMethodOf(url), url).toBe(parseLegacyPath(p)?.method ?? '(other)');
    }
  });

  it('guards as the payment exactly the calls isPaymentTarget calls the payment', () => {
    const calls: Array<[string, string]> = [
      ['POST', '/api/payment'],
      ['POST', '/api/payment/'],
      ['POST', 'https://old.example.com/api/payment?x=1'],
      ['POST', '/API/PAYMENT'],
      ['POST', '/api/Payment'],
      ['POST', '/api/payment/1'],
      ['PUT', '/api/payment'],
      ['GET', '/api/payment'],
    ];
    for (const [method, url] of calls) {
      expect(isPaymentCall(method, url), `${method} ${url}`).toBe(isPaymentTarget(method, recordedPath(url) ?? ''));
    }
    expect(isPaymentCall('POST', '/API/PAYMENT')).toBe(false);
  });
});

interface ReportEntry {
  url: string;
  method: string;
  legacyMethod: string;
  outcome: string;
  reason?: string;
}

describe('the replay and the in-process gateway agree on each call', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'replay-rules-'));
  let upstream: RecordingUpstream;
  const recording = path.join(dir, 'calls.jsonl');
  const reply = { status: 'success', total: '0', response: [] };
  const lines = [
    { method: 'GET', url: 'https://old.example.com/api/clients/0/5' },
    { method: 'GET', url: 'https://old.example.com/api/Clients/0/5' },
    { method: 'GET', url: 'https://old.example.com/api/cl%69ents/0/5' },
    { method: 'POST', url: 'https://old.example.com/API/PAYMENT', body: 'client_id=1&revenue_amount=5&send_email=0' },
  ].map(({ method, url, body }) =>
    JSON.stringify({
      request: { method, url, headers: { 'content-type': 'application/x-www-form-urlencoded' }, ...(body ? { body } : {}) },
      response: { status: 200, body: reply },
    }),
  );

  beforeAll(async () => {
    writeFileSync(recording, lines.join('\n') + '\n');
    upstream = await startRecordingUpstream((req, res) => {
      if (req.url.startsWith('/api/v1/clients')) return json(res, 200, v1List([]));
      return json(res, 410, { error: { code: 'gone', message: 'the unversioned API is retired' } });
    });
  });
  afterAll(async () => {
    await upstream.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function replay(name: string, options: Record<string, unknown>): Promise<{ entries: ReportEntry[] }> {
    const report = path.join(dir, name);
    let stderr = '';
    const code = await runReplayCommand(
      recording,
      { upstream: upstream.url, apiKey: 'replay-test-key', json: report, ...options },
      { stdout: { write: () => true }, stderr: { write: (t: string) => (stderr += t) }, env: {} },
      replayGateway,
    );
    // The passed-through calls get the fake upstream's 410: exit 1, never 2 (the run went through).
    expect(code, stderr).toBe(1);
    return { entries: (JSON.parse(readFileSync(report, 'utf8')) as { entries: ReportEntry[] }).entries };
  }

  it('names mapped methods only where the gateway translates the call, and passes the others through', async () => {
    upstream.received.length = 0;
    const { entries } = await replay('reads.json', {});
    expect(entries.map((e) => e.legacyMethod)).toEqual(['clients', '(other)', '(other)', '(other)']);
    const reached = upstream.received.map((r) => `${r.method} ${r.url}`);
    // `clients` was translated to v1; the two other spellings reached the upstream unchanged.
    expect(reached.filter((r) => r.startsWith('GET /api/v1/clients?'))).toHaveLength(1);
    expect(reached).toContain('GET /api/Clients/0/5');
    expect(reached).toContain('GET /api/cl%69ents/0/5');
    // Another spelling of the payment path is not the payment, but it is still a write: skipped.
    expect(entries[3]).toMatchObject({ method: 'POST', outcome: 'skipped', reason: 'write' });
    expect(reached.some((r) => r.startsWith('POST'))).toBe(false);
  });

  it('replays /API/PAYMENT with --include-writes as the gateway serves it: passed through, no payment made', async () => {
    upstream.received.length = 0;
    const { entries } = await replay('writes.json', { includeWrites: true });
    expect(entries[3]).toMatchObject({ method: 'POST', legacyMethod: '(other)', outcome: 'different' });
    const posts = upstream.received.filter((r) => r.method === 'POST').map((r) => r.url);
    expect(posts).toEqual(['/API/PAYMENT']);
  });
});
