// INTEGRATIONS_FILE, black box: a real gateway on a loopback port (its clock fixed for the brownouts) in front
// of a recording fake v1, its metrics listener on, keys fingerprinted under a known GATEWAY_SECRET.
// - GET /usage names each listed key's integration, and lists a key no integration names with `name: null`;
//   the request's log line carries `integration` when it is known; `legacy-gateway usage` shows a NAME column;
// - brownouts scope their windows by those names: a listed integration is refused, an excepted one passes,
//   a key no integration names is covered by `all: true` only;
// - a reload (what SIGHUP runs) takes a new file in, and refuses a broken one naming the file, the integration
//   and the field, the names in service kept; the same through a real SIGHUP to `legacy-gateway serve`.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runUsage, type UsageIo } from '../../src/commands/usage.js';
import { usageFingerprint, type UsageReport } from '../../src/gateway/state/usage/usage-tracker.js';
import { fetchReply } from '../helpers/fetch-reply.js';
import { get, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { startGatewayProcess, type GatewayProcess } from '../helpers/gateway-process.js';
import { json, startRecordingUpstream, v1List, type RecordingUpstream } from '../helpers/recording-upstream.js';

const SECRET = 'e2e-integrations-gateway-secret-0123456789';
const KEY_CRM = 'caller-key-CRM-SYNC-4b1e';
const KEY_BILLING = 'caller-key-BILLING-77aa';
const KEY_UNNAMED = 'caller-key-UNNAMED-0c3d';
const FP_CRM = usageFingerprint(SECRET, KEY_CRM);
const FP_BILLING = usageFingerprint(SECRET, KEY_BILLING);
const FP_UNNAMED = usageFingerprint(SECRET, KEY_UNNAMED);

const NOW = Date.parse('2027-01-12T14:01:00Z');
const MINUTE = 60_000;
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

const INTEGRATIONS = `integrations:
  - name: crm-sync
    owner: CRM team <crm@example.com>
    notify: https://hooks.example.com/legacy
    fingerprints: ["${FP_CRM}"]
  - name: billing
    owner: Billing <billing@example.com>
    fingerprints: ["${FP_BILLING}"]
`;

// clients: crm-sync and billing, billing excepted; staffs: every integration but crm-sync and billing.
const BROWNOUTS = `brownouts:
  - name: named-only
    start: ${iso(NOW - MINUTE)}
    end: ${iso(NOW + 59 * MINUTE)}
    integrations: [crm-sync, billing]
    except: [billing]
    methods: [clients]
  - name: everyone-else
    start: ${iso(NOW - MINUTE)}
    end: ${iso(NOW + 59 * MINUTE)}
    all: true
    except: [crm-sync, billing]
    methods: [staffs]
`;

let dir: string;
let integrationsFile: string;
let v1: RecordingUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'lgw-integrations-'));
  integrationsFile = path.join(dir, 'integrations.yaml');
  writeFileSync(integrationsFile, INTEGRATIONS);
  const brownouts = path.join(dir, 'brownouts.yaml');
  writeFileSync(brownouts, BROWNOUTS);
  v1 = await startRecordingUpstream((_req, res) => json(res, 200, v1List([{ object: 'service', id: 1 }])));
  gateway = await startTestGateway(
    { UPSTREAM_URL: v1.url, GATEWAY_SECRET: SECRET, INTEGRATIONS_FILE: integrationsFile, BROWNOUTS_FILE: brownouts, METRICS_PORT: '0', CACHE_TTL_MS: '0' },
    { now: () => NOW },
  );
});
afterAll(async () => {
  await gateway?.close();
  await v1?.close();
  rmSync(dir, { recursive: true, force: true });
});

const call = (pathname: string, key: string) => get(gateway.url, pathname, { 'x-api-key': key, 'user-agent': 'e2e/1' });

async function usage(metricsUrl: string): Promise<UsageReport> {
  const reply = await fetchReply(`${metricsUrl.replace(/\/metrics$/, '')}/usage`);
  expect(reply.status).toBe(200);
  return reply.body as UsageReport;
}

const named = (report: UsageReport) => Object.fromEntries(report.integrations.map((i) => [i.fingerprint, i.name]));

describe('named integrations', () => {
  it('GET /usage names each listed key, and keeps a key no integration names, unnamed', async () => {
    for (const key of [KEY_CRM, KEY_CRM, KEY_BILLING, KEY_UNNAMED]) expect((await call('/api/services/0/1', key)).status).toBe(200);
    const report = await usage(gateway.metricsUrl!);
    expect(named(report)).toEqual({ [FP_CRM]: 'crm-sync', [FP_BILLING]: 'billing', [FP_UNNAMED]: null });
    const crm = report.integrations.find((i) => i.fingerprint === FP_CRM)!;
    // The name first, then the counts as before.
    expect(Object.keys(crm).slice(0, 3)).toEqual(['name', 'fingerprint', 'calls']);
    expect(crm).toMatchObject({ calls: 2, methods: { services: 2 } });
  });

  it('the request log line names the integration when it is known', () => {
    const lines = gateway.logs.filter((l) => l.includes('"url":"/api/services/0/1"')).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l.integration)).toEqual(['crm-sync', 'crm-sync', 'billing', undefined]);
    expect(gateway.logs.join('\n')).not.toContain(KEY_CRM);
  });

  it('legacy-gateway usage shows a NAME column', async () => {
    const out: string[] = [];
    const io: UsageIo = { out: (t) => out.push(t), err: (t) => out.push(t), fetch: (...args) => fetch(...args), readStdin: () => Promise.resolve('') };
    await runUsage({ url: gateway.metricsUrl! }, {}, io);
    const lines = out.join('').trimEnd().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+FINGERPRINT\s+CALLS\s+LAST SEEN\s+TOP METHODS\s+USER AGENTS$/);
    expect(lines.find((l) => l.includes(FP_CRM))).toMatch(new RegExp(`^crm-sync\\s+${FP_CRM}\\s+2\\s`));
    expect(lines.find((l) => l.includes(FP_BILLING))).toMatch(new RegExp(`^billing\\s+${FP_BILLING}\\s+1\\s`));
    expect(lines.find((l) => l.includes(FP_UNNAMED))).toMatch(new RegExp(`^-\\s+${FP_UNNAMED}\\s+1\\s`));
  });
});

describe('brownouts by integration name', () => {
  it('refuses a listed integration, lets an excepted one and a key no integration names through', async () => {
    v1.received.length = 0;
    expect((await call('/api/clients/0/1', KEY_CRM)).status).toBe(410);
    expect((await call('/api/clients/0/1', KEY_BILLING)).status).toBe(200);
    expect((await call('/api/clients/0/1', KEY_UNNAMED)).status).toBe(200);
    expect(v1.received).toHaveLength(2);
  });

  it('`all: true` covers a key no integration names, and not the integrations excepted by name', async () => {
    expect((await call('/api/staffs/0/1', KEY_UNNAMED)).status).toBe(410);
    expect((await call('/api/staffs/0/1', KEY_CRM)).status).toBe(200);
    expect((await call('/api/staffs/0/1', KEY_BILLING)).status).toBe(200);
    const warned = gateway.logs.filter((l) => l.includes('refusing the legacy calls of'));
    expect(warned.map((l) => (JSON.parse(l) as { integration: unknown }).integration).sort()).toEqual(['crm-sync', null]);
  });
});

describe('reloaded (what SIGHUP runs)', () => {
  it('takes a new file in; a broken one is refused naming the file, the integration and the field, and the names in service stay', async () => {
    writeFileSync(integrationsFile, `${INTEGRATIONS}  - name: shop-widget\n    owner: Shop\n    fingerprints: ["${FP_UNNAMED}"]\n`);
    const took = await gateway.reloads.reload();
    expect(took.sets.map((s) => [s.set, s.result])).toEqual([['MAPPINGS_DIR', 'ok'], ['INTEGRATIONS_FILE', 'ok'], ['BROWNOUTS_FILE', 'ok']]);
    expect(named(await usage(gateway.metricsUrl!))[FP_UNNAMED]).toBe('shop-widget');
    // Named now, it is still covered by `all: true`: only crm-sync and billing are excepted.
    expect((await call('/api/staffs/0/1', KEY_UNNAMED)).status).toBe(410);

    writeFileSync(integrationsFile, `${INTEGRATIONS}  - name: shop-widget\n    owner: Shop\n    fingerprints: ["${FP_CRM}"]\n`);
    const refused = await gateway.reloads.reload();
    const set = refused.sets.find((s) => s.set === 'INTEGRATIONS_FILE');
    expect(set).toEqual({
      set: 'INTEGRATIONS_FILE',
      result: 'invalid',
      problems: [{ file: '', path: '', reason: `INTEGRATIONS_FILE (${integrationsFile}): integrations.2 ("shop-widget"): fingerprints.0: also listed under integration "crm-sync": a fingerprint belongs to one integration` }],
    });
    expect(gateway.logs.some((l) => l.includes('INTEGRATIONS_FILE: mappings reload refused, the set in service stays'))).toBe(true);
    expect(named(await usage(gateway.metricsUrl!))).toEqual({ [FP_CRM]: 'crm-sync', [FP_BILLING]: 'billing', [FP_UNNAMED]: 'shop-widget' });
    expect((await call('/api/clients/0/1', KEY_CRM)).status).toBe(410);
  });
});

describe('SIGHUP to legacy-gateway serve', () => {
  let processDir: string;
  let file: string;
  let served: GatewayProcess | undefined;
  beforeAll(async () => {
    processDir = mkdtempSync(path.join(tmpdir(), 'lgw-integrations-hup-'));
    file = path.join(processDir, 'integrations.yaml');
    writeFileSync(file, INTEGRATIONS);
    served = await startGatewayProcess(v1.url, { GATEWAY_SECRET: SECRET, INTEGRATIONS_FILE: file, METRICS_PORT: '0', CACHE_TTL_MS: '0' });
  });
  afterAll(async () => {
    await served?.stop();
    rmSync(processDir, { recursive: true, force: true });
  });

  /** SIGHUP, and the reload's log line for INTEGRATIONS_FILE. */
  async function hangUp(): Promise<Record<string, unknown>> {
    const p = served!;
    const from = p.lines.length;
    const line = new Promise<string>((resolve, reject) => {
      const check = () => {
        const found = p.lines.slice(from).find((l) => l.includes('"set":"INTEGRATIONS_FILE"'));
        if (found === undefined) return;
        p.child.stdout!.off('data', check);
        p.child.off('exit', reject);
        resolve(found);
      };
      p.child.stdout!.on('data', check);
      p.child.once('exit', reject);
    });
    p.child.kill('SIGHUP');
    return JSON.parse(await line) as Record<string, unknown>;
  }

  it('a new file takes over; a broken one is refused with one line, and the names in service stay', async () => {
    const p = served!;
    expect((await fetchReply(`${p.url}/api/services/0/1`, { headers: { 'x-api-key': KEY_UNNAMED } })).status).toBe(200);
    expect(named(await usage(p.metricsUrl!))).toEqual({ [FP_UNNAMED]: null });

    writeFileSync(file, `integrations:\n  - name: shop-widget\n    owner: Shop\n    fingerprints: ["${FP_UNNAMED}"]\n`);
    expect(await hangUp()).toMatchObject({ set: 'INTEGRATIONS_FILE', changed: true, msg: 'INTEGRATIONS_FILE: mappings reloaded' });
    expect(named(await usage(p.metricsUrl!))).toEqual({ [FP_UNNAMED]: 'shop-widget' });

    writeFileSync(file, `integrations:\n  - name: shop-widget\n    owner: Shop\n    notify: mailto:shop@example.com\n    fingerprints: ["${FP_UNNAMED}"]\n`);
    const refused = await hangUp();
    expect(refused.msg).toBe(
      `INTEGRATIONS_FILE: mappings reload refused, the set in service stays: INTEGRATIONS_FILE (${file}): integrations.0 ("shop-widget"): notify: must be an http:// or https:// URL`,
    );
    expect(named(await usage(p.metricsUrl!))).toEqual({ [FP_UNNAMED]: 'shop-widget' });
    expect(p.child.exitCode).toBeNull();
  });
});
