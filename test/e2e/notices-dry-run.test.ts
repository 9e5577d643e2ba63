// `legacy-gateway notices --dry-run`, run in process over a usage report as a gateway's GET /usage gives it:
// the notices due at a fixed moment from the files (sunset-call for a call today, brownout-upcoming for a
// window opening within 24 h that would refuse a method called in the last 7 days, quiet after QUIET_DAYS),
// the notify URL printed without its query or credentials; a file the gateway would refuse is exit 2, a
// report that cannot be fetched exit 1.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runNotices, type NoticesIo } from '../../src/commands/notices.js';
import { noticeId } from '../../src/gateway/notices/notice-schedule.js';

const NOW = Date.parse('2027-01-11T15:00:00Z');
const DAY = 86_400_000;
const FP = (c: string) => c.repeat(64);

let dir: string;
let integrations: string;
let brownouts: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'lgw-notices-dry-'));
  integrations = path.join(dir, 'integrations.yaml');
  brownouts = path.join(dir, 'brownouts.yaml');
  writeFileSync(
    integrations,
    `integrations:
  - name: crm-sync
    owner: CRM
    notify: https://user:pw@hooks.example.com/legacy?token=t0ken
    fingerprints: [${FP('a')}]
  - name: old-batch
    owner: Batch
    notify: https://hooks.example.com/batch
    fingerprints: [${FP('b')}]
  - name: shop-widget
    owner: Shop
    fingerprints: [${FP('c')}]
`,
  );
  writeFileSync(brownouts, 'brownouts:\n  - name: first-warning\n    start: 2027-01-12T14:00:00Z\n    end: 2027-01-12T15:00:00Z\n    all: true\n    methods: [clients]\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => {
  process.exitCode = undefined;
});

const entry = (name: string, fp: string, lastSeen: number, methods: Record<string, number>) => ({ name, fingerprint: fp, calls: 1, methods, firstSeen: new Date(lastSeen - DAY).toISOString(), lastSeen: new Date(lastSeen).toISOString(), userAgents: [] });
const REPORT = { integrations: [entry('crm-sync', FP('a'), NOW - 3_600_000, { clients: 4 }), entry('old-batch', FP('b'), NOW - 30 * DAY - 1, { staff: 1 }), entry('shop-widget', FP('c'), NOW, { clients: 1 })], shared: true };

function io(reply: () => Promise<Response> = () => Promise.resolve(new Response(JSON.stringify(REPORT), { headers: { 'content-type': 'application/json' } }))) {
  const out: string[] = [];
  const err: string[] = [];
  const value: NoticesIo = { out: (t) => void out.push(t), err: (t) => void err.push(t), fetch: () => reply(), now: () => NOW };
  return { value, out, err };
}

describe('notices --dry-run', () => {
  it('lists the notices due now, as a gateway decides them, in JSON', async () => {
    const run = io();
    await runNotices({ dryRun: true, url: 'http://127.0.0.1:9464', integrations, brownouts, json: true }, { LEGACY_SUNSET: '2027-03-01' }, run.value);
    expect(process.exitCode).toBeUndefined();
    const listed = JSON.parse(run.out.join('')) as Array<{ notify: string; body: { id: string; type: string; integration: string } }>;
    expect(listed.map((n) => [n.body.type, n.body.integration, n.notify])).toEqual([
      ['sunset-call', 'crm-sync', 'https://hooks.example.com/legacy'],
      ['brownout-upcoming', 'crm-sync', 'https://hooks.example.com/legacy'],
      ['quiet', 'old-batch', 'https://hooks.example.com/batch'],
    ]);
    expect(listed[0]!.body.id).toBe(noticeId('crm-sync', 'sunset-call', '2027-01-11'));
    expect(run.out.join('')).not.toContain('t0ken');
  });

  it('prints a table, and says what it cannot know', async () => {
    const run = io();
    await runNotices({ dryRun: true, url: 'http://127.0.0.1:9464', integrations }, {}, run.value);
    const text = run.out.join('');
    expect(text).toContain('dry run at 2027-01-11T15:00:00.000Z: 2 of 3 integrations have a notify URL; calls from http://127.0.0.1:9464/usage');
    expect(text).toContain('not listed: brownout-hit');
    expect(text.split('\n').filter((l) => /^(sunset-call|brownout-upcoming|quiet) /.test(l)).map((l) => l.split(/\s+/).slice(0, 2))).toEqual([['quiet', 'old-batch']]);
  });

  it('exit 2 without --dry-run or for a file the gateway would refuse; exit 1 when the usage cannot be fetched', async () => {
    const first = io();
    await runNotices({ integrations }, {}, first.value);
    expect(process.exitCode).toBe(2);
    const bad = path.join(dir, 'bad.yaml');
    writeFileSync(bad, 'integrations:\n  - name: x\n    owner: X\n    notify: ftp://x\n    fingerprints: [00]\n');
    const second = io();
    await runNotices({ dryRun: true, integrations: bad }, {}, second.value);
    expect(process.exitCode).toBe(2);
    expect(second.err.join('')).toContain(`INTEGRATIONS_FILE (${bad}): integrations.0 ("x"): notify: must be an http:// or https:// URL`);
    process.exitCode = undefined;
    const third = io(() => Promise.reject(new Error('ECONNREFUSED')));
    await runNotices({ dryRun: true, url: 'http://127.0.0.1:9', integrations }, {}, third.value);
    expect(process.exitCode).toBe(1);
  });
});
