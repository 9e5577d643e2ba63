// `legacy-gateway brownout --dry-run`, its command line run in the test's process (test/helpers/cli-in-process.ts;
// the binary's own exit codes are tested in exit-codes.test.ts): a brownouts file tried against a gateway's
// GET /usage before it goes into service.
// - A real gateway over the embedded sandbox, its clock set back two days, counts two keys' calls (and a third
//   key's, ten days back): each window lists its openings to come and its scope, and exactly the integrations it
//   would refuse with their covered calls per method, from the report's calls per day when it counts them,
//   else from the per-method counts, and says which; the key last called ten days ago is not hit; a window naming integrations no key has
//   hits none and names them.
// - A report with names and daily counts (a fake metrics listener): `except` spares its integration, the calls are
//   those of the last 7 days (per method, or split by the method shares), with the calls expected per opening.
// - Without --url: the windows and their scope only. A bad file, an unknown method, no --dry-run: exit 2; an
//   unreachable listener: exit 1.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usageFingerprint } from '../../src/gateway/state/usage/usage-tracker.js';
import { SANDBOX_KEYS } from '../../src/sandbox/index.js';
import { runCli, type CliRun } from '../helpers/cli-in-process.js';
// The command's modules load with the file, not within a test's time (the command line loads them when run).
import '../../src/commands/brownout.js';
import { fetchReply } from '../helpers/fetch-reply.js';
import { get, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { json, startRecordingUpstream, type RecordingUpstream } from '../helpers/recording-upstream.js';

const SECRET = 'e2e-brownout-dry-run-secret-0123456789';
const OLD_KEY = 'a-key-last-used-ten-days-ago';
const FP_PRIMARY = usageFingerprint(SECRET, SANDBOX_KEYS.primary);
const FP_SECONDARY = usageFingerprint(SECRET, SANDBOX_KEYS.secondary);
const DAY = 86_400_000;
const HOUR = 3_600_000;
const START = Date.now();
/** Whole hours, so that the windows' times are spelled as the file spells them. */
const SOON = Math.ceil(START / HOUR) * HOUR + DAY;
const iso = (ms: number) => new Date(ms).toISOString();
const BY_METHODS = 'per-method counts since first seen (no daily counts)';
const BY_DAYS_SHARED = 'daily counts, last 7 days, split by its method shares';

function brownout(args: string[]): Promise<CliRun> {
  return runCli(['brownout', ...args], { BROWNOUTS_FILE: '', MAPPINGS_DIR: '' });
}

/** A window's block of the output: its lines from its name to the next blank line. */
function block(stdout: string, name: string): string[] {
  const lines = stdout.split('\n');
  const start = lines.findIndex((l) => l.startsWith(`${name}: `));
  expect(start, name).toBeGreaterThanOrEqual(0);
  const end = lines.indexOf('', start);
  return lines.slice(start, end < 0 ? undefined : end);
}

/** The table's rows of a block, as cells. */
const rows = (lines: string[]): string[][] => lines.filter((l) => l.startsWith('    ')).map((l) => l.trim().split(/\s{2,}/));

let dir: string;
let clock = START - 10 * DAY;
let gateway: TestGateway;
let listener: RecordingUpstream;

function windowsFile(name: string, yaml: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, yaml);
  return file;
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'lgw-brownout-dry-run-'));
  gateway = await startTestGateway({ METRICS_PORT: '0', GATEWAY_SECRET: SECRET, LOG_LEVEL: 'warn' }, { now: () => clock });
  // Ten days ago, a key v1 does not know (answered 401; still a legacy call, counted).
  expect((await get(gateway.url, '/api/clients/0/1', { 'x-api-key': OLD_KEY })).status).toBe(401);
  clock = START - 2 * DAY;
  const primary = { 'x-api-key': SANDBOX_KEYS.primary };
  for (const p of ['/api/clients/0/2', '/api/clients/0/3', '/api/client?id=1']) expect((await get(gateway.url, p, primary)).status).toBe(200);
  expect((await get(gateway.url, '/api/services/0/2', { 'x-api-key': SANDBOX_KEYS.secondary })).status).toBe(200);
  const payment = await fetchReply(`${gateway.url}/api/payment`, {
    method: 'POST',
    headers: primary,
    body: new URLSearchParams({ first_name: 'Grace', last_name: 'Hopper', email: 'grace@example.com', state: 'VA', country: 'US', status: 'active', revenue_amount: '45.50', send_email: '0' }),
  });
  expect(payment.status).toBe(200);
  listener = await startRecordingUpstream();
});

afterAll(async () => {
  await gateway?.close();
  await listener?.close();
  rmSync(dir, { recursive: true, force: true });
});

const WINDOWS = () => `brownouts:
  - name: clients-first
    start: ${iso(SOON)}
    end: ${iso(SOON + HOUR)}
    all: true
    methods: [clients, client]
    repeat: { every: 7d, until: ${iso(SOON + 30 * DAY)} }
  - name: named-only
    start: ${iso(SOON)}
    end: ${iso(SOON + 2 * HOUR)}
    integrations: [crm-sync]
  - name: services-and-payments
    start: ${iso(SOON + 2 * DAY)}
    end: ${iso(SOON + 3 * DAY)}
    all: true
    methods: [services]
    payments: true
  - name: long-past
    start: 2026-01-05T00:00:00Z
    end: 2026-01-06T00:00:00Z
    all: true
`;

describe('brownout --dry-run against a gateway', () => {
  it('lists each window\'s openings, scope, and the integrations it would refuse with their calls', async () => {
    const file = windowsFile('windows.yaml', WINDOWS());
    // What the counts are from: the gateway's report counts its calls per day, or only per method.
    const usage = (await fetchReply(`${gateway.metricsUrl!}/usage`)).body as { integrations: Array<{ daily?: unknown }> };
    const days = usage.integrations.every((i) => i.daily !== undefined);
    // With days: the calls per day split by the method shares (the same numbers here), a fraction of one per opening.
    const [perOpening, from] = days ? ['~0', BY_DAYS_SHARED] : ['-', BY_METHODS];
    const run = await brownout(['--dry-run', '--file', file, '--url', gateway.metricsUrl!]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n')[0]).toMatch(new RegExp(`^dry run of ${file} at \\S+Z: 4 windows; calls from ${gateway.metricsUrl!}/usage, the last 7 days \\(\\d{4}-\\d\\d-\\d\\d to \\d{4}-\\d\\d-\\d\\d\\)$`));

    const first = block(run.stdout, 'clients-first');
    expect(first.slice(0, 3)).toEqual([
      `clients-first: 1 h from ${iso(SOON)}, every 7 d until ${iso(SOON + 30 * DAY)}: 5 openings to come: ${iso(SOON)}, ${iso(SOON + 7 * DAY)}, ${iso(SOON + 14 * DAY)}, and 2 more to ${iso(SOON + 28 * DAY)}`,
      '  refuses: every integration, named or not; the read methods clients, client; not the payment',
      '  would refuse 1 integration:',
    ]);
    // The key last called ten days ago is not there: the last 7 days decide.
    expect(rows(first)).toEqual([
      ['INTEGRATION', 'CALLS', 'PER OPENING', 'METHODS', 'COUNTED FROM'],
      [FP_PRIMARY, '3', perOpening, 'clients 2, client 1', from],
    ]);

    expect(block(run.stdout, 'named-only')).toEqual([
      `named-only: 2 h from ${iso(SOON)}: 1 opening to come: ${iso(SOON)}`,
      '  refuses: the integrations crm-sync; every legacy read method; not the payment',
      '  would refuse no integration: none called what it covers in the last 7 days',
      '  named in the window but not in GET /usage (no call counted): crm-sync',
    ]);

    const third = block(run.stdout, 'services-and-payments');
    expect(third[1]).toBe('  refuses: every integration, named or not; the read methods services; and the payment');
    expect(rows(third)).toEqual([
      ['INTEGRATION', 'CALLS', 'PER OPENING', 'METHODS', 'COUNTED FROM'],
      [FP_PRIMARY, '1', perOpening, 'payment 1', from],
      [FP_SECONDARY, '1', perOpening, 'services 1', from],
    ]);

    expect(block(run.stdout, 'long-past')).toEqual([
      'long-past: 1 d from 2026-01-05T00:00:00.000Z: over, no opening to come',
      '  refuses: every integration, named or not; every legacy read method; not the payment',
    ]);
  });

  it('without --url: the windows and their scope alone', async () => {
    const file = windowsFile('alone.yaml', WINDOWS());
    const run = await brownout(['--dry-run', '--file', file]);
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n')[0]).toMatch(/: 4 windows; without a usage report \(--url\): the windows and their scope only$/);
    expect(run.stdout).not.toContain('would refuse');
    expect(block(run.stdout, 'named-only')).toHaveLength(2);
  });
});

describe('brownout --dry-run against a report with names and daily counts', () => {
  it('spares the excepted, counts the last 7 days per method or by share, and the calls per opening', async () => {
    const now = Date.now();
    const day = (back: number) => iso(now - back * DAY).slice(0, 10);
    listener.handle((_req, res) =>
      json(res, 200, {
        integrations: [
          // Per method and day: 10 days ago does not count.
          { name: 'crm-sync', fingerprint: 'a'.repeat(64), calls: 1000, methods: { clients: 900, payment: 100 }, firstSeen: iso(now - 30 * DAY), lastSeen: iso(now - DAY), userAgents: [],
            daily: { [day(10)]: { clients: 500 }, [day(1)]: { clients: 140, client: 28, payment: 5 } } },
          // Totals per day only: split by its method shares (3/4 clients).
          { name: 'report-bot', fingerprint: 'b'.repeat(64), calls: 400, methods: { clients: 300, services: 100 }, firstSeen: iso(now - 30 * DAY), lastSeen: iso(now - DAY), userAgents: [],
            daily: [{ day: day(2), calls: 56 }, { day: day(1), calls: 112 }] },
          { name: 'shop-widget', fingerprint: 'c'.repeat(64), calls: 50, methods: { clients: 50 }, firstSeen: iso(now - 3 * DAY), lastSeen: iso(now - DAY), userAgents: [], daily: { [day(1)]: 50 } },
        ],
        shared: true,
      }),
    );
    const file = windowsFile('named.yaml', `brownouts:
  - name: reads
    start: ${iso(SOON)}
    end: ${iso(SOON + HOUR)}
    all: true
    except: [shop-widget, gone-away]
    methods: [clients, client]
`);
    const run = await brownout(['--dry-run', '--file', file, '--url', listener.url]);
    expect(run.code).toBe(0);
    const lines = block(run.stdout, 'reads');
    expect(lines[1]).toBe('  refuses: every integration, named or not, except shop-widget, gone-away; the read methods clients, client; not the payment');
    // 168 calls in 7 days: 1 an hour, the window's length.
    expect(rows(lines)).toEqual([
      ['INTEGRATION', 'CALLS', 'PER OPENING', 'METHODS', 'COUNTED FROM'],
      ['crm-sync', '168', '~1', 'clients 140, client 28', 'daily counts per method, last 7 days'],
      ['report-bot', '126', '~1', 'clients 126', 'daily counts, last 7 days, split by its method shares'],
    ]);
    expect(lines.at(-1)).toBe('  named in the window but not in GET /usage (no call counted): gone-away');
  });
});

describe('brownout exit codes', () => {
  it('2: a file that is not a brownouts file, a method the gateway does not serve, no --dry-run, no file', async () => {
    const bad = windowsFile('bad.yaml', 'brownouts:\n  - name: x\n    start: tomorrow\n');
    expect(await brownout(['--dry-run', '--file', bad])).toEqual({
      code: 2,
      stdout: '',
      stderr: `legacy-gateway brownout: BROWNOUTS_FILE (${bad}): brownouts.0.start: must be a date and time with its offset (2027-01-12T14:00:00Z)\n`,
    });
    const unknown = windowsFile('unknown.yaml', `brownouts:\n  - name: x\n    start: ${iso(SOON)}\n    end: ${iso(SOON + HOUR)}\n    all: true\n    methods: [nope]\n`);
    expect((await brownout(['--dry-run', '--file', unknown])).stderr).toBe(
      `legacy-gateway brownout: BROWNOUTS_FILE (${unknown}): brownouts.0.methods: not a legacy read method the gateway serves: nope\n`,
    );
    expect(await brownout(['--file', unknown])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'legacy-gateway brownout: --dry-run: required (the gateway itself applies BROWNOUTS_FILE; this command only tells what it would do)\n',
    });
    expect(await brownout(['--dry-run'])).toEqual({ code: 2, stdout: '', stderr: 'legacy-gateway brownout: --file: required (or BROWNOUTS_FILE): the brownouts file to try\n' });
  });

  it('1: a listener that cannot be reached', async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as net.AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const file = windowsFile('reachable.yaml', WINDOWS());
    expect(await brownout(['--dry-run', '--file', file, '--url', `http://127.0.0.1:${port}`])).toEqual({
      code: 1,
      stdout: '',
      stderr: `legacy-gateway brownout: cannot fetch http://127.0.0.1:${port}/usage: ECONNREFUSED\n`,
    });
  });
});
