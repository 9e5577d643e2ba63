// `replay --propose-mappings` end to end: legacy calls recorded through a real gateway (RECORD_FILE) against a
// fake v1 whose field names are the mappings' own; the recording replayed against a fake v1 that renames a
// few practitioner, service and session fields, sends a time with seconds, drops a field the legacy service
// always filled, and changed one value since; the proposal checked (edits, evidence, unexplained, the YAML
// copy, what reached v1, no key anywhere), then the recording replayed again with MAPPINGS_DIR=<proposal>:
// every proposed field is identical, and only the changed value still differs.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMappingDirectorySync } from '../../src/gateway/loaders/mapping-files.js';
import { startTestGateway } from '../helpers/gateway.js';
import { json, startRecordingUpstream, v1List, type RecordingUpstream, type UpstreamHandler } from '../helpers/recording-upstream.js';
import { runReplayCaptured, type ReplayRun } from './replay-command.js';

const SHIPPED = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../mappings');
const RECORDING_KEY = 'recording-key-5c1d9e';
const REPLAY_KEY = 'replay-v1-key-7781aa';
const dir = mkdtempSync(path.join(os.tmpdir(), 'replay-propose-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type V1Data = Record<string, Array<Record<string, unknown>>>;

/** v1 as the mappings assume it: every field under its legacy name. */
const ASSUMED: V1Data = {
  practitioners: [
    // Grace comes before Ada in v1's order; the team listing sorts them by priority, then first name.
    { object: 'practitioner', id: 2, pract_settings_id: 12, first_name: 'Grace', last_name: 'Hopper', p_phone: '555-0102', priority: 1, position: 'Lead', calendar: 'month' },
    { object: 'practitioner', id: 1, pract_settings_id: 11, first_name: 'Ada', last_name: 'Lovelace', p_phone: '555-0101', priority: 1, position: 'Coach', calendar: 'month' },
    { object: 'practitioner', id: 3, pract_settings_id: 13, first_name: 'Alan', last_name: 'Turing', p_phone: null, priority: 2, position: 'Coach', calendar: 'month' },
  ],
  services: [
    { object: 'service', id: 4, group_id: 1, service_description: 'Private lesson', service_cost: 45.5, min_duration: '01:00', max_duration: '01:30', name: 'Private' },
    { object: 'service', id: 5, group_id: 1, service_description: 'Group lesson', service_cost: 20, min_duration: '00:45', max_duration: '00:45', name: 'Group' },
  ],
  sessions: [
    { object: 'session', id: 101, confirmed: 1, pract_id: 1, client_id: 7, service_id: 4, session_date: '2024-03-05', session_start_time: '09:00:00', session_note: 'bring fins', timezone: 'Europe/London' },
    { object: 'session', id: 102, confirmed: 1, pract_id: 2, client_id: 8, service_id: 5, session_date: '2024-03-05', session_start_time: '10:30:00', session_note: null, timezone: 'Europe/London' },
    { object: 'session', id: 103, confirmed: 0, pract_id: 1, client_id: 9, service_id: 4, session_date: '2024-03-06', session_start_time: '11:00:00', session_note: 'late', timezone: 'Europe/London' },
  ],
};

function renamed(record: Record<string, unknown>, names: Record<string, string>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [names[k] ?? k, v]));
}

/** The real service: some names are not the legacy ones. */
const REAL: V1Data = {
  practitioners: ASSUMED.practitioners!.map(({ calendar: _calendar, ...p }) => ({
    ...renamed(p, { first_name: 'given_name', p_phone: 'phone_primary' }),
    // Changed since the recording: no v1 field explains it.
    ...(p.id === 3 ? { last_name: 'Turing-Smith' } : {}),
  })),
  services: ASSUMED.services!.map((s) => ({
    ...renamed(s, { service_description: 'description', service_cost: 'cost' }),
    min_duration: `${s.min_duration as string}:00`,
  })),
  sessions: ASSUMED.sessions!.map((s) => renamed(s, { pract_id: 'practitioner_id', session_note: 'note' })),
};

/** GET /api/v1/{resource}[/{id}] from the data, paged by offset and limit. */
function v1Service(data: V1Data): UpstreamHandler {
  return (req, res) => {
    const url = new URL(req.url, 'http://v1');
    const m = /^\/api\/v1\/([a-z-]+)(?:\/(\d+))?$/.exec(url.pathname);
    const records = m ? data[m[1]!] : undefined;
    if (!m || !records) return json(res, 404, { error: { code: 'unknown_resource', message: 'no such resource' } });
    if (m[2] !== undefined) {
      const found = records.find((r) => String(r.id) === m[2]);
      return found ? json(res, 200, found) : json(res, 404, { error: { code: 'not_found', message: 'no such record' } });
    }
    const offset = Number(url.searchParams.get('offset') ?? '0');
    const limit = Number(url.searchParams.get('limit') ?? '100');
    const page = records.slice(offset, offset + limit);
    return json(res, 200, v1List(page, { total: records.length, offset, limit, has_more: offset + limit < records.length }));
  };
}

const CALLS = [
  '/api/practitioners/0/3',
  '/api/practitioner/1',
  '/api/practitioner/2',
  '/api/meetourteam/0/3',
  '/api/services/0/2',
  '/api/service/4',
  '/api/sessions/0/3',
  '/api/session/101',
];

const replay = (file: string, options: Record<string, unknown>, env: NodeJS.ProcessEnv = {}): Promise<ReplayRun> =>
  runReplayCaptured(file, { concurrency: '2', ...options }, env);

interface Report {
  summary: { total: number; identical: number; different: number };
  proposals: unknown[];
  unexplained: Array<{ record: string; legacyField: string; methods: string[]; values: unknown[]; reason: string }>;
  entries: Array<{ index: number; url: string; outcome: string; diffs: Array<{ path: string; kind: string }> }>;
}

const readReport = (file: string): { text: string; report: Report } => {
  const text = readFileSync(file, 'utf8');
  return { text, report: JSON.parse(text) as Report };
};

/** Every file of a mappings directory, by relative path. */
function mappingTexts(root: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const sub of ['', 'records']) {
    for (const name of readdirSync(path.join(root, sub)).filter((n) => n.endsWith('.yaml')).sort()) {
      out.set(path.join(sub, name), readFileSync(path.join(root, sub, name), 'utf8'));
    }
  }
  return out;
}

/** The lines of `after` that are not in `before`, per file that changed. */
function addedLines(before: Map<string, string>, after: Map<string, string>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [file, text] of after) {
    const old = new Set((before.get(file) ?? '').split('\n'));
    const added = text.split('\n').filter((line) => !old.has(line));
    if (added.length > 0) out[file] = added;
  }
  return out;
}

describe('replay --propose-mappings', () => {
  const recording = path.join(dir, 'calls.jsonl');
  const proposed = path.join(dir, 'proposed');
  const shippedBefore = mappingTexts(SHIPPED);
  let real: RecordingUpstream;
  let first: ReplayRun;
  let firstReport: { text: string; report: Report };

  beforeAll(async () => {
    const assumed = await startRecordingUpstream(v1Service(ASSUMED));
    const gateway = await startTestGateway({ UPSTREAM_URL: assumed.url, RECORD_FILE: recording, CACHE_TTL_MS: '0' });
    try {
      for (const call of CALLS) {
        const res = await fetch(`${gateway.url}${call}`, { headers: { 'x-api-key': RECORDING_KEY } });
        expect(res.status, call).toBe(200);
        await res.arrayBuffer();
      }
    } finally {
      await gateway.close();
      await assumed.close();
    }
    real = await startRecordingUpstream(v1Service(REAL));
    first = await replay(recording, { upstream: real.url, apiKey: REPLAY_KEY, proposeMappings: proposed, json: path.join(dir, 'first.json') });
    firstReport = readReport(path.join(dir, 'first.json'));
  });
  afterAll(() => real.close());

  it('replays the recording identical against the fake v1 it was recorded from', async () => {
    const assumed = await startRecordingUpstream(v1Service(ASSUMED));
    try {
      const run = await replay(recording, { upstream: assumed.url, apiKey: REPLAY_KEY });
      expect(run.stdout).toContain(`0 of ${CALLS.length} entries differ or failed`);
      expect(run.code).toBe(0);
    } finally {
      await assumed.close();
    }
  });

  it('proposes a rename, format or default for each field v1 holds under another name or spelling, with its evidence', () => {
    expect(first.code).toBe(1);
    expect(firstReport.text).toMatch(/"rules":\[.*\],"proposals":\[.*\],"unexplained":\[.*\],"entries":\[/s);
    expect(firstReport.report.proposals).toEqual([
      {
        record: 'practitioner',
        legacyField: 'first_name',
        edit: { kind: 'rename', from: 'first_name', to: 'given_name', alsoIn: ['meetourteam.yaml: sort.1.field'] },
        evidence: { agreeing: 8, of: 8, entries: [0, 1, 2, 3] },
        methods: ['practitioners', 'practitioner', 'meetourteam'],
      },
      {
        record: 'practitioner',
        legacyField: 'p_phone',
        edit: { kind: 'rename', from: 'p_phone', to: 'phone_primary' },
        evidence: { agreeing: 5, of: 5, entries: [0, 1, 2] },
        methods: ['practitioners', 'practitioner'],
      },
      {
        record: 'practitioner',
        legacyField: 'calendar',
        edit: { kind: 'default', value: 'month' },
        evidence: { agreeing: 2, of: 2, entries: [1, 2] },
        methods: ['practitioner'],
      },
      {
        record: 'service',
        legacyField: 'service_description',
        edit: { kind: 'rename', from: 'service_description', to: 'description' },
        evidence: { agreeing: 3, of: 3, entries: [4, 5] },
        methods: ['services', 'service'],
      },
      {
        record: 'service',
        legacyField: 'service_cost',
        edit: { kind: 'rename', from: 'service_cost', to: 'cost' },
        evidence: { agreeing: 3, of: 3, entries: [4, 5] },
        methods: ['services', 'service'],
      },
      {
        record: 'service',
        legacyField: 'min_duration',
        edit: { kind: 'format', field: 'min_duration', from: 'text', to: 'hhmm' },
        evidence: { agreeing: 3, of: 3, entries: [4, 5] },
        methods: ['services', 'service'],
      },
      {
        record: 'session',
        legacyField: 'pract_id',
        edit: { kind: 'rename', from: 'pract_id', to: 'practitioner_id' },
        evidence: { agreeing: 4, of: 4, entries: [6, 7] },
        methods: ['sessions', 'session'],
      },
      {
        record: 'session',
        legacyField: 'session_note',
        edit: { kind: 'rename', from: 'session_note', to: 'note' },
        evidence: { agreeing: 4, of: 4, entries: [6, 7] },
        methods: ['sessions', 'session'],
      },
    ]);
  });

  it('lists a field with no consistent v1 source as unexplained, with the values seen', () => {
    expect(firstReport.report.unexplained).toEqual([
      {
        record: 'practitioner',
        legacyField: 'last_name',
        methods: ['practitioners', 'practitioner', 'meetourteam'],
        values: [
          { entry: 0, recorded: 'Turing', gateway: 'Turing-Smith' },
          { entry: 3, recorded: 'Turing', gateway: 'Turing-Smith' },
        ],
        reason: 'best v1 field `last_name` (text) writes 4 of 6 recorded values',
      },
    ]);
  });

  it('prints the proposals and the unexplained fields after the summary table', () => {
    expect(first.stdout).toContain(`mapping proposal: 8 edits, written to ${proposed}`);
    expect(first.stdout).toContain('  practitioner.p_phone: rename: read `phone_primary` (was `p_phone`); 5 of 5 records (practitioners, practitioner)');
    expect(first.stdout).toContain('  service.min_duration: format: hhmm (was text); 3 of 3 records (services, service)');
    expect(first.stdout).toContain('  practitioner.calendar: default: "month"; 2 of 2 records (practitioner)');
    expect(first.stdout).toContain('unexplained fields: 1\n  practitioner.last_name: best v1 field `last_name` (text) writes 4 of 6 recorded values; recorded / gateway: entry 0: "Turing" / "Turing-Smith", entry 3: "Turing" / "Turing-Smith"\n');
  });

  it('writes a complete copy of the mappings that loads, with only the edits and their evidence added', () => {
    const after = mappingTexts(proposed);
    expect([...after.keys()]).toEqual([...shippedBefore.keys()]);
    expect(readdirSync(proposed).sort()).toEqual(readdirSync(SHIPPED).sort());
    expect(() => loadMappingDirectorySync(proposed)).not.toThrow();
    expect(addedLines(shippedBefore, after)).toEqual({
      'meetourteam.yaml': [
        '  # replay proposal: v1 `first_name` is now `given_name` (practitioner.first_name: 8 of 8 records agree (entries 0, 1, 2, 3))',
        '  - { field: given_name, type: text, nulls: last }',
      ],
      'records/practitioner.yaml': [
        '  # replay proposal: read v1 `given_name` (was `first_name`); 8 of 8 records agree (entries 0, 1, 2, 3)',
        '  - { name: first_name, from: given_name }',
        '  # replay proposal: read v1 `phone_primary` (was `p_phone`); 5 of 5 records agree (entries 0, 1, 2)',
        '  - { name: p_phone, from: phone_primary }',
        '  # replay proposal: default "month" (v1 sends no such field); 2 of 2 records agree (entries 1, 2)',
        '  - { name: calendar, missing: true, guess: "v1 has no calendar view setting; the reference documents no default", default: "month" }',
      ],
      'records/service.yaml': [
        '  # replay proposal: read v1 `description` (was `service_description`); 3 of 3 records agree (entries 4, 5)',
        '  - { name: service_description, from: description }',
        '  # replay proposal: read v1 `cost` (was `service_cost`); 3 of 3 records agree (entries 4, 5)',
        '  - { name: service_cost, from: cost, format: money }',
        '  # replay proposal: format hhmm (was text); 3 of 3 records agree (entries 4, 5)',
        '  - { name: min_duration, format: hhmm }',
      ],
      'records/session.yaml': [
        '  # replay proposal: read v1 `practitioner_id` (was `pract_id`); 4 of 4 records agree (entries 6, 7)',
        '  - { name: pract_id, from: practitioner_id }',
        '  # replay proposal: read v1 `note` (was `session_note`); 4 of 4 records agree (entries 6, 7)',
        '  - { name: session_note, from: note }',
      ],
    });
  });

  it('never touches the shipped mappings', () => {
    expect(mappingTexts(SHIPPED)).toEqual(shippedBefore);
  });

  it('reads the v1 records behind the differing calls with the replay key, from the mappings (no key printed or written)', () => {
    const reads = real.received.map((r) => r.url);
    for (const url of ['/api/v1/practitioners?offset=0&limit=3', '/api/v1/practitioners/1', '/api/v1/services/4', '/api/v1/sessions/101']) {
      expect(reads).toContain(url);
    }
    // The team listing's records, as its mapping reads them: every page at its page size.
    expect(reads).toContain('/api/v1/practitioners?offset=0&limit=1000');
    expect(real.received.every((r) => r.headers['x-api-key'] === REPLAY_KEY)).toBe(true);
    const written = [...mappingTexts(proposed).values()].join('\n');
    for (const text of [firstReport.text, first.stdout, first.stderr, written]) {
      expect(text).not.toContain(REPLAY_KEY);
      expect(text).not.toContain(RECORDING_KEY);
    }
  });

  it('proposes the same through a running gateway (--target), reading v1 through its /api/v1 passthrough', async () => {
    const gateway = await startTestGateway({ UPSTREAM_URL: real.url, CACHE_TTL_MS: '0' });
    const readsBefore = real.received.length;
    try {
      const viaTarget = path.join(dir, 'via-target');
      const run = await replay(recording, { target: gateway.url, apiKey: REPLAY_KEY, proposeMappings: viaTarget, json: path.join(dir, 'target.json') });
      expect(run.code).toBe(1);
      const { report } = readReport(path.join(dir, 'target.json'));
      expect(report.proposals).toEqual(firstReport.report.proposals);
      expect(report.unexplained).toEqual(firstReport.report.unexplained);
      expect(mappingTexts(viaTarget)).toEqual(mappingTexts(proposed));
      const passedThrough = real.received.slice(readsBefore).filter((r) => r.url === '/api/v1/practitioners/1');
      expect(passedThrough.length).toBeGreaterThan(0);
      expect(passedThrough.every((r) => r.headers['x-api-key'] === REPLAY_KEY)).toBe(true);
    } finally {
      await gateway.close();
    }
  });

  it('refuses, before any call (exit 2), a destination that is not new or empty, inside the mappings, or mappings that do not load', async () => {
    const readsBefore = real.received.length;
    const taken = await replay(recording, { upstream: real.url, apiKey: REPLAY_KEY, proposeMappings: proposed });
    expect(taken.code).toBe(2);
    expect(taken.stderr).toContain(`legacy-gateway replay: --propose-mappings: ${proposed} already exists and is not an empty directory`);
    const inside = await replay(recording, { upstream: real.url, proposeMappings: path.join(proposed, 'again') }, { MAPPINGS_DIR: proposed });
    expect(inside.code).toBe(2);
    expect(inside.stderr).toContain('must be outside the mappings it copies');
    const broken = await replay(recording, { upstream: real.url, proposeMappings: path.join(dir, 'never') }, { MAPPINGS_DIR: path.join(dir, 'no-such-dir') });
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/--propose-mappings: the mappings in .*no-such-dir do not load: .*directory not found/s);
    expect(real.received.length).toBe(readsBefore);
    expect(readdirSync(dir)).not.toContain('never');
  });

  it('finds every proposed field identical when replayed again with MAPPINGS_DIR=<proposal>', async () => {
    const again = await replay(recording, { upstream: real.url, apiKey: REPLAY_KEY, json: path.join(dir, 'again.json') }, { MAPPINGS_DIR: proposed });
    const { report } = readReport(path.join(dir, 'again.json'));
    const diffs = report.entries.flatMap((e) => e.diffs.map((d) => `${e.index} ${d.kind} ${d.path}`));
    // Only the value that changed in v1 since the recording is left.
    expect(diffs).toEqual(['0 value $.response[2].last_name', '3 value $.response[2].last_name']);
    expect(again.code).toBe(1);
  });
});
