// `legacy-gateway migration-guide`, its command line run in the test's process (test/helpers/cli-in-process.ts;
// the binary's own exit codes are tested in exit-codes.test.ts), against a real gateway serving from
// the embedded sandbox with its metrics listener: two API keys call different legacy methods, one of them named
// `crm-sync` by INTEGRATIONS_FILE, then
// - `--all --out DIR` writes one guide per integration, `crm-sync.md` and the other named by the start of its
//   fingerprint, each with exactly the sections of the methods that key called; `--format html` the same as pages;
// - `--integration NAME` and `--fingerprint` (whole, or its start) write one integration's guide;
// - an integration the report does not have is refused naming those it has; an unreachable listener, and
//   `--all` without `--out`, are refused in one line with their exit codes;
// - a copy of the mappings whose field takes its value from another v1 field gives a guide that says so, and
//   differs from the shipped set's in that row alone.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usageFingerprint } from '../../src/gateway/state/usage/usage-tracker.js';
import { SANDBOX_KEYS } from '../../src/sandbox/index.js';
import { fetchReply } from '../helpers/fetch-reply.js';
import { runCli, type CliRun } from '../helpers/cli-in-process.js';
// The command's modules load with the file, not within a test's time (the command line loads them when run).
import '../../src/commands/migration-guide.js';
import { get, startTestGateway, type TestGateway } from '../helpers/gateway.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SECRET = 'e2e-migration-guide-secret-0123456789';
const FP_PRIMARY = usageFingerprint(SECRET, SANDBOX_KEYS.primary);
const FP_SECONDARY = usageFingerprint(SECRET, SANDBOX_KEYS.secondary);

const CLIENTS = '## `GET /api/clients/{start}/{limit}`';
const CLIENT = '## `GET /api/client?id=|email=|username=|first_name=|last_name=`';
const SERVICES = '## `GET /api/services/{start}/{limit}`';
const PAYMENT = '## `POST /api/payment`';

function cliRun(args: string[]): Promise<CliRun> {
  return runCli(['migration-guide', ...args], { UPSTREAM_URL: '', MAPPINGS_DIR: '' });
}

/** The method sections of a Markdown guide: its `## ` headings but the contents. */
const sections = (md: string): string[] => md.split('\n').filter((line) => line.startsWith('## ') && line !== '## Contents');

let gateway: TestGateway;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'lgw-guides-'));
  const integrations = path.join(dir, 'integrations.yaml');
  writeFileSync(integrations, `integrations:\n  - name: crm-sync\n    owner: CRM team <crm@example.com>\n    fingerprints: ["${FP_PRIMARY}"]\n`);
  gateway = await startTestGateway({ METRICS_PORT: '0', GATEWAY_SECRET: SECRET, LOG_LEVEL: 'warn', INTEGRATIONS_FILE: integrations });
  const primary = { 'x-api-key': SANDBOX_KEYS.primary, 'user-agent': 'crm-sync/1.0' };
  const secondary = { 'x-api-key': SANDBOX_KEYS.secondary, 'user-agent': 'shop-widget/3' };
  const replies = await Promise.all([
    get(gateway.url, '/api/clients/0/5', primary),
    get(gateway.url, '/api/client?email=ada.lovelace@example.com', primary),
    get(gateway.url, '/api/clients/0/2', secondary),
    get(gateway.url, '/api/services/0/3', secondary),
  ]);
  expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200]);
  const payment = await fetchReply(`${gateway.url}/api/payment`, {
    method: 'POST',
    headers: primary,
    body: new URLSearchParams({ first_name: 'Grace', last_name: 'Hopper', email: 'grace@example.com', state: 'VA', country: 'US', status: 'active', revenue_amount: '45.50', send_email: '0' }),
  });
  expect(payment.status).toBe(200);
});

afterAll(async () => {
  await gateway?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('migration-guide against a gateway\'s GET /usage', () => {
  it('--all --out DIR: one guide per integration, each with the sections of the methods its key called', async () => {
    const out = path.join(dir, 'all');
    const run = await cliRun(['--url', gateway.metricsUrl!, '--all', '--out', out]);
    expect(run).toMatchObject({ code: 0, stdout: '' });
    const primaryFile = 'crm-sync.md';
    const secondaryFile = `${FP_SECONDARY.slice(0, 12)}.md`;
    expect(readdirSync(out).sort()).toEqual([primaryFile, secondaryFile].sort());
    expect(run.stderr.split('\n').filter((l) => l !== '').sort()).toEqual([path.join(out, primaryFile), path.join(out, secondaryFile)].sort());

    const first = readFileSync(path.join(out, primaryFile), 'utf8');
    // In the mappings' order, the payment last.
    expect(sections(first)).toEqual([CLIENT, CLIENTS, PAYMENT]);
    expect(first.split('\n')[0]).toBe('# Moving crm-sync from the legacy API to v1');
    expect(first).toContain(`API key fingerprint \`${FP_PRIMARY}\``);
    expect(first).toContain('This integration called it 1 time');
    const second = readFileSync(path.join(out, secondaryFile), 'utf8');
    expect(sections(second)).toEqual([CLIENTS, SERVICES]);
    expect(second).toContain('This integration called it 1 time');
    // No key is in a guide: the examples read it from the shell.
    for (const text of [first, second]) for (const key of Object.values(SANDBOX_KEYS)) expect(text).not.toContain(key);
    expect(second).toContain('"$LEGACY_BASE_URL/api/services/0/');
  });

  it('--all --format html: one self-contained page per integration', async () => {
    const out = path.join(dir, 'html');
    const run = await cliRun(['--url', `${gateway.metricsUrl!}/metrics`, '--all', '--format', 'html', '--out', out]);
    expect(run.code).toBe(0);
    expect(readdirSync(out).sort()).toEqual(['crm-sync.html', `${FP_SECONDARY.slice(0, 12)}.html`].sort());
    const page = readFileSync(path.join(out, `${FP_SECONDARY.slice(0, 12)}.html`), 'utf8');
    expect(page.startsWith('<!doctype html>\n')).toBe(true);
    expect(page).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`);
    expect(page).toContain('GET /api/services/{start}/{limit}');
    expect(page).not.toContain('POST /api/payment');
    expect(page).not.toMatch(/<script|<link /);
  });

  it('--integration NAME: that integration\'s guide, as --all wrote it', async () => {
    const run = await cliRun(['--url', gateway.metricsUrl!, '--integration', 'crm-sync']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toBe(readFileSync(path.join(dir, 'all', 'crm-sync.md'), 'utf8'));
  });

  it('--fingerprint (whole, or its first 12 digits) --out FILE: that integration\'s guide', async () => {
    const file = path.join(dir, 'one.md');
    const whole = await cliRun(['--url', gateway.metricsUrl!, '--fingerprint', FP_SECONDARY, '--out', file]);
    expect(whole).toEqual({ code: 0, stdout: '', stderr: '' });
    const text = readFileSync(file, 'utf8');
    expect(sections(text)).toEqual([CLIENTS, SERVICES]);
    const start = await cliRun(['--url', gateway.metricsUrl!, '--fingerprint', FP_SECONDARY.slice(0, 12)]);
    expect(start).toEqual({ code: 0, stdout: text, stderr: '' });
  });

  it('an integration the report does not have: exit 1, naming the ones it has', async () => {
    const byName = await cliRun(['--url', gateway.metricsUrl!, '--integration', 'shop-widget']);
    expect(byName.code).toBe(1);
    expect(byName.stdout).toBe('');
    const known = `the report has 2 integrations: named: crm-sync; unnamed, by fingerprint: ${FP_SECONDARY}`;
    expect(byName.stderr).toBe(`legacy-gateway migration-guide: no integration named shop-widget in the usage report; ${known}\n`);
    const byFingerprint = await cliRun(['--url', gateway.metricsUrl!, '--fingerprint', 'f'.repeat(64)]);
    expect(byFingerprint.code).toBe(1);
    expect(byFingerprint.stderr).toBe(`legacy-gateway migration-guide: no integration with fingerprint ${'f'.repeat(64)} in the usage report; ${known}\n`);
  });

  it('an unreachable listener: exit 1 in one line; --all without --out: exit 2', async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as net.AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const unreachable = await cliRun(['--url', `http://127.0.0.1:${port}`, '--all', '--out', path.join(dir, 'never')]);
    expect(unreachable).toEqual({ code: 1, stdout: '', stderr: `legacy-gateway migration-guide: cannot fetch http://127.0.0.1:${port}/usage: ECONNREFUSED\n` });
    expect(readdirSync(dir)).not.toContain('never');
    const noOut = await cliRun(['--url', gateway.metricsUrl!, '--all']);
    expect(noOut).toEqual({ code: 2, stdout: '', stderr: 'legacy-gateway migration-guide: --all: --out DIR is required (one file per integration)\n' });
  });
});

describe('migration-guide follows the mappings', () => {
  it('a field given another v1 source changes its row in the guide, and nothing else', async () => {
    const mappings = path.join(dir, 'mappings');
    cpSync(path.join(root, 'mappings'), mappings, { recursive: true });
    const record = path.join(mappings, 'records/client.yaml');
    const yaml = readFileSync(record, 'utf8');
    expect(yaml).toContain('  - { name: email }\n');
    writeFileSync(record, yaml.replace('  - { name: email }\n', '  - { name: email, from: email_address }\n'));

    const shipped = await cliRun(['--methods', 'clients']);
    const changed = await cliRun(['--methods', 'clients', '--mappings', mappings]);
    expect(shipped.code).toBe(0);
    expect(changed.code).toBe(0);
    const before = shipped.stdout.split('\n');
    const after = changed.stdout.split('\n');
    expect(after).toHaveLength(before.length);
    // The mappings' digest is named in the introduction; past it, only the email row differs.
    const differing = before.flatMap((line, i) => (line === after[i] ? [] : [[line, after[i]]]));
    expect(differing).toEqual([
      [expect.stringContaining('digest `'), expect.stringContaining('digest `')],
      ['| 16 | `email` | `email` | copied, stringified |', '| 16 | `email` | `email_address` | renamed from `email_address`, stringified |'],
    ]);
  });
});
