// Severities in the replay reports: the pure severity of a difference and of an entry (each kind, the
// payment's outcome, the highest-wins rule), the --max-differences gate (parsed, applied), and, end to end
// through the in-process gateway and the embedded sandbox, a payment recorded as refused (code 8) that the
// gateway now accepts (code 12): a `money` entry, counted, listed first in the JSON and HTML reports, and
// gated by `money=0` but not by `value=10` alone.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReplayDifference } from '../../src/replay/report/replay-difference.js';
import { applyGate, parseDifferenceGate } from '../../src/replay/report/gate.js';
import { buildJsonReport } from '../../src/replay/report/json.js';
import type { ReportEntry } from '../../src/replay/report/entry.js';
import { differenceSeverity, entrySeverity, highestSeverity } from '../../src/replay/report/severity.js';
import { SummaryBuilder } from '../../src/replay/report/summary.js';
import { verdictOf } from '../../src/replay/report/verdict.js';
import { runReplayCaptured } from './replay-command.js';

const d = (kind: ReplayDifference['kind'], path = '$.response.x', extra: Partial<ReplayDifference> = {}): ReplayDifference => ({ path, kind, ...extra });

const entryOf = (index: number, method: string, url: string, diffs: ReplayDifference[]): ReportEntry => ({
  index,
  method,
  url,
  legacyMethod: url.includes('payment') ? 'payment' : 'staff',
  outcome: diffs.length > 0 ? 'different' : 'identical',
  diffs,
});

describe('severity of a difference and of an entry', () => {
  it('names each kind outside a payment', () => {
    expect(differenceSeverity(d('status', 'HTTP status'), false)).toBe('status');
    for (const kind of ['type', 'missing', 'extra'] as const) expect(differenceSeverity(d(kind), false), kind).toBe('shape');
    for (const kind of ['value', 'format'] as const) expect(differenceSeverity(d(kind), false), kind).toBe('value');
    for (const kind of ['order', 'key-order'] as const) expect(differenceSeverity(d(kind), false), kind).toBe('order');
  });

  it("is money for a payment whose legacy code, HTTP status or whole body differs, and only for those", () => {
    expect(differenceSeverity(d('value', '$.code'), true)).toBe('money');
    expect(differenceSeverity(d('type', '$.code'), true)).toBe('money');
    expect(differenceSeverity(d('missing', '$.code'), true)).toBe('money');
    expect(differenceSeverity(d('status', 'HTTP status'), true)).toBe('money');
    expect(differenceSeverity(d('type', '$'), true)).toBe('money');
    expect(differenceSeverity(d('key-order', '$'), true)).toBe('order');
    expect(differenceSeverity(d('value', '$.response'), true)).toBe('value');
    expect(differenceSeverity(d('value', '$.code'), false)).toBe('value');
  });

  it('takes the highest of the differences: money > status > shape > value > order', () => {
    expect(highestSeverity([d('order'), d('value')], false)).toBe('value');
    expect(highestSeverity([d('order'), d('extra'), d('value')], false)).toBe('shape');
    expect(highestSeverity([d('value'), d('status', 'HTTP status'), d('missing')], false)).toBe('status');
    expect(highestSeverity([d('order'), d('value', '$.code'), d('status', 'HTTP status')], true)).toBe('money');
    expect(highestSeverity([], false)).toBeUndefined();
  });

  it('recognises the payment as the replay does (POST /api/payment), and leaves differences of the replay out unless they are all', () => {
    const code = [d('value', '$.code')];
    expect(entrySeverity(entryOf(0, 'POST', 'https://old.example.com/api/payment', code))).toBe('money');
    expect(entrySeverity(entryOf(0, 'post', '/api/payment/', code))).toBe('money');
    expect(entrySeverity(entryOf(0, 'GET', '/api/payment', code))).toBe('value');
    expect(entrySeverity(entryOf(0, 'POST', '/api/payments', code))).toBe('value');
    expect(entrySeverity(entryOf(0, 'GET', '/api/staff/1', [d('extra', '$.a', { cause: 'replay' }), d('order')]))).toBe('order');
    expect(entrySeverity(entryOf(0, 'GET', '/api/staff/1', [d('extra', '$.a', { cause: 'replay' })]))).toBe('shape');
    expect(entrySeverity(entryOf(0, 'GET', '/api/staff/1', []))).toBeUndefined();
  });
});

describe('the --max-differences gate', () => {
  it('parses a total, severities, or both; and says in one line what is wrong', () => {
    expect(parseDifferenceGate('7')).toEqual({ total: 7, bySeverity: {} });
    expect(parseDifferenceGate('money=0,value=10')).toEqual({ bySeverity: { money: 0, value: 10 } });
    expect(parseDifferenceGate('20, money=0')).toEqual({ total: 20, bySeverity: { money: 0 } });
    for (const bad of ['', 'x', '-1', '1.5', 'money=', 'money=x', 'cash=1', 'money=1,money=2', '1,2', 'value=1e3']) {
      const out = parseDifferenceGate(bad);
      expect(typeof out, bad).toBe('string');
      expect(out as string, bad).not.toContain('\n');
    }
    expect(parseDifferenceGate('cash=1')).toMatch(/unknown severity "cash"/);
  });

  it('gates each severity named, and the total when given; failed calls fail a gate with no total', () => {
    const b = new SummaryBuilder();
    b.add(entryOf(0, 'POST', '/api/payment', [d('value', '$.code')]));
    b.add(entryOf(1, 'GET', '/api/staff/1', [d('value')]));
    b.add(entryOf(2, 'GET', '/api/staff/1', [d('order')]));
    const summary = b.result();
    expect(summary.bySeverity).toEqual({ money: 1, status: 0, shape: 0, value: 1, order: 1 });
    expect(applyGate(summary, { bySeverity: { money: 0 } })).toEqual({ exitCode: 1, allowed: 'money 0, failed 0', over: ['money 1 (allowed 0)'] });
    expect(applyGate(summary, { bySeverity: { value: 10 } }).exitCode).toBe(0);
    expect(applyGate(summary, { total: 2, bySeverity: { money: 1 } })).toMatchObject({ exitCode: 1, allowed: '2 in all, money 1' });
    expect(applyGate(summary, { total: 3, bySeverity: {} })).toEqual({ exitCode: 0, allowed: '3', over: [] });
    b.add({ index: 3, method: 'GET', url: '/api/staff/1', legacyMethod: 'staff', outcome: 'error', diffs: [], error: 'ECONNREFUSED' });
    expect(applyGate(b.result(), { bySeverity: { value: 10 } })).toMatchObject({ exitCode: 1, over: ['failed 1 (allowed 0)'] });
    const run = { summary, rules: [], interrupted: false, entriesInFile: 3 };
    expect(verdictOf(run, 3, {}).closing).toBe('3 of 3 entries differ or failed (allowed: 3): exit 0\n');
    expect(verdictOf(run, { bySeverity: { money: 0 } }, {}).closing).toBe(
      'differing entries by severity: money 1, value 1, order 1\nover the gate: money 1 (allowed 0)\n3 of 3 entries differ or failed (allowed: money 0, failed 0): exit 1\n',
    );
  });

  it('JSON: counts by severity in the summary, severity on each differing entry, money entries first', () => {
    const entries = [
      entryOf(0, 'GET', '/api/staff/1', [d('value')]),
      entryOf(1, 'GET', '/api/staff/2', []),
      entryOf(2, 'POST', '/api/payment', [d('value', '$.code')]),
    ];
    const b = new SummaryBuilder();
    for (const e of entries) b.add(e);
    const text = buildJsonReport(b.result(), { file: 'x.jsonl', target: 'gw', rules: [], interrupted: false }, entries);
    const report = JSON.parse(text) as { summary: Record<string, unknown>; entries: Array<{ index: number; severity?: string }> };
    expect(Object.keys(report.summary)).toEqual(['total', 'identical', 'different', 'skipped', 'errors', 'notComparable', 'causedByReplay', 'skippedBy', 'kinds', 'bySeverity', 'methods']);
    expect(report.summary.bySeverity).toEqual({ money: 1, status: 0, shape: 0, value: 1, order: 0 });
    expect(report.entries.map((e) => [e.index, e.severity])).toEqual([[2, 'money'], [0, 'value'], [1, undefined]]);
    expect(text).toContain('"index":2,"legacyMethod":"payment","severity":"money"}');
  });
});

const here = path.dirname(fileURLToPath(import.meta.url));
const HAR = path.join(here, '../fixtures/replay/legacy-traffic.har');

interface HarEntry {
  request: { method: string; url: string };
  response: { status: number; content: { text?: string; encoding?: string } };
}

/** A recorded read of the e2e HAR as a JSONL line (its body decoded). */
function harLine(pathname: string): string {
  const har = JSON.parse(readFileSync(HAR, 'utf8')) as { log: { entries: HarEntry[] } };
  const e = har.log.entries.find((x) => new URL(x.request.url).pathname === pathname) as HarEntry;
  const text = e.response.content.encoding === 'base64' ? Buffer.from(e.response.content.text ?? '', 'base64').toString('utf8') : (e.response.content.text ?? '');
  return JSON.stringify({
    request: { method: 'GET', url: `https://old.example.com${pathname}`, headers: {} },
    response: { status: e.response.status, headers: { 'content-type': 'application/json' }, body: text },
  });
}

/** A plain payment (the sandbox answers code 12) recorded as refused (code 8). */
const REFUSED_PAYMENT = JSON.stringify({
  request: {
    method: 'POST',
    url: 'https://old.example.com/api/payment',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'client_id=1&service_id=1&revenue_amount=45.50&send_email=0&token=tok_severity_card',
  },
  response: { status: 200, headers: {}, body: '{"status":"failure","code":8,"response":"the payment was refused by the processor"}' },
});

describe('replay of a payment answered with another outcome (in-process gateway + embedded sandbox)', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'replay-severity-'));
  const file = path.join(dir, 'traffic.jsonl');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const replay = (options: Record<string, unknown>) => runReplayCaptured(file, { includeWrites: true, concurrency: '2', ...options });

  interface Report {
    summary: { different: number; bySeverity: Record<string, number> };
    entries: Array<{ index: number; url: string; severity?: string; diffs: Array<{ path: string; kind: string; expected?: unknown; actual?: unknown }> }>;
  }
  let report: Report;
  let html: string;
  let code: number;

  beforeAll(async () => {
    // 0: a read whose first name differs (value); 1: the payment (money); 2: an identical read.
    writeFileSync(file, [harLine('/api/staff/1'), REFUSED_PAYMENT, harLine('/api/clients/0/2')].join('\n') + '\n');
    const run = await replay({ json: path.join(dir, 'report.json'), html: path.join(dir, 'report.html') });
    code = run.code;
    report = JSON.parse(readFileSync(path.join(dir, 'report.json'), 'utf8')) as Report;
    html = readFileSync(path.join(dir, 'report.html'), 'utf8');
  });

  it('marks the payment money, counts it, and lists it first in the JSON report', () => {
    expect(code).toBe(1);
    expect(report.summary).toMatchObject({ different: 2, bySeverity: { money: 1, status: 0, shape: 0, value: 1, order: 0 } });
    expect(report.entries.map((e) => [e.index, e.severity])).toEqual([[1, 'money'], [0, 'value'], [2, undefined]]);
    expect(report.entries[0]?.diffs).toContainEqual({ path: '$.code', kind: 'value', expected: 8, actual: 12 });
  });

  it('opens the HTML entry list with the money entry, with a severity badge on each differing entry', () => {
    const items = [...html.matchAll(/<li class="entry" id="entry-(\d+)" data-outcome="(\w+)"(?: data-severity="(\w+)")?/g)].map((m) => [m[1], m[3]]);
    expect(items).toEqual([['1', 'money'], ['0', 'value'], ['2', undefined]]);
    expect(html).toContain('<span class="badge sev sev-money" title="Severity: the highest of its differences">money</span>');
    expect(html).toContain('<span class="badge sev sev-value" title="Severity: the highest of its differences">value</span>');
    expect(html).toMatch(/Differing entries by severity: <span class="sev sev-money">1 money<\/span>, <span class="sev sev-value">1 value<\/span>/);
  });

  it('gates per severity: money=0 fails on it, value=10 alone does not, the total form still works', async () => {
    const money = await replay({ maxDifferences: 'money=0' });
    expect(money.code).toBe(1);
    expect(money.stdout).toContain('over the gate: money 1 (allowed 0)\n');
    expect(money.stdout).toContain('2 of 3 entries differ or failed (allowed: money 0, failed 0): exit 1\n');
    const value = await replay({ maxDifferences: 'value=10' });
    expect(value.code).toBe(0);
    expect(value.stdout).toContain('2 of 3 entries differ or failed (allowed: value 10, failed 0): exit 0\n');
    expect((await replay({ maxDifferences: 'money=1,value=0' })).code).toBe(1);
    expect((await replay({ maxDifferences: '2' })).code).toBe(0);
  });

  it('refuses an unknown severity or a bad number with exit 2 and one line', async () => {
    for (const bad of ['cash=0', 'money=-1', 'money=x', 'value=1,value=2']) {
      const run = await replay({ maxDifferences: bad });
      expect(run.code, bad).toBe(2);
      expect(run.stderr.trim().split('\n'), bad).toHaveLength(1);
      expect(run.stderr, bad).toMatch(/^legacy-gateway replay: --max-differences (must|names) /);
      expect(run.stdout, bad).toBe('');
    }
  });
});
