// `replay --shadow-pairs`: the lines of a SHADOW_DIFF_FILE (test/fixtures/replay/shadow-diffs.jsonl) are
// rendered without sending anything: the served reply against the candidate's, with the replay's diff,
// severities, reports and gate. Nothing may reach the network: the HTTP client and the sandbox are mocked
// to fail the test if they are used.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { runReplayCaptured } from './replay-command.js';

const network = vi.hoisted(() => ({ used: [] as string[] }));
vi.mock('undici', async (importOriginal) => {
  const actual = await importOriginal<typeof import('undici')>();
  return {
    ...actual,
    request: (...args: unknown[]) => {
      network.used.push(`request ${String(args[0])}`);
      throw new Error('--shadow-pairs must not send anything');
    },
  };
});
vi.mock('../../src/sandbox/index.js', () => ({
  SANDBOX_KEYS: { primary: 'unused' },
  startSandbox: () => {
    network.used.push('sandbox');
    throw new Error('--shadow-pairs must not start the sandbox');
  },
}));
vi.mock('../../src/gateway/start.js', () => ({
  startGateway: () => {
    network.used.push('gateway');
    throw new Error('--shadow-pairs must not start a gateway');
  },
}));

const here = path.dirname(fileURLToPath(import.meta.url));
const FIXTURE = path.join(here, '../fixtures/replay/shadow-diffs.jsonl');
const dir = mkdtempSync(path.join(os.tmpdir(), 'replay-shadow-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface JsonReport {
  summary: { total: number; different: number; bySeverity: Record<string, number> };
  target: string;
  entries: Array<{ url: string; outcome: string; legacyMethod: string; severity?: string; diffs: Array<{ path: string; kind: string; expected?: unknown; actual?: unknown }> }>;
}

describe('replay --shadow-pairs', () => {
  it('reports each served reply against its candidate, in the JSON and HTML reports, sending nothing', async () => {
    const json = path.join(dir, 'out.json');
    const html = path.join(dir, 'out.html');
    const run = await runReplayCaptured(FIXTURE, { shadowPairs: true, json, html });
    expect(run.stderr).not.toMatch(/legacy-gateway replay:/);
    expect(run.code).toBe(1); // two entries differ; the default gate allows none
    expect(network.used).toEqual([]);
    const report = JSON.parse(readFileSync(json, 'utf8')) as JsonReport;
    expect(report.target).toContain('--shadow-pairs');
    expect(report.summary.total).toBe(2);
    expect(report.summary.different).toBe(2);
    expect(report.summary.bySeverity).toMatchObject({ value: 1, shape: 1 });
    const [staff, services] = [...report.entries].sort((a, b) => a.url.localeCompare(b.url)).reverse();
    expect(staff).toMatchObject({ url: '/api/staff/1', outcome: 'different', legacyMethod: 'staff', severity: 'value' });
    expect(staff?.diffs).toEqual([{ path: '$.first_name', kind: 'value', expected: 'Olive', actual: 'Olivia' }]);
    expect(services).toMatchObject({ url: '/api/services/0/2', outcome: 'different', legacyMethod: 'services', severity: 'shape' });
    expect(services?.diffs).toEqual([expect.objectContaining({ path: '$[0].service_cost', kind: 'missing', expected: '45.50' })]);
    const page = readFileSync(html, 'utf8');
    expect(page).toContain('Olivia');
    expect(page).toContain('service_cost');
  });

  it('passes the gate per severity', async () => {
    const run = await runReplayCaptured(FIXTURE, { shadowPairs: true, maxDifferences: 'value=1,shape=1' });
    expect(run.code).toBe(0);
    expect((await runReplayCaptured(FIXTURE, { shadowPairs: true, maxDifferences: 'value=1,shape=0' })).code).toBe(1);
    expect(network.used).toEqual([]);
  });

  it("names each entry by the shadow's legacy method", async () => {
    const file = path.join(dir, 'method.jsonl');
    const line = { request: { method: 'GET', url: '/shadow/1' }, response: { status: 200, body: '{"a":1}' }, shadow: { legacyMethod: 'staff', candidate: { status: 200, body: '{"a":2}' } } };
    writeFileSync(file, `${JSON.stringify(line)}\n`);
    const json = path.join(dir, 'method.json');
    expect((await runReplayCaptured(file, { shadowPairs: true, json })).code).toBe(1);
    const report = JSON.parse(readFileSync(json, 'utf8')) as JsonReport;
    expect(report.entries[0]).toMatchObject({ legacyMethod: 'staff', severity: 'value' });
  });

  it('refuses a line without "shadow": exit code 2 with one line, no report', async () => {
    const file = path.join(dir, 'mixed.jsonl');
    const plain = { request: { method: 'GET', url: '/api/staff/1' }, response: { status: 200, body: '{}' } };
    writeFileSync(file, `${readFileSync(FIXTURE, 'utf8')}${JSON.stringify(plain)}\n`);
    const json = path.join(dir, 'mixed.json');
    const run = await runReplayCaptured(file, { shadowPairs: true, json });
    expect(run.code).toBe(2);
    const lines = run.stderr.split('\n').filter((l) => l.startsWith('legacy-gateway replay:'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('line 3: no "shadow"');
    expect(() => readFileSync(json)).toThrow();
    expect(network.used).toEqual([]);
  });

  it('the mocks do see a replay that sends (the control of the checks above)', async () => {
    const run = await runReplayCaptured(FIXTURE, { target: 'http://127.0.0.1:9' });
    expect(run.code).toBe(1); // both calls fail: errors
    expect(network.used).toHaveLength(2);
    network.used.length = 0;
  });

  it('does not combine with --target, --upstream or --propose-mappings (exit code 2)', async () => {
    for (const extra of [{ target: 'http://127.0.0.1:9' }, { upstream: 'http://127.0.0.1:9' }, { proposeMappings: path.join(dir, 'p') }]) {
      const run = await runReplayCaptured(FIXTURE, { shadowPairs: true, ...extra });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('--shadow-pairs renders the pairs recorded in the file');
    }
    expect(network.used).toEqual([]);
  });
});
