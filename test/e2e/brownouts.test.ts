// BROWNOUTS_FILE, black box: a real gateway on a loopback port, its clock fixed, in front of a recording fake
// v1. During a window that began a minute ago a covered legacy call answers 410 in the legacy error shape,
// with Retry-After to the window's end and the Sunset, Deprecation and Link headers, and nothing reaches v1;
// a method the window does not name, the payment, and a window still to come let calls through. A reload
// (what SIGHUP runs) takes a new file in, and refuses a broken one, keeping the windows in service. Each
// refusal is counted by window and method; one warn line per integration and window.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { get, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { json, startRecordingUpstream, v1List, type RecordingUpstream } from '../helpers/recording-upstream.js';

const NOW = Date.parse('2027-01-12T14:01:00Z');
const DOCS = 'https://docs.example.com/api/v1/';
const MINUTE = 60_000;
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

let dir: string;
let file: string;
let v1: RecordingUpstream;
let gateway: TestGateway;

function writeWindows(yaml: string): void {
  writeFileSync(file, yaml);
}

const OPEN_WINDOW = `brownouts:
  - name: first-warning
    start: ${iso(NOW - MINUTE)}
    end: ${iso(NOW + 59 * MINUTE)}
    all: true
    methods: [clients]
  - name: later
    start: ${iso(NOW + 24 * 60 * MINUTE)}
    end: ${iso(NOW + 25 * 60 * MINUTE)}
    all: true
`;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'lgw-brownouts-'));
  file = path.join(dir, 'brownouts.yaml');
  writeWindows(OPEN_WINDOW);
  v1 = await startRecordingUpstream((_req, res) => json(res, 200, v1List([{ object: 'staff', id: 1 }])));
  gateway = await startTestGateway(
    { UPSTREAM_URL: v1.url, UPSTREAM_API_KEY: 'K', BROWNOUTS_FILE: file, LEGACY_SUNSET: '2027-03-01', LEGACY_DEPRECATED_AT: '2026-06-30T00:00:00Z', LEGACY_DOCS_URL: DOCS, METRICS_PORT: '0', CACHE_TTL_MS: '0' },
    { now: () => NOW },
  );
});
afterAll(async () => {
  await gateway.close();
  await v1.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  v1.received.length = 0;
});

const refusalText = (window: string, end: number, url = DOCS) =>
  JSON.stringify({
    status: 'failure',
    response: `the old API is being retired: this call is refused during the scheduled brownout "${window}" until ${iso(end)}; how to move to the v1 API: ${url}`,
  });

async function refusals(): Promise<string[]> {
  const text = await (await fetch(`${gateway.metricsUrl!}/metrics`)).text();
  return text.split('\n').filter((line) => line.startsWith('legacy_gateway_brownout_refusals_total{'));
}

describe('a window that began a minute ago', () => {
  it('answers a covered call 410 with the exact body, Retry-After to its end and the sunset headers; nothing reaches v1', async () => {
    const reply = await get(gateway.url, '/api/clients/0/3', { 'x-api-key': 'partner-key' });
    expect(reply.status).toBe(410);
    expect(reply.text).toBe(refusalText('first-warning', NOW + 59 * MINUTE));
    expect(reply.headers.get('retry-after')).toBe(String(59 * 60));
    expect(reply.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(reply.headers.get('sunset')).toBe('Mon, 01 Mar 2027 00:00:00 GMT');
    expect(reply.headers.get('deprecation')).toBe(`@${Date.parse('2026-06-30T00:00:00Z') / 1000}`);
    expect(reply.headers.get('link')).toBe(`<${DOCS}>; rel="deprecation", <${DOCS}>; rel="sunset"`);
    expect(v1.received).toEqual([]);
  });

  it('refuses a malformed call too (the same answer, whatever its shape), and a call with the lent key', async () => {
    const bad = await get(gateway.url, '/api/clients/x', { 'x-api-key': 'partner-key' });
    expect(bad.status).toBe(410);
    const lent = await get(gateway.url, '/api/clients/0/3');
    expect(lent.status).toBe(410);
    expect(v1.received).toEqual([]);
  });

  it('lets through a method it does not name, and the payment (payments: false)', async () => {
    const staff = await get(gateway.url, '/api/staffs/0/1', { 'x-api-key': 'partner-key' });
    expect(staff.status).toBe(200);
    const pay = await fetch(`${gateway.url}/api/payment`, { method: 'POST', body: new URLSearchParams({ revenue_amount: '10.00' }) });
    expect(pay.status).toBe(200);
    expect(await pay.json()).toMatchObject({ status: 'failure', code: 1 });
    expect(v1.received.map((r) => r.url)).toEqual([expect.stringMatching(/^\/api\/v1\/staff\?/)]);
  });

  it('counts each refusal by window and method, and warns once per integration and window', async () => {
    expect(await refusals()).toEqual(['legacy_gateway_brownout_refusals_total{window="first-warning",method="clients"} 3']);
    const warnings = gateway.logs.filter((line) => line.includes('"brownout \\"first-warning\\": refusing'));
    // Two integrations: the partner's key, and the calls without a key of their own.
    expect(warnings).toHaveLength(2);
    expect(warnings.join('\n')).not.toContain('partner-key');
  });
});

describe('reloaded (SIGHUP)', () => {
  it('a window moved to the future lets the calls through; a broken file is refused and the windows in service stay', async () => {
    writeWindows(`brownouts:\n  - name: moved\n    start: ${iso(NOW + 60 * MINUTE)}\n    end: ${iso(NOW + 120 * MINUTE)}\n    all: true\n`);
    const moved = await gateway.reloads.reload();
    expect(moved.sets.map((s) => [s.set, s.result])).toEqual([['MAPPINGS_DIR', 'ok'], ['BROWNOUTS_FILE', 'ok']]);
    expect((await get(gateway.url, '/api/clients/0/3', { 'x-api-key': 'partner-key' })).status).toBe(200);
    expect(v1.received).toHaveLength(1);

    writeWindows(OPEN_WINDOW);
    await gateway.reloads.reload();
    expect((await get(gateway.url, '/api/clients/0/3', { 'x-api-key': 'partner-key' })).status).toBe(410);

    writeWindows(`brownouts:\n  - name: broken\n    start: ${iso(NOW - MINUTE)}\n    end: ${iso(NOW - 2 * MINUTE)}\n    all: true\n`);
    const refused = await gateway.reloads.reload();
    expect(refused.sets.find((s) => s.set === 'BROWNOUTS_FILE')).toMatchObject({ result: 'invalid', problems: [{ reason: expect.stringContaining('brownouts.0.end: must be after start') }] });
    const still = await get(gateway.url, '/api/clients/0/3', { 'x-api-key': 'partner-key' });
    expect(still.status).toBe(410);
    expect(still.text).toBe(refusalText('first-warning', NOW + 59 * MINUTE));
  });
});

describe('GUIDES_URL', () => {
  it('names the guides in the refusal instead of the v1 documentation', async () => {
    writeWindows(OPEN_WINDOW);
    const guided = await startTestGateway({ UPSTREAM_URL: v1.url, UPSTREAM_API_KEY: 'K', BROWNOUTS_FILE: file, GUIDES_URL: 'https://guides.example.com/legacy' }, { now: () => NOW });
    try {
      const reply = await get(guided.url, '/api/clients/0/3', { 'x-api-key': 'partner-key' });
      expect(reply.status).toBe(410);
      expect(reply.text).toBe(refusalText('first-warning', NOW + 59 * MINUTE, 'https://guides.example.com/legacy/'));
      expect(reply.headers.get('sunset')).toBeNull();
    } finally {
      await guided.close();
    }
  });
});
