// `legacy-gateway check` as an operator runs it, its command line run in the test's process
// (test/helpers/cli-in-process.ts; the binary's own exit codes are tested in exit-codes.test.ts): each check
// reports what it found, in order, and a check an earlier failure makes pointless is "not run".
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMappingDirectory } from '../../src/gateway/loaders/mapping-files.js';
import { SANDBOX_KEYS, SECONDARY_KEY_RESOURCES, startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { runCli } from '../helpers/cli-in-process.js';
// The command's modules load with the file, not within a test's time (the command line loads them when run).
import '../../src/commands/check.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const mappingsDir = path.join(root, 'mappings');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  lines: string[];
}

interface JsonReport {
  ok: boolean;
  checks: Array<{ check: string; ok: boolean; result: string; detail: string }>;
  notRun?: { checks: string[]; reason: string };
}

/** Runs `check` with only the given settings (nothing inherited from the shell that runs the suite). */
async function check(settings: Record<string, string>, args: string[] = []): Promise<Run> {
  const done = await runCli(['check', ...args], { UPSTREAM_URL: '', UPSTREAM_API_KEY: '', MAPPINGS_DIR: '', ...settings });
  return { ...done, lines: done.stdout.split('\n').filter(Boolean) };
}

/** A loopback port nothing listens on: bound once to learn a free number, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const row = (mark: string, check: string, detail: string): string => `${mark.padEnd(4)}  ${check.padEnd(20)} ${detail}`;

let resources: string[];
let mappingsLine: string;
let sandbox: RunningSandbox;

beforeAll(async () => {
  const { reads, payment } = await loadMappingDirectory(mappingsDir);
  const set = new Set<string>();
  for (const m of reads.values()) if (m.kind !== 'static') set.add(m.source.resource);
  for (const r of Object.values(payment?.resources ?? {})) set.add(r);
  resources = [...set];
  mappingsLine = row('ok', 'mappings', `${reads.size} read methods and the payment flow from ${mappingsDir}`);
  sandbox = await startSandbox({ port: 0 });
});

afterAll(async () => {
  await sandbox.close();
});

describe('legacy-gateway check: reachability', () => {
  it('with nothing listening: one failure naming the refusal, the rest not run, exit 1', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const run = await check({ UPSTREAM_URL: url, UPSTREAM_API_KEY: SANDBOX_KEYS.primary });
    expect(run.code).toBe(1);
    expect(run.lines).toEqual([
      mappingsLine,
      row('FAIL', 'upstream reachable', `${url}: connection refused (ECONNREFUSED): nothing listens there`),
      row('--', 'not run', `api key, account gates, ${resources.length} resource reads: the upstream is not reachable`),
    ]);
    expect(run.stderr).toBe('');
  });

  it('--json: the same, failures in checks, the checks not run apart', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const run = await check({ UPSTREAM_URL: url, UPSTREAM_API_KEY: SANDBOX_KEYS.primary }, ['--json']);
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout) as JsonReport;
    expect(report.ok).toBe(false);
    expect(report.checks.map((c) => [c.check, c.ok, c.result])).toEqual([['mappings', true, 'ok'], ['upstream reachable', false, 'fail']]);
    expect(report.notRun).toEqual({ checks: ['api key', 'account gates', ...resources.map((r) => `read ${r}`)], reason: 'the upstream is not reachable' });
    expect(run.stdout).not.toContain(SANDBOX_KEYS.primary);
  });

  it('a host that does not resolve: a DNS failure', async () => {
    const run = await check({ UPSTREAM_URL: 'http://no-such-host.invalid', UPSTREAM_API_KEY: 'k' });
    expect(run.code).toBe(1);
    expect(run.lines[1]).toMatch(/^FAIL {2}upstream reachable +http:\/\/no-such-host\.invalid: (DNS failure: no-such-host\.invalid cannot be resolved \(E[A-Z_]+\)|timeout: .*)$/);
    expect(run.lines.slice(2)).toEqual([row('--', 'not run', `api key, account gates, ${resources.length} resource reads: the upstream is not reachable`)]);
  });

  it('https to a plain HTTP port: a TLS failure', async () => {
    const url = sandbox.url.replace('http:', 'https:');
    const run = await check({ UPSTREAM_URL: url, UPSTREAM_API_KEY: SANDBOX_KEYS.primary });
    expect(run.code).toBe(1);
    expect(run.lines[1]).toMatch(new RegExp(`^FAIL {2}upstream reachable +${url.replace(/[.]/g, '\\.')}: TLS failure \\([A-Z_]+\\)$`));
    expect(run.lines).toHaveLength(3);
  });

  it('a server that never answers: a timeout naming UPSTREAM_TIMEOUT_MS', async () => {
    const silent = createServer(() => undefined);
    const url = await listen(silent);
    try {
      const run = await check({ UPSTREAM_URL: url, UPSTREAM_API_KEY: 'k', UPSTREAM_TIMEOUT_MS: '300' });
      expect(run.code).toBe(1);
      expect(run.lines[1]).toBe(row('FAIL', 'upstream reachable', `${url}: timeout: no answer within 300 ms (UPSTREAM_TIMEOUT_MS)`));
      expect(run.lines).toHaveLength(3);
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });

  it('any HTTP answer, even 410, means reachable; the reads then fail with the status', async () => {
    const gone = createServer((_req, res) => {
      res.statusCode = 410;
      res.end('gone');
    });
    const url = await listen(gone);
    try {
      const run = await check({ UPSTREAM_URL: url, UPSTREAM_API_KEY: 'some-key' });
      expect(run.code).toBe(1);
      expect(run.lines.slice(1, 4)).toEqual([
        row('ok', 'upstream reachable', `${url} answers HTTP 410`),
        row('warn', 'api key', `UPSTREAM_API_KEY: not confirmed (read ${resources[0]} answered 410)`),
        row('ok', 'account gates', 'none: the account may use the API'),
      ]);
      expect(run.lines.slice(4)).toEqual(resources.map((r) => row('FAIL', `read ${r}`, '410: not a v1 error reply')));
    } finally {
      gone.close();
    }
  });
});

describe('legacy-gateway check: key, gates and reads', () => {
  it('the primary key: every check ok, one read per resource, exit 0', async () => {
    const before = sandbox.state.requests.length;
    const run = await check({ UPSTREAM_URL: sandbox.url, UPSTREAM_API_KEY: SANDBOX_KEYS.primary });
    expect(run.code).toBe(0);
    expect(run.lines.slice(0, 4)).toEqual([
      mappingsLine,
      row('ok', 'upstream reachable', `${sandbox.url} answers HTTP 200`),
      row('ok', 'api key', 'UPSTREAM_API_KEY is accepted'),
      row('ok', 'account gates', 'none: the account may use the API'),
    ]);
    expect(run.lines.slice(4)).toHaveLength(resources.length);
    resources.forEach((r, i) => expect(run.lines[4 + i]).toMatch(new RegExp(`^ok {4}read ${r} +HTTP 200 in \\d+ ms$`)));
    const calls = sandbox.state.requests.slice(before);
    expect(calls.map((c) => `${c.method} ${c.path} ${JSON.stringify(c.query)}`)).toEqual(resources.map((r) => `GET /api/v1/${r} {"limit":"1"}`));
  });

  it('without UPSTREAM_URL: the embedded sandbox, with its primary demo key', async () => {
    const run = await check({});
    expect(run.code).toBe(0);
    expect(run.lines[1]).toMatch(/^ok {4}upstream reachable +the embedded sandbox \(UPSTREAM_URL is not set\) at http:\/\/127\.0\.0\.1:\d+ answers HTTP 200$/);
    expect(run.lines[2]).toBe(row('ok', 'api key', "the sandbox's primary demo key is accepted"));
    expect(run.stdout).not.toContain('FAIL');
  });

  it('the secondary key: each resource it may not read fails with 403, the others pass, exit 1', async () => {
    const run = await check({ UPSTREAM_URL: sandbox.url, UPSTREAM_API_KEY: SANDBOX_KEYS.secondary });
    expect(run.code).toBe(1);
    expect(run.lines.slice(1, 4)).toEqual([
      row('ok', 'upstream reachable', `${sandbox.url} answers HTTP ${SECONDARY_KEY_RESOURCES.has(resources[0]!) ? 200 : 403}`),
      row('ok', 'api key', 'UPSTREAM_API_KEY is accepted'),
      row('ok', 'account gates', 'none: the account may use the API'),
    ]);
    resources.forEach((r, i) => {
      if (SECONDARY_KEY_RESOURCES.has(r)) expect(run.lines[4 + i]).toMatch(new RegExp(`^ok {4}read ${r} +HTTP 200 in \\d+ ms$`));
      else expect(run.lines[4 + i]).toBe(row('FAIL', `read ${r}`, `403 resource_not_allowed: the key may not read ${r}`));
    });
    expect(run.lines).toHaveLength(4 + resources.length);
    expect(run.stdout).not.toContain(SANDBOX_KEYS.secondary);
  });

  it('an invalid key: the key check fails once, the rest is not run', async () => {
    const run = await check({ UPSTREAM_URL: sandbox.url, UPSTREAM_API_KEY: 'not-a-valid-key-4711' });
    expect(run.code).toBe(1);
    expect(run.lines).toEqual([
      mappingsLine,
      row('ok', 'upstream reachable', `${sandbox.url} answers HTTP 401`),
      row('FAIL', 'api key', 'the key is not valid (401 invalid_key)'),
      row('--', 'not run', `account gates, ${resources.length} resource reads: the key is not valid`),
    ]);
    expect(run.stdout).not.toContain('not-a-valid-key-4711');
  });

  it('no key (neither UPSTREAM_API_KEY nor --api-key): one failure saying the upstream checks were not made, exit 1, no v1 call', async () => {
    const before = sandbox.state.requests.length;
    for (const args of [[], ['--json']]) {
      const run = await check({ UPSTREAM_URL: sandbox.url }, args);
      expect(run.code).toBe(1);
      const failure = 'no key given (UPSTREAM_API_KEY or --api-key): the upstream checks were not made (--skip-upstream checks the settings and mappings alone)';
      if (args.length === 0) {
        expect(run.lines).toEqual([mappingsLine, row('FAIL', 'api key', failure)]);
      } else {
        expect(JSON.parse(run.stdout)).toEqual({
          ok: false,
          checks: [
            { check: 'mappings', ok: true, result: 'ok', detail: expect.any(String) as unknown },
            { check: 'api key', ok: false, result: 'fail', detail: failure },
          ],
        });
      }
      expect(run.stderr).toBe('');
    }
    expect(sandbox.state.requests.length).toBe(before);
  });

  it('--skip-upstream: the settings and mappings alone, no v1 call, exit 0 (with or without a key)', async () => {
    const before = sandbox.state.requests.length;
    const withAndWithoutKey: Array<Record<string, string>> = [{ UPSTREAM_URL: sandbox.url }, { UPSTREAM_URL: sandbox.url, UPSTREAM_API_KEY: SANDBOX_KEYS.primary }];
    for (const settings of withAndWithoutKey) {
      const run = await check(settings, ['--skip-upstream']);
      expect(run.code).toBe(0);
      expect(run.lines).toEqual([
        mappingsLine,
        row('warn', 'upstream', 'not checked (--skip-upstream): reachability, the key, the account gates and the reads were not probed'),
      ]);
    }
    expect(sandbox.state.requests.length).toBe(before);
    // Bad mappings still fail.
    const bad = await check({ UPSTREAM_URL: sandbox.url, MAPPINGS_DIR: path.join(root, 'test/fixtures/bad-mappings') }, ['--skip-upstream']);
    expect(bad.code).toBe(1);
  });

  it("--api-key tests a caller's own key instead of UPSTREAM_API_KEY, and never prints it", async () => {
    const before = sandbox.state.requests.length;
    const run = await check({ UPSTREAM_URL: sandbox.url, UPSTREAM_API_KEY: 'not-a-valid-key-4711' }, ['--api-key', SANDBOX_KEYS.primary]);
    expect(run.code).toBe(0);
    expect(run.lines.slice(0, 4)).toEqual([
      mappingsLine,
      row('ok', 'upstream reachable', `${sandbox.url} answers HTTP 200`),
      row('ok', 'api key', 'the key of --api-key is accepted'),
      row('ok', 'account gates', 'none: the account may use the API'),
    ]);
    expect(sandbox.state.requests.slice(before).every((r) => r.apiKey)).toBe(true);
    const invalid = await check({ UPSTREAM_URL: sandbox.url }, ['--api-key', 'callers-own-bad-key-0815']);
    expect(invalid.code).toBe(1);
    expect(invalid.lines[2]).toBe(row('FAIL', 'api key', 'the key is not valid (401 invalid_key)'));
    for (const r of [run, invalid]) expect(r.stdout + r.stderr).not.toMatch(/callers-own-bad-key-0815|not-a-valid-key-4711|sandbox-primary-key/);
    const empty = await check({ UPSTREAM_URL: sandbox.url }, ['--api-key', '']);
    expect(empty.code).toBe(2);
  });

  it.each([
    ['account_locked', row('FAIL', 'account gates', '403 account_locked: the subscription has lapsed: renew it to use the API'), '403 account_locked'],
    ['maintenance', row('FAIL', 'account gates', '503 maintenance: the service is down for maintenance: try again later'), '503 maintenance'],
  ] as const)('an account gate (%s) is one line, not a failure per resource', async (gate, gateLine, answer) => {
    const gated = await startSandbox({ port: 0 });
    gated.state.gate = gate;
    try {
      const run = await check({ UPSTREAM_URL: gated.url, UPSTREAM_API_KEY: SANDBOX_KEYS.primary });
      expect(run.code).toBe(1);
      expect(run.lines.filter((l) => l.startsWith('FAIL'))).toEqual([gateLine]);
      expect(run.lines.at(-2)).toBe(gateLine);
      expect(run.lines.at(-1)).toBe(row('--', 'not run', `${resources.length} resource reads: every v1 call answers ${answer}`));
      expect(gated.state.requests).toHaveLength(1);
    } finally {
      await gated.close();
    }
  });

  it('a spent hourly budget fails that resource alone, with 429 and when to retry', async () => {
    const limited = await startSandbox({ port: 0, rateLimitPerHour: 1 });
    const spent = resources[1]!;
    try {
      await fetch(`${limited.url}/api/v1/${spent}?limit=1`, { headers: { 'x-api-key': SANDBOX_KEYS.primary } });
      const run = await check({ UPSTREAM_URL: limited.url, UPSTREAM_API_KEY: SANDBOX_KEYS.primary }, ['--json']);
      expect(run.code).toBe(1);
      const report = JSON.parse(run.stdout) as JsonReport;
      expect(report.checks.filter((c) => !c.ok)).toEqual([
        { check: `read ${spent}`, ok: false, result: 'fail', detail: expect.stringMatching(/^429 rate_limited: the hourly budget for this URL and key is spent \(retry after \d+ s\)$/) as unknown },
      ]);
      expect(report.notRun).toBeUndefined();
    } finally {
      await limited.close();
    }
  });

  it('mappings that do not load: one failure, the rest not run', async () => {
    const run = await check({ MAPPINGS_DIR: path.join(root, 'test/fixtures/bad-mappings') });
    expect(run.code).toBe(1);
    expect(run.lines).toEqual([
      row('FAIL', 'mappings', 'invalid mappings: staff.yaml: paging.max: must be a whole number from 1 to 1000, got 5000'),
      row('--', 'not run', 'upstream reachable, api key, account gates, reads: the mappings did not load'),
    ]);
  });
});
