// The runner against a small fake HTTP target: what the target receives (keys replaced, never the
// recorded ones), file order kept under concurrency, errors, rule usage, the budget warning.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { ReportEntry } from '../../src/replay/report/entry.js';
import { parseRules } from '../../src/replay/rules/rules-file.js';
import { runReplay } from '../../src/replay/run/runner.js';
import { replayRunOptions as options } from './run-options.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'replay-runner-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  servers = [];
});

interface Seen {
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

async function fakeTarget(handler: (req: IncomingMessage, res: ServerResponse, body: string) => void): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      seen.push({ url: req.url ?? '', headers: req.headers, body });
      handler(req, res, body);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const line = (url: string, reply: unknown, extra: { method?: string; headers?: Record<string, string>; body?: unknown; status?: number } = {}): string =>
  JSON.stringify({
    request: { method: extra.method ?? 'GET', url, headers: extra.headers ?? {}, ...(extra.body === undefined ? {} : { body: extra.body }) },
    response: { status: extra.status ?? 200, body: reply },
  });

function recording(name: string, lines: string[]): string {
  const p = path.join(dir, name);
  writeFileSync(p, lines.join('\n') + '\n');
  return p;
}


describe('runReplay', () => {
  it('replaces recorded keys with the replay key and never sends or reports the recorded ones', async () => {
    const target = await fakeTarget((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end('{"status":"success","response":"ok"}');
    });
    const file = recording('keys.jsonl', [
      line('https://old.example.com/api/client?id=1&api_key=recorded-query-key', { status: 'success', response: 'ok' }),
      line('/api/staff/1', { status: 'success', response: 'ok' }, { headers: { 'X-API-KEY': 'recorded-header-key', Cookie: 'sid=recorded-cookie' } }),
    ]);
    const entries: ReportEntry[] = [];
    const warnings: string[] = [];
    const result = await runReplay(options(file, target.url), { entry: (e) => void entries.push(e), warning: (l) => void warnings.push(l) });
    expect(result.summary).toMatchObject({ total: 2, identical: 2 });
    expect(target.seen.map((s) => s.url)).toEqual(['/api/client?id=1&api_key=replay-key-0001', '/api/staff/1']);
    expect(target.seen[1]?.headers['x-api-key']).toBe('replay-key-0001');
    expect(target.seen[1]?.headers.cookie).toBeUndefined();
    const everything = JSON.stringify({ entries, warnings, seen: target.seen });
    for (const secret of ['recorded-query-key', 'recorded-header-key', 'recorded-cookie']) expect(everything).not.toContain(secret);
    expect(JSON.stringify(entries)).not.toContain('replay-key-0001');
  });

  it('hands entries over in file order even when replies come back out of order', async () => {
    let held: ServerResponse | undefined;
    const target = await fakeTarget((req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.url === '/api/a') {
        held = res; // answered only once /api/b has been answered
        return;
      }
      res.end('{"n":"b"}');
      held?.end('{"n":"a"}');
    });
    const file = recording('order.jsonl', [line('/api/a', { n: 'a' }), line('/api/b', { n: 'b' })]);
    const order: string[] = [];
    await runReplay(options(file, target.url, { concurrency: 2 }), { entry: (e) => void order.push(e.url) });
    expect(target.seen.map((s) => s.url)).toEqual(['/api/a', '/api/b']);
    expect(order).toEqual(['/api/a', '/api/b']);
  });

  it('reports an unreachable target as error entries, and skipped writes with their reason', async () => {
    const closed = await fakeTarget(() => undefined);
    const url = closed.url;
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
    servers = [];
    const file = recording('errors.jsonl', [
      line('/api/staff/1', { a: 1 }),
      line('/api/payment', { status: 'success', code: 12 }, { method: 'POST', body: 'token=tok_secret_card&revenue_amount=5' }),
      line('/api/v1/clients/1', {}, { method: 'DELETE' }),
    ]);
    const entries: ReportEntry[] = [];
    const result = await runReplay(options(file, url), { entry: (e) => void entries.push(e) });
    expect(result.summary).toMatchObject({ total: 3, errors: 1, skipped: 2, skippedBy: { payment: 1, write: 1 } });
    expect(entries[0]).toMatchObject({ outcome: 'error', error: expect.stringMatching(/ECONNREFUSED/) });
    expect(entries[1]).toMatchObject({ outcome: 'skipped', reason: 'payment' });
    expect(entries[2]).toMatchObject({ outcome: 'skipped', reason: 'write' });
  });

  it('counts in how many entries each rule applied, so unused rules can be reported', async () => {
    const target = await fakeTarget((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end('{"ts":"2","list":[2,1]}');
    });
    const file = recording('rules.jsonl', [line('/api/x', { ts: '1', list: [1, 2] }), line('/api/y', { ts: '1', list: [1, 2] })]);
    const rules = parseRules('ignore:\n  - path: $.ts\n  - path: $.gone\nunordered:\n  - path: $.list\n    methods: [x]\n', 'rules.yaml');
    const result = await runReplay(options(file, target.url, { rules }));
    expect(result.rules).toEqual([
      { rule: 'ignore[0] $.ts', matchedEntries: 2, origin: 'file' },
      { rule: 'ignore[1] $.gone', matchedEntries: 0, origin: 'file' },
      { rule: 'unordered[0] $.list (x)', matchedEntries: 1, origin: 'file' },
    ]);
    expect(result.summary).toMatchObject({ identical: 1, different: 1, kinds: { order: 1 } });
  });

  it('warns with a plan before replaying when a call would exceed the hourly budget', async () => {
    const target = await fakeTarget((_req, res) => res.end(''));
    const file = recording('budget.jsonl', [1, 2, 3].map(() => line('/api/clients/0/10?api_key=budget-secret-key', '')));
    const warnings: string[] = [];
    await runReplay(options(file, target.url, { hourlyBudget: 2 }), { warning: (l) => void warnings.push(l) });
    expect(warnings.join('\n')).toMatch(/exceed the v1 budget of 2 calls per hour[\s\S]*GET \/api\/clients\/0\/10 {2}3 calls[\s\S]*plan: replay with --rate/);
    expect(warnings.join('\n')).not.toContain('budget-secret-key');
  });
});
