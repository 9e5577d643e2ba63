// `legacy-gateway retire-check`, its command line run in the test's process (test/helpers/cli-in-process.ts;
// the binary's own exit codes are tested in exit-codes.test.ts), judged from the last calls a gateway's
// GET /usage reports. A real gateway over the embedded sandbox, its clock set back, takes one key's calls 40
// days ago and the other's 10 days ago: the check passes (0) for 7 quiet days, and fails (1) for 30 and 60,
// listing exactly the integrations called since, most recent first. A report with names and daily counts (from a
// fake metrics listener) shows the names and the calls of the days. A listener that cannot be read, or a bad
// option, is exit 2: never 1, which means that some integration still calls.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usageFingerprint } from '../../src/gateway/state/usage/usage-tracker.js';
import { SANDBOX_KEYS } from '../../src/sandbox/index.js';
import { runCli, type CliRun } from '../helpers/cli-in-process.js';
// The command's modules load with the file, not within a test's time (the command line loads them when run).
import '../../src/commands/retire-check.js';
import { fetchReply } from '../helpers/fetch-reply.js';
import { get, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { json, startRecordingUpstream, type RecordingUpstream } from '../helpers/recording-upstream.js';

const SECRET = 'e2e-retire-check-secret-0123456789';
const FP_PRIMARY = usageFingerprint(SECRET, SANDBOX_KEYS.primary);
const FP_SECONDARY = usageFingerprint(SECRET, SANDBOX_KEYS.secondary);
const DAY = 86_400_000;

function retireCheck(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return runCli(['retire-check', ...args], { QUIET_DAYS: '', ...env });
}

const START = Date.now();
const iso = (ms: number) => new Date(ms).toISOString();
let clock = START - 40 * DAY;
let gateway: TestGateway;
let listener: RecordingUpstream;

beforeAll(async () => {
  gateway = await startTestGateway({ METRICS_PORT: '0', GATEWAY_SECRET: SECRET, LOG_LEVEL: 'warn' }, { now: () => clock });
  // The primary key's integration called 40 days ago, three times; the secondary's 10 days ago, once.
  for (const path of ['/api/clients/0/2', '/api/clients/0/3', '/api/services/0/1']) {
    expect((await get(gateway.url, path, { 'x-api-key': SANDBOX_KEYS.primary })).status).toBe(200);
  }
  clock = START - 10 * DAY;
  expect((await get(gateway.url, '/api/clients/0/1', { 'x-api-key': SANDBOX_KEYS.secondary })).status).toBe(200);
  listener = await startRecordingUpstream();
});

afterAll(async () => {
  await gateway?.close();
  await listener?.close();
});

describe('retire-check against a gateway', () => {
  it('exit 0 when no integration called in the last --quiet-days days, naming the last call', async () => {
    const run = await retireCheck(['--url', gateway.metricsUrl!, '--quiet-days', '7']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^quiet: no integration called the old API in the last 7 days \(since \S+Z\); the last call counted: (\S+) \((\w+)\)\n$/);
    expect(run.stdout).toContain(`the last call counted: ${iso(START - 10 * DAY)} (${FP_SECONDARY})`);
    // Without REDIS_URL the report is one process's: said on stderr.
    expect(run.stderr).toBe(`note: ${gateway.metricsUrl!}/usage counts one gateway process's calls (no REDIS_URL): ask every replica; a restart forgets the calls before it\n`);
  });

  it('exit 1 with the integrations called since: the one called 10 days ago for 30 days, both for 60', async () => {
    // When the report counts calls per day, the table adds those of the days.
    const usage = (await fetchReply(`${gateway.metricsUrl!}/usage`)).body as { integrations: Array<{ daily?: unknown }> };
    const days = usage.integrations.every((i) => i.daily !== undefined);
    const withDays = (row: string[], n: string) => (days ? [...row, n] : row);
    const thirty = await retireCheck(['--url', `${gateway.metricsUrl!}/metrics`, '--quiet-days', '30']);
    expect(thirty.code).toBe(1);
    const lines = thirty.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^not quiet: 1 integration called the old API in the last 30 days \(since \S+Z\):$/);
    expect(lines.slice(1).map((l) => l.split(/\s{2,}/))).toEqual([
      withDays(['INTEGRATION', 'LAST CALL', 'CALLS'], 'LAST 30 DAYS'),
      withDays([FP_SECONDARY, iso(START - 10 * DAY), '1'], '1'),
    ]);

    const sixty = await retireCheck(['--url', gateway.metricsUrl!, '--quiet-days', '60']);
    expect(sixty.code).toBe(1);
    expect(sixty.stdout.trimEnd().split('\n').slice(1).map((l) => l.split(/\s{2,}/))).toEqual([
      withDays(['INTEGRATION', 'LAST CALL', 'CALLS'], 'LAST 60 DAYS'),
      withDays([FP_SECONDARY, iso(START - 10 * DAY), '1'], '1'),
      withDays([FP_PRIMARY, iso(START - 40 * DAY), '3'], '3'),
    ]);
  });

  it('QUIET_DAYS is the default; --json gives the same verdict for a script', async () => {
    const run = await retireCheck(['--url', gateway.metricsUrl!, '--json'], { QUIET_DAYS: '30' });
    expect(run.code).toBe(1);
    const out = JSON.parse(run.stdout) as { quiet: boolean; quietDays: number; shared: boolean; integrations: unknown[] };
    expect(out).toMatchObject({ quiet: false, quietDays: 30, shared: false });
    expect(out.integrations).toEqual([{ name: null, fingerprint: FP_SECONDARY, lastSeen: iso(START - 10 * DAY), calls: 1 }]);
    const quiet = await retireCheck(['--url', gateway.metricsUrl!, '--json', '--quiet-days', '5']);
    expect(quiet.code).toBe(0);
    expect(JSON.parse(quiet.stdout)).toMatchObject({ quiet: true, quietDays: 5, integrations: [] });
  });
});

describe('retire-check of a report with names and daily counts', () => {
  it('names each integration, and adds its calls of the last days', async () => {
    const now = Date.now();
    const [yesterday, twoDaysAgo, longAgo] = [iso(now - DAY), iso(now - 2 * DAY), iso(now - 50 * DAY)];
    listener.handle((_req, res) =>
      json(res, 200, {
        integrations: [
          { name: 'crm-sync', fingerprint: 'a'.repeat(64), calls: 12, methods: { clients: 12 }, firstSeen: longAgo, lastSeen: yesterday, userAgents: [], daily: { [longAgo.slice(0, 10)]: 10, [yesterday.slice(0, 10)]: 2 } },
          { name: null, fingerprint: 'b'.repeat(64), calls: 4, methods: { client: 4 }, firstSeen: twoDaysAgo, lastSeen: twoDaysAgo, userAgents: [] },
          { name: 'gone-quiet', fingerprint: 'c'.repeat(64), calls: 7, methods: { payment: 7 }, firstSeen: longAgo, lastSeen: longAgo, userAgents: [], daily: {} },
        ],
        shared: true,
      }),
    );
    const run = await retireCheck(['--url', listener.url, '--quiet-days', '14']);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('');
    expect(run.stdout.trimEnd().split('\n').slice(1).map((l) => l.split(/\s{2,}/))).toEqual([
      ['INTEGRATION', 'LAST CALL', 'CALLS', 'LAST 14 DAYS'],
      ['crm-sync', yesterday, '12', '2'],
      ['b'.repeat(64), twoDaysAgo, '4', '-'],
    ]);
  });
});

describe('retire-check exit code 2', () => {
  it('a listener that cannot be reached, or is no metrics listener: one line, nothing checked', async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as net.AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    expect(await retireCheck(['--url', `http://127.0.0.1:${port}`, '--quiet-days', '30'])).toEqual({
      code: 2,
      stdout: '',
      stderr: `legacy-gateway retire-check: cannot fetch http://127.0.0.1:${port}/usage: ECONNREFUSED; nothing was checked\n`,
    });
    const publicPort = await retireCheck(['--url', gateway.url, '--quiet-days', '30']);
    expect(publicPort.code).toBe(2);
    expect(publicPort.stderr).toMatch(/^legacy-gateway retire-check: cannot fetch \S+\/usage: HTTP 404 .*; nothing was checked\n$/);
  });

  it.each([
    [['--quiet-days', '0', '--url', 'http://127.0.0.1:9'], '--quiet-days: a whole number of days from 1 to 3650, not 0'],
    [['--quiet-days', 'x', '--url', 'http://127.0.0.1:9'], '--quiet-days: a whole number of days from 1 to 3650, not x'],
    [['--quiet-days', '30'], '--url: required (the metrics listener of a gateway, e.g. http://127.0.0.1:9464)'],
    [['--url', 'ftp://host', '--quiet-days', '30'], '--url: must be http:// or https://'],
  ])('a bad option: %j', async (args, message) => {
    expect(await retireCheck(args)).toEqual({ code: 2, stdout: '', stderr: `legacy-gateway retire-check: ${message}\n` });
  });

  it('an unknown option', async () => {
    const run = await retireCheck(['--bogus']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("error: unknown option '--bogus'");
  });
});
