// End to end: the hand-written browser HAR (test/fixtures/replay/README.md lists what is planted) replayed
// through the real gateway and the embedded sandbox, in-process and against a running gateway (--target).
// Checks every difference kind, the payment rule, exit codes 0/1/2, and that no recorded secret (nor the
// replay's own key) appears in the JSON report, the HTML report, stdout or stderr.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerReplayCommand } from '../../src/commands/replay.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { runReplayCaptured, type ReplayRun } from './replay-command.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const HAR = path.join(here, '../fixtures/replay/legacy-traffic.har');
const dir = mkdtempSync(path.join(os.tmpdir(), 'replay-e2e-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const SECRETS = ['rec-key-7f3a9c1e5b', 'rec-query-key-2d8e4f', 'rec-cookie-91ab22', 'tok_rec_card_55aa77', 'RecPassw0rd', 'sandbox-primary-key'];

const replay = (file: string, options: Record<string, unknown>, env: NodeJS.ProcessEnv = {}): Promise<ReplayRun> =>
  runReplayCaptured(file, { concurrency: '4', ...options }, env);

interface JsonReport {
  summary: Record<string, unknown>;
  entries: Array<{ method: string; url: string; outcome: string; reason?: string; diffs: Array<{ path: string; kind: string; expected?: unknown; actual?: unknown }> }>;
}

describe('replay e2e: in-process gateway + embedded sandbox', () => {
  let run: ReplayRun;
  let report: JsonReport;
  let jsonText: string;
  let html: string;

  beforeAll(async () => {
    run = await replay(HAR, { json: path.join(dir, 'report.json'), html: path.join(dir, 'report.html') });
    jsonText = readFileSync(path.join(dir, 'report.json'), 'utf8');
    report = JSON.parse(jsonText) as JsonReport;
    html = readFileSync(path.join(dir, 'report.html'), 'utf8');
  });

  it('finds each planted difference, with its kind and JSON path', () => {
    expect(run.code).toBe(1);
    expect(jsonText).toMatch(/^\{"summary":\{.*\},"interrupted":false,"file":/);
    expect(html).not.toContain('Interrupted');
    expect(report.summary).toMatchObject({ total: 12, identical: 3, different: 7, skipped: 2, errors: 0 });
    const byUrl = new Map(report.entries.map((e) => [new URL(e.url).pathname, e]));
    const kinds = (p: string): string[] => (byUrl.get(p)?.diffs ?? []).map((d) => `${d.kind} ${d.path}`);
    expect(kinds('/api/services/0/2')).toEqual(['format $.response[0].service_cost']);
    expect(byUrl.get('/api/services/0/2')?.diffs[0]).toMatchObject({ expected: '45.5', actual: '45.50' });
    expect(kinds('/api/client')).toEqual(['type $.response.id']);
    expect(byUrl.get('/api/client')?.diffs[0]).toMatchObject({ expected: 1, actual: '1' });
    expect(kinds('/api/staff/1')).toEqual(['value $.response.first_name']);
    expect(kinds('/api/meetourteam/0/3')).toEqual(['order $.response']);
    expect(kinds('/api/sessions/0/1').sort()).toEqual(['format $.response[0].session_start_time', 'missing $.response[0].session_legacy_flag']);
    expect(kinds('/api/practitioners/0/2')).toEqual(['extra $.response[1].text_phone']);
    expect(kinds('/api/testimonials')).toEqual(['status HTTP status', 'value $.status', 'type $.response']);
    for (const p of ['/api/clients/0/2', '/api/session/1', '/api/staffs/0/2']) expect(byUrl.get(p)?.outcome, p).toBe('identical');
  });

  it('never replays the payment, and says why', () => {
    const payment = report.entries.find((e) => e.url.endsWith('/api/payment'));
    expect(payment).toMatchObject({ method: 'POST', outcome: 'skipped', reason: 'payment' });
    expect(report.summary).toMatchObject({ skippedBy: { payment: 1, 'not-api': 1, write: 0 } });
    expect(run.stdout).toMatch(/skipped:\n\s+1\s+payment: replayed only with --include-writes/);
  });

  it('keeps every key, token and password out of every output', () => {
    for (const [name, text] of Object.entries({ json: jsonText, html, stdout: run.stdout, stderr: run.stderr })) {
      for (const secret of SECRETS) expect(text, `${secret} in ${name}`).not.toContain(secret);
    }
    expect(jsonText).toContain('api_key=[REDACTED]');
  });

  it('prints the per-method table and the verdict', () => {
    expect(run.stdout).toMatch(/^method\s+total\s+identical\s+different\s+skipped\s+errors$/m);
    expect(run.stdout).toMatch(/^services\s+1\s+0\s+1\s+0\s+0$/m);
    expect(run.stdout).toMatch(/^all\s+12\s+3\s+7\s+2\s+0$/m);
    expect(run.stdout).toContain('7 of 12 entries differ or failed (allowed: 0): exit 1');
    expect(run.stderr).toContain('against in-process gateway + embedded sandbox');
  });

  it('exits 0 when the differences are within --max-differences', async () => {
    const ok = await replay(HAR, { maxDifferences: '7' });
    expect(ok.code).toBe(0);
  });
});

describe('replay e2e: --target a running gateway', () => {
  let sandbox: RunningSandbox;
  let gateway: TestGateway;

  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0 });
    gateway = await startTestGateway({ UPSTREAM_URL: sandbox.url });
  });
  afterAll(async () => {
    await gateway.close();
    await sandbox.close();
  });

  it('replays against the target with the given key, and the payment only with --include-writes on loopback', async () => {
    const reads = await replay(HAR, { target: gateway.url, apiKey: 'sandbox-primary-key', json: path.join(dir, 'target.json') });
    const report = JSON.parse(readFileSync(path.join(dir, 'target.json'), 'utf8')) as JsonReport;
    expect(reads.code).toBe(1);
    expect(report.summary).toMatchObject({ identical: 3, different: 7, skipped: 2 });
    const paymentsBefore = sandbox.state.requests.filter((r) => r.method === 'POST').length;

    const writes = await replay(HAR, { target: gateway.url, apiKey: 'sandbox-primary-key', includeWrites: true, json: path.join(dir, 'writes.json') });
    const withWrites = JSON.parse(readFileSync(path.join(dir, 'writes.json'), 'utf8')) as JsonReport;
    expect(withWrites.entries.find((e) => e.url.endsWith('/api/payment'))?.outcome).not.toBe('skipped');
    expect(sandbox.state.requests.filter((r) => r.method === 'POST').length).toBeGreaterThan(paymentsBefore);
    for (const secret of SECRETS) {
      expect(readFileSync(path.join(dir, 'writes.json'), 'utf8')).not.toContain(secret);
      expect(writes.stdout + writes.stderr).not.toContain(secret);
    }
    // The gateway's own log lines never saw a recorded secret either.
    for (const secret of SECRETS.slice(0, 5)) expect(gateway.logs.join('\n')).not.toContain(secret);
  });

  it('takes the key from UPSTREAM_API_KEY when --api-key is not given', async () => {
    const run = await replay(HAR, { target: gateway.url, json: path.join(dir, 'env-key.json') }, { UPSTREAM_API_KEY: 'sandbox-primary-key' });
    const report = JSON.parse(readFileSync(path.join(dir, 'env-key.json'), 'utf8')) as JsonReport;
    expect(report.summary).toMatchObject({ identical: 3, different: 7 });
    expect(run.stderr).not.toContain('no --api-key');
    expect(run.stdout + run.stderr).not.toContain('sandbox-primary-key');
  });

  it('keeps the payment skipped for a target that is not loopback, unless --allow-production-writes', async () => {
    // 0.0.0.0 is not a loopback address to the safety check (conservatively), and refuses at once here.
    const run = await replay(HAR, { target: 'http://0.0.0.0:9', includeWrites: true, json: path.join(dir, 'remote.json') });
    const report = JSON.parse(readFileSync(path.join(dir, 'remote.json'), 'utf8')) as JsonReport;
    expect(report.entries.find((e) => e.url.endsWith('/api/payment'))).toMatchObject({ outcome: 'skipped', reason: 'payment' });
    expect(run.code).toBe(1); // every other call fails to connect: errors count as differences
    expect(report.summary).toMatchObject({ errors: 10, skipped: 2 });
    // With --allow-production-writes the payment is attempted (here it cannot connect).
    await replay(HAR, { target: 'http://0.0.0.0:9', includeWrites: true, allowProductionWrites: true, json: path.join(dir, 'remote2.json') });
    const allowed = JSON.parse(readFileSync(path.join(dir, 'remote2.json'), 'utf8')) as JsonReport;
    expect(allowed.entries.find((e) => e.url.endsWith('/api/payment'))?.outcome).toBe('error');
  });
});

describe('replay exit code 2', () => {
  it('on a malformed recording, naming the file and the place', async () => {
    const bad = path.join(dir, 'broken.har');
    writeFileSync(bad, readFileSync(HAR, 'utf8').replace('"status": 200', '"status": "200"'));
    const run = await replay(bad, {});
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/broken\.har: log\.entries\[0\]\.response\.status: .*expected number/);
    const cut = path.join(dir, 'cut.jsonl');
    writeFileSync(cut, '{"request":{"method":"GET","url":"/api/staff/1"},"response":{"status":200,"body":""}}\n{"request":\n');
    const cutRun = await replay(cut, {});
    expect(cutRun.code).toBe(2);
    expect(cutRun.stderr).toMatch(/cut\.jsonl: line 2, column 12: not valid JSON/);
  });

  it('on bad option values and rules files, without echoing the key', async () => {
    const run = await replay(HAR, { concurrency: '0', rate: 'fast', apiKey: 'cli-secret-key-99' });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--concurrency must be a whole number from 1 to 256, got "0"\n');
    expect(run.stderr).toContain('--rate must be calls per second, e.g. 10/s or 0.5/s; got "fast"\n');
    const rules = path.join(dir, 'rules.yaml');
    writeFileSync(rules, 'ignore:\n  - path: response.ts\n');
    const rulesRun = await replay(HAR, { rules, apiKey: 'cli-secret-key-99' });
    expect(rulesRun.code).toBe(2);
    expect(rulesRun.stderr).toMatch(/rules\.yaml: ignore\[0\]\.path: a path must start with "\$"/);
    expect(run.stderr + rulesRun.stderr).not.toContain('cli-secret-key-99');
    expect((await replay(HAR, { target: 'http://127.0.0.1:1', upstream: 'http://127.0.0.1:2' })).code).toBe(2);
    expect((await replay(path.join(dir, 'nope.har'), {})).stderr).toMatch(/nope\.har: cannot read the file \(ENOENT\)/);
  });

  it('when a report cannot be written, leaving no partial file', async () => {
    const out = path.join(dir, 'unwritable');
    // The report's name is taken by a directory: the run goes through, the final rename fails.
    mkdirSync(path.join(out, 'report.json'), { recursive: true });
    const run = await replay(HAR, { json: path.join(out, 'report.json') });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/legacy-gateway replay: cannot write the reports: .*report\.json/);
    expect(readdirSync(out)).toEqual(['report.json']);
  });

  it('on a malformed command line (commander), and --help documents the contract', async () => {
    const parse = async (args: string[]): Promise<{ error: unknown; output: string }> => {
      let output = '';
      const program = new Command().name('legacy-gateway').exitOverride().configureOutput({ writeOut: (s) => (output += s), writeErr: (s) => (output += s) });
      registerReplayCommand(program);
      try {
        await program.parseAsync(['node', 'legacy-gateway', ...args]);
        return { error: undefined, output };
      } catch (error) {
        return { error, output };
      }
    };
    for (const args of [['replay'], ['replay', HAR, '--bogus'], ['replay', HAR, '--json'], ['replay', HAR, '--format', 'xml']]) {
      const { error } = await parse(args);
      expect(error, args.join(' ')).toBeInstanceOf(CommanderError);
      expect((error as CommanderError).exitCode, args.join(' ')).toBe(2);
    }
    const help = await parse(['replay', '--help']);
    expect((help.error as CommanderError).exitCode).toBe(0);
    for (const text of ['--target <url>', '--api-key <key>', '--max-differences <n>', '--no-check-order', '--no-check-key-order', '--no-default-rules', '--include-writes', '--allow-production-writes', '--compare-key-refusals', 'Legacy-Gateway-Replay: 1', 'Object key order is', 'Exit codes:', '130  interrupted']) {
      expect(help.output).toContain(text);
    }
  });
});
