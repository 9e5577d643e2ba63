// `legacy-gateway usage --html` against a real gateway on a loopback port (a recording fake v1 behind it, its
// metrics listener on, one key named by INTEGRATIONS_FILE and one not): the page has a section per key that
// called, the most recent first, with its methods counted by the gateway and its guide link; the options the
// page alone takes are refused without --html, and --html without --url, exit 2.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runUsage, type UsageIo } from '../../src/commands/usage.js';
import { usageFingerprint } from '../../src/gateway/state/usage/usage-tracker.js';
import { get, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { json, startRecordingUpstream, v1List, type RecordingUpstream } from '../helpers/recording-upstream.js';

const SECRET = 'e2e-usage-page-gateway-secret-0123456789';
const KEY_CRM = 'caller-key-CRM-PAGE-4b1e';
const KEY_UNNAMED = 'caller-key-UNNAMED-PAGE-0c3d';
const FP_UNNAMED = usageFingerprint(SECRET, KEY_UNNAMED);

let dir: string;
let v1: RecordingUpstream;
let gateway: TestGateway;
let now = Date.parse('2026-12-02T09:00:00Z');

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'lgw-usage-page-'));
  const integrations = path.join(dir, 'integrations.yaml');
  writeFileSync(integrations, `integrations:\n  - name: crm-sync\n    owner: CRM <crm@example.com>\n    fingerprints: ["${usageFingerprint(SECRET, KEY_CRM)}"]\n`);
  v1 = await startRecordingUpstream((_req, res) => json(res, 200, v1List([{ object: 'service', id: 1 }])));
  gateway = await startTestGateway(
    { UPSTREAM_URL: v1.url, GATEWAY_SECRET: SECRET, INTEGRATIONS_FILE: integrations, METRICS_PORT: '0', CACHE_TTL_MS: '0' },
    { now: () => now },
  );
});
afterAll(async () => {
  await gateway?.close();
  await v1?.close();
  rmSync(dir, { recursive: true, force: true });
});
afterEach(() => {
  process.exitCode = undefined;
});

function io(): UsageIo & { errs: string[] } {
  const errs: string[] = [];
  return { errs, out: () => undefined, err: (t) => void errs.push(t), fetch: (...args) => fetch(...args), readStdin: () => Promise.resolve(''), now: () => now };
}

describe('usage --html against a gateway', () => {
  it('writes one section per key that called, most recent first, with the methods the gateway counted', async () => {
    expect((await get(gateway.url, '/api/services/0/1', { 'x-api-key': KEY_UNNAMED })).status).toBe(200);
    now += 60_000;
    for (let k = 0; k < 3; k++) expect((await get(gateway.url, '/api/services/0/1', { 'x-api-key': KEY_CRM })).status).toBe(200);
    const file = path.join(dir, 'usage.html');
    const run = io();
    await runUsage({ url: gateway.metricsUrl!, html: file }, {}, run);
    expect(run.errs).toEqual([`${file}\n`]);
    expect(process.exitCode ?? 0).toBe(0);
    const html = readFileSync(file, 'utf8');
    expect([...html.matchAll(/<h2 id="i\d-h">([^<]*)</g)].map((m) => m[1])).toEqual(['crm-sync', `unnamed key ${FP_UNNAMED.slice(0, 12)}`]);
    const [crm, unnamed] = html.split('<section ').slice(1);
    expect(crm).toContain('<tr><td><code>services</code></td><td class="n">3</td></tr>');
    expect(crm).toContain('<a href="crm-sync.html">');
    expect(unnamed).toContain('<tr><td><code>services</code></td><td class="n">1</td></tr>');
    expect(unnamed).toContain(`<a href="${FP_UNNAMED.slice(0, 12)}.html">`);
    expect(html).not.toContain(KEY_CRM);
  });

  it('refuses the page\'s options without --html, and --html without --url (exit 2)', async () => {
    const a = io();
    await runUsage({ url: gateway.metricsUrl!, guidesUrl: 'https://docs.example.com' }, {}, a);
    expect(a.errs).toEqual(['legacy-gateway usage: --brownouts, --guides-url and --mappings: only with --html\n']);
    expect(process.exitCode).toBe(2);
    const b = io();
    await runUsage({ html: path.join(dir, 'x.html') }, {}, b);
    expect(b.errs).toEqual(['legacy-gateway usage: --url: required with --html (the metrics listener of a gateway, e.g. http://127.0.0.1:9464)\n']);
    const c = io();
    await runUsage({ url: gateway.metricsUrl!, html: path.join(dir, 'x.html'), guidesUrl: 'javascript:alert(1)' }, {}, c);
    expect(c.errs).toEqual(['legacy-gateway usage: --guides-url: must be http:// or https://\n']);
    expect(process.exitCode).toBe(2);
  });
});
