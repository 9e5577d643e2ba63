// What a replay must not mislead about, end to end through a real gateway over the sandbox: a recording
// the gateway made itself (RECORD_FILE), holding calls that succeeded and calls v1 refused for their key
// (401: a key it does not know; 403: a key not allowed the resource), replayed through a gateway that
// records into the very file being replayed.
// - a call refused for its key is not comparable and never sent, unless --compare-key-refusals;
// - every replayed call says so (Legacy-Gateway-Replay: 1), and the gateway neither records it (the input
//   does not grow) nor counts it in GET /usage; an ordinary call still is both;
// - the in-process gateway does not record either, whatever RECORD_FILE says;
// - the HTML report's curl lines go to the target, its verdict's colour is the verdict's, and the default
//   rules that matched nothing are one sentence, not a list of "matched nothing".
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_KEYS, startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { json, startRecordingUpstream } from '../helpers/recording-upstream.js';
import { runReplayCaptured } from './replay-command.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'replay-replayed-calls-'));
const recording = path.join(dir, 'recorded.jsonl');
const RETIRED_KEY = 'retired-key-0042';
const INTEGRATION = 'crm-sync/1.0';
const KEY_REFUSED = (status: number): string =>
  `refused for its key in the recording (HTTP ${status}): the replay would send its own key; --compare-key-refusals sends it anyway`;

let sandbox: RunningSandbox;
/** The gateway that serves the replays, recording into the file they read (closed by the test that reads the file). */
let gateway: TestGateway;
let gatewayOpen = false;
/** The recording as the first gateway left it. */
let recorded = '';

interface JsonReport {
  summary: Record<string, unknown>;
  entries: Array<{ index: number; url: string; outcome: string; reason?: string }>;
}
const readReport = (file: string): JsonReport => JSON.parse(readFileSync(file, 'utf8')) as JsonReport;
/** Each entry as `index outcome path [reason]`, in file order. */
const outcomes = (report: JsonReport): string[] =>
  [...report.entries].sort((a, b) => a.index - b.index).map((e) => `${e.index} ${e.outcome} ${new URL(e.url).pathname}${e.reason ? ` [${e.reason}]` : ''}`);
/** The v1 calls the sandbox received since `from`, sorted (the replay sends reads concurrently). */
const sandboxPaths = (from: number): string[] => sandbox.state.requests.slice(from).map((r) => `${r.method} ${r.path}`).sort();
/** The text of each copy-as-curl line of a page, entities decoded. */
const curlLines = (html: string): string[] =>
  [...html.matchAll(/<div class="curl"><pre><code>([^<]*)<\/code>/g)].map((m) => (m[1] as string).replace(/&#(\d+);/g, (_, c: string) => String.fromCharCode(Number(c))));
const verdictOpening = (html: string): string | undefined => /<div class="verdict[^"]*"><p class="headline">[^<]*<\/p>/.exec(html)?.[0];

async function usage(): Promise<{ integrations: Array<Record<string, unknown>> }> {
  const res = await fetch(`${gateway.metricsUrl!}/usage`);
  expect(res.status).toBe(200);
  return (await res.json()) as { integrations: Array<Record<string, unknown>> };
}

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0 });
  // An integration's calls, recorded by the gateway it called.
  const first = await startTestGateway({ UPSTREAM_URL: sandbox.url, RECORD_FILE: recording, CACHE_TTL_MS: '0' });
  try {
    const call = (url: string, key: string) => fetch(`${first.url}${url}`, { headers: { 'x-api-key': key, 'user-agent': INTEGRATION } });
    expect((await call('/api/staff/1', SANDBOX_KEYS.primary)).status).toBe(200);
    expect((await call('/api/clients/0/2', RETIRED_KEY)).status).toBe(401);
    expect((await call('/api/sessions/0/1', SANDBOX_KEYS.secondary)).status).toBe(403);
    expect((await call('/api/services/0/2', SANDBOX_KEYS.primary)).status).toBe(200);
  } finally {
    await first.close();
  }
  recorded = readFileSync(recording, 'utf8');
  expect(recorded.trim().split('\n')).toHaveLength(4);
  gateway = await startTestGateway({ UPSTREAM_URL: sandbox.url, RECORD_FILE: recording, METRICS_PORT: '0', CACHE_TTL_MS: '0' });
  gatewayOpen = true;
});
afterAll(async () => {
  if (gatewayOpen) await gateway.close();
  await sandbox?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a recorded call refused for its key', () => {
  it('is not comparable and never sent: the replay would send its own key', async () => {
    const before = sandbox.state.requests.length;
    const json = path.join(dir, 'refusals.json');
    const run = await runReplayCaptured(recording, { target: gateway.url, apiKey: SANDBOX_KEYS.primary, json });
    expect(run.code).toBe(0);
    expect(outcomes(readReport(json))).toEqual([
      '0 identical /api/staff/1',
      `1 not-comparable /api/clients/0/2 [${KEY_REFUSED(401)}]`,
      `2 not-comparable /api/sessions/0/1 [${KEY_REFUSED(403)}]`,
      '3 identical /api/services/0/2',
    ]);
    expect(readReport(json).summary).toMatchObject({ total: 4, identical: 2, different: 0, skipped: 0, errors: 0, notComparable: 2 });
    expect(sandboxPaths(before)).toEqual(['GET /api/v1/services', 'GET /api/v1/staff/1']);
    expect(run.stdout).toContain(
      '\nnot comparable: 2 entries never sent: the recording cannot be replayed as made (a secret kept only as "[REDACTED]", a call refused for its key): each entry\'s reason says which\n',
    );
    expect(run.stdout).toContain('0 of 4 entries differ or failed (allowed: 0) (not counted: 2 not comparable): exit 0\n');
  });

  it('is sent with the replay\'s key and compared with --compare-key-refusals', async () => {
    const before = sandbox.state.requests.length;
    const json = path.join(dir, 'compared.json');
    const run = await runReplayCaptured(recording, { target: gateway.url, apiKey: SANDBOX_KEYS.primary, compareKeyRefusals: true, json });
    expect(run.code).toBe(1);
    expect(outcomes(readReport(json))).toEqual(['0 identical /api/staff/1', '1 different /api/clients/0/2', '2 different /api/sessions/0/1', '3 identical /api/services/0/2']);
    expect(sandboxPaths(before)).toEqual(['GET /api/v1/clients', 'GET /api/v1/services', 'GET /api/v1/sessions', 'GET /api/v1/staff/1']);
  });

  it('--compare-key-refusals sends nothing more with --shadow-pairs: refused as a usage error', async () => {
    const run = await runReplayCaptured(recording, { shadowPairs: true, compareKeyRefusals: true });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('legacy-gateway replay: --shadow-pairs sends nothing: --compare-key-refusals does not apply\n');
  });
});

describe('replayed calls through the gateway that records the file replayed', () => {
  it('carry Legacy-Gateway-Replay: 1', async () => {
    const target = await startRecordingUpstream((_req, res) => json(res, 200, { status: 'success', response: [] }));
    try {
      const one = path.join(dir, 'one.jsonl');
      writeFileSync(one, `${recorded.split('\n')[0]!}\n`);
      await runReplayCaptured(one, { target: target.url, apiKey: SANDBOX_KEYS.primary });
      expect(target.received.map((r) => [r.url, r.headers['legacy-gateway-replay']])).toEqual([['/api/staff/1', '1']]);
    } finally {
      await target.close();
    }
  });

  it('are neither recorded (the input does not grow) nor counted in GET /usage; an ordinary call is both', async () => {
    for (const compareKeyRefusals of [false, true]) {
      await runReplayCaptured(recording, { target: gateway.url, apiKey: SANDBOX_KEYS.primary, compareKeyRefusals });
    }
    // The replays above and the earlier ones in this file: not one call counted.
    expect((await usage()).integrations).toEqual([]);

    const ordinary = await fetch(`${gateway.url}/api/staff/2`, { headers: { 'x-api-key': SANDBOX_KEYS.primary, 'user-agent': INTEGRATION } });
    expect(ordinary.status).toBe(200);
    const counted = (await usage()).integrations;
    expect(counted).toHaveLength(1);
    expect(counted[0]).toMatchObject({ calls: 1, methods: { staff: 1 }, userAgents: [INTEGRATION] });

    await gateway.close();
    gatewayOpen = false;
    const after = readFileSync(recording, 'utf8');
    expect(after.startsWith(recorded)).toBe(true);
    const added = after.slice(recorded.length).trim().split('\n').map((l) => (JSON.parse(l) as { request: { url: string } }).request.url);
    expect(added).toEqual([`${gateway.url}/api/staff/2`]);
    recorded = after;
  });

  it('are not recorded by the in-process gateway, whatever RECORD_FILE says', async () => {
    const run = await runReplayCaptured(recording, { apiKey: SANDBOX_KEYS.primary }, { RECORD_FILE: recording });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('0 of 5 entries differ or failed (allowed: 0) (not counted: 2 not comparable): exit 0\n');
    expect(readFileSync(recording, 'utf8')).toBe(recorded);
  });
});

describe('the HTML report', () => {
  const html = path.join(dir, 'report.html');
  let target: TestGateway;
  beforeAll(async () => {
    target = await startTestGateway({ UPSTREAM_URL: sandbox.url, CACHE_TTL_MS: '0' });
  });
  afterAll(async () => {
    await target.close();
  });

  it('sends its copy-as-curl lines to the target, not to the recorded host', async () => {
    await runReplayCaptured(recording, { target: `${target.url}/`, apiKey: SANDBOX_KEYS.primary, html });
    expect(curlLines(readFileSync(html, 'utf8'))).toEqual([
      `curl -sS '${target.url}/api/clients/0/2' -H "X-API-KEY: $LEGACY_API_KEY"`,
      `curl -sS '${target.url}/api/sessions/0/1' -H "X-API-KEY: $LEGACY_API_KEY"`,
    ]);
  });

  it('colours the verdict as the verdict goes: red over --max-differences, green within it', async () => {
    const over = await runReplayCaptured(recording, { target: target.url, apiKey: SANDBOX_KEYS.primary, compareKeyRefusals: true, html });
    expect(over.code).toBe(1);
    expect(verdictOpening(readFileSync(html, 'utf8'))).toBe('<div class="verdict verdict-fail"><p class="headline">2 of 5 replayed calls differ.</p>');
    const within = await runReplayCaptured(recording, { target: target.url, apiKey: SANDBOX_KEYS.primary, compareKeyRefusals: true, maxDifferences: '2', html });
    expect(within.code).toBe(0);
    const page = readFileSync(html, 'utf8');
    expect(verdictOpening(page)).toBe('<div class="verdict verdict-pass"><p class="headline">2 of 5 replayed calls differ.</p>');
    expect(page).toContain('Allowed by <code>--max-differences</code>: 2, so the run passes (exit 0).');
  });

  it('lists the rules that matched, and says in one sentence what the unused default rules are for', async () => {
    const rules = path.join(dir, 'rules.yaml');
    writeFileSync(rules, 'ignore:\n  - path: $.response[*].service_cost\n  - path: $.response.nowhere\n');
    await runReplayCaptured(recording, { target: target.url, apiKey: SANDBOX_KEYS.primary, rules, html });
    const page = readFileSync(html, 'utf8');
    const section = /<h3>Rules<\/h3>.*?<\/section>/s.exec(page)?.[0];
    expect(section).toBe(
      '<h3>Rules</h3><ul class="rules">' +
        '<li class=""><code>ignore[0] $.response[*].service_cost</code>: applied in 1 entry</li>' +
        '<li class="unmatched"><code>ignore[1] $.response.nowhere</code>: <strong>matched nothing</strong></li></ul>' +
        '<p class="warn">1 rule(s) matched nothing: remove or fix them.</p>' +
        '<p class="note" id="unused-default-rules">3 default rules not used by this run: they make equal what the gateway makes new on every call ' +
        '(payment ids, new client ids, request ids), which no compared call here carried.</p></div></div></section>',
    );
  });
});
