// Replay noise, end to end: recordings made by a real gateway with RECORD_FILE over the embedded sandbox,
// replayed through a real gateway. A payment whose secrets were redacted is not comparable and never
// reaches v1 (a fake v1 in front of the sandbox records what it received); the default rules make the
// payment ids the service makes new on every payment equal; a read after a replayed payment that created a
// client differs by the replay's doing, counted apart; a record whose keys moved is a key-order difference.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_KEYS, startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { startTestGateway } from '../helpers/gateway.js';
import { startRecordingUpstream, type RecordingUpstream } from '../helpers/recording-upstream.js';
import { runReplayCaptured, type ReplayRun } from './replay-command.js';

const KEY = SANDBOX_KEYS.primary;
const dir = mkdtempSync(path.join(os.tmpdir(), 'replay-noise-'));
let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0 });
});
afterAll(async () => {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Run extends ReplayRun {
  report: {
    summary: Record<string, unknown>;
    entries: Array<{ method: string; url: string; outcome: string; reason?: string; diffs: Array<Record<string, unknown>> }>;
  };
}

async function replay(file: string, options: Record<string, unknown>): Promise<Run> {
  const json = path.join(dir, `${path.basename(file)}-${Math.random().toString(36).slice(2)}.json`);
  const run = await runReplayCaptured(file, { apiKey: KEY, json, ...options }, { CACHE_TTL_MS: '0' });
  return { ...run, report: JSON.parse(readFileSync(json, 'utf8')) as Run['report'] };
}

/** Makes the calls through a gateway that records them (RECORD_FILE) over the sandbox; the file's path. */
async function record(name: string, calls: (base: string) => Promise<void>): Promise<string> {
  const file = path.join(dir, name);
  const gateway = await startTestGateway({ UPSTREAM_URL: sandbox.url, RECORD_FILE: file, CACHE_TTL_MS: '0' });
  try {
    await calls(gateway.url);
  } finally {
    await gateway.close();
  }
  return file;
}

async function pay(base: string, fields: Record<string, string>): Promise<{ code: number; response: string }> {
  const reply = await fetch(`${base}/api/payment`, { method: 'POST', headers: { 'x-api-key': KEY }, body: new URLSearchParams(fields) });
  return (await reply.json()) as { code: number; response: string };
}

const NEW_CLIENT = { first_name: 'Noor', last_name: 'Haddad', state: 'NY', country: 'US', status: 'active', revenue_amount: '20.00', send_email: '0' };

/** A v1 that forwards every call to the sandbox and records what it received. */
async function forwardingV1(): Promise<RecordingUpstream> {
  return startRecordingUpstream(async (req, res) => {
    const headers: Record<string, string> = {};
    for (const name of ['x-api-key', 'content-type', 'idempotency-key']) {
      const value = req.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    const reply = await fetch(`${sandbox.url}${req.url}`, { method: req.method, headers, body: req.body.length > 0 ? new Uint8Array(req.body) : undefined });
    res.writeHead(reply.status, { 'content-type': reply.headers.get('content-type') ?? 'application/json' });
    res.end(Buffer.from(await reply.arrayBuffer()));
  });
}

describe('replay of a RECORD_FILE recording with redacted secrets', () => {
  let file: string;
  beforeAll(async () => {
    file = await record('redacted.jsonl', async (base) => {
      await fetch(`${base}/api/staff/1`, { headers: { 'x-api-key': KEY } });
      expect(await pay(base, { client_id: '1', revenue_amount: '5.00', send_email: '0', token: 'tok_declined' })).toMatchObject({ code: 11 });
      expect(await pay(base, { ...NEW_CLIENT, password: 'pw-Secret-1', password2: 'pw-Secret-1' })).toMatchObject({ code: 12 });
      expect(await pay(base, { client_id: '1', revenue_amount: '7.00', send_email: '0' })).toMatchObject({ code: 12 });
    });
  });

  it('reports a payment whose token or passwords were redacted as not comparable, naming them, and never sends it', async () => {
    const v1 = await forwardingV1();
    let run: Run;
    try {
      run = await replay(file, { upstream: v1.url, includeWrites: true });
    } finally {
      await v1.close();
    }
    expect(run.report.entries.map((e) => [e.method, new URL(e.url).pathname, e.outcome, e.reason])).toEqual([
      ['GET', '/api/staff/1', 'identical', undefined],
      ['POST', '/api/payment', 'not-comparable', 'redacted in the recording: token'],
      ['POST', '/api/payment', 'not-comparable', 'redacted in the recording: password, password2'],
      // Sent, and equal to the recorded reply although the service gave it another payment id.
      ['POST', '/api/payment', 'identical', undefined],
    ]);
    // v1 saw the read and the one payment without secrets: no client was created, no card charged.
    const seen = v1.received.map((r) => `${r.method} ${r.url.split('?')[0]}`);
    expect(seen.filter((s) => s.startsWith('POST'))).toEqual(['POST /api/v1/payments']);
    expect(seen).toContain('GET /api/v1/staff/1');
    expect(v1.received.map((r) => r.body.toString('utf8')).join('\n')).not.toMatch(/REDACTED|tok_declined|token/);
    expect(run.report.summary).toMatchObject({ total: 4, identical: 2, different: 0, notComparable: 2 });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^method +total +identical +different +skipped +errors +not-comparable$/m);
    expect(run.stdout).toMatch(/^payment +3 +1 +0 +0 +0 +2$/m);
    expect(run.stdout).toContain('0 of 4 entries differ or failed (allowed: 0) (not counted: 2 not comparable): exit 0');
  });

  it('owes the equal payment to the default rules; without --include-writes the redacted payments stay not comparable', async () => {
    const run = await replay(file, { upstream: sandbox.url, includeWrites: true, defaultRules: false });
    const payment = run.report.entries[3];
    expect(payment?.outcome).toBe('different');
    expect(payment?.diffs).toEqual([
      { path: '$.response', kind: 'value', expected: expect.stringMatching(/^payment added \(payment id \d+\)$/), actual: expect.stringMatching(/^payment added \(payment id \d+\)$/) },
    ]);
    expect(run.code).toBe(1);
    const reads = await replay(file, { upstream: sandbox.url });
    expect(reads.report.entries.map((e) => e.outcome)).toEqual(['identical', 'not-comparable', 'not-comparable', 'skipped']);
  });
});

describe('replay of a read after a replayed payment that created a client', () => {
  it('keeps the recorded order and marks the read\'s data differences as caused by the replay, not counted', async () => {
    let total = '';
    const file = await record('write-then-read.jsonl', async (base) => {
      expect(await pay(base, NEW_CLIENT)).toMatchObject({ code: 12 });
      total = ((await (await fetch(`${base}/api/clients/0/5`, { headers: { 'x-api-key': KEY } })).json()) as { total: string }).total;
    });
    const before = sandbox.state.requests.length;
    const run = await replay(file, { upstream: sandbox.url, includeWrites: true, concurrency: '8' });
    const [payment, clients] = run.report.entries;
    expect(payment).toMatchObject({ outcome: 'identical' });
    // The replayed payment created a second client: one more than recorded, by the replay's doing.
    expect(clients).toMatchObject({ outcome: 'different', diffs: [{ path: '$.total', kind: 'value', expected: total, actual: String(Number(total) + 1), cause: 'replay' }] });
    expect(run.report.summary).toMatchObject({ total: 2, identical: 1, different: 0, causedByReplay: 1, kinds: { value: 0 } });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('warning: 1 replayed read (clients) read what an earlier replayed write changed (v1 clients; 1 write in all)');
    expect(run.stdout).toContain('0 of 2 entries differ or failed (allowed: 0) (not counted: 1 by the replay): exit 0');
    // The list was read only once the payment was done.
    const calls = sandbox.state.requests.slice(before).map((r) => `${r.method} ${r.path}`);
    expect(calls.indexOf('GET /api/v1/clients')).toBeGreaterThan(calls.indexOf('POST /api/v1/payments'));
    expect(calls.indexOf('POST /api/v1/payments')).toBeGreaterThan(calls.indexOf('POST /api/v1/clients'));
  });
});

describe('replay of a record whose keys moved', () => {
  it('reports key-order at the record, with both key lists, unless --no-check-key-order', async () => {
    const file = await record('key-order.jsonl', async (base) => {
      await fetch(`${base}/api/staff/1`, { headers: { 'x-api-key': KEY } });
    });
    const line = JSON.parse(readFileSync(file, 'utf8')) as { response: { body: { response: Record<string, unknown> } } };
    const gatewayKeys = Object.keys(line.response.body.response);
    // An old integration's view of the record: its first two fields the other way round.
    const [first, second, ...rest] = gatewayKeys as [string, string, ...string[]];
    const recordedKeys = [second, first, ...rest];
    line.response.body.response = Object.fromEntries(recordedKeys.map((k) => [k, line.response.body.response[k]]));
    const moved = path.join(dir, 'moved.jsonl');
    writeFileSync(moved, JSON.stringify(line) + '\n');

    const run = await replay(moved, { upstream: sandbox.url });
    expect(run.report.entries[0]).toMatchObject({ outcome: 'different', diffs: [{ path: '$.response', kind: 'key-order', expected: recordedKeys, actual: gatewayKeys }] });
    expect(run.report.summary).toMatchObject({ different: 1, kinds: { 'key-order': 1 } });
    expect(run.code).toBe(1);
    const off = await replay(moved, { upstream: sandbox.url, checkKeyOrder: false });
    expect(off.report.entries[0]?.outcome).toBe('identical');
    expect(off.code).toBe(0);
  });
});
