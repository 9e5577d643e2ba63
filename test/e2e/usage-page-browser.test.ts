// `legacy-gateway usage --html` end to end, in a real headless Chromium (Debian's `chromium`, driven by
// playwright-core): the command fetches a fixed usage report from a loopback HTTP peer (with the fields a report
// may carry: names, daily counts, statuses, payment codes, call shapes), reads a brownouts file, and writes the
// page; Chromium opens the file and must show every integration's heading and one SVG chart each, most recently
// called first, a name with markup as text, with no console message of level error, no page error, and no
// request but the page itself. A screenshot (1200x1600) is written to a temp file (USAGE_PAGE_SCREENSHOT names
// a file to keep it).
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runUsage, type UsageIo } from '../../src/commands/usage.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const NOW = Date.parse('2026-12-02T09:00:00Z');
const DAY = 86_400_000;
const day = (ago: number) => new Date(NOW - ago * DAY).toISOString().slice(0, 10);
/** `calls(ago)` for each of the last `days` days. */
const daily = (days: number, calls: (ago: number) => number) => Object.fromEntries(Array.from({ length: days }, (_, ago) => [day(ago), calls(ago)]).filter(([, n]) => n !== 0));

const REPORT = {
  shared: false,
  integrations: [
    {
      name: 'shop-widget',
      fingerprint: 'aaaaaaaaaaaa0000000000000000000000000000000000000000000000000001',
      calls: 180,
      methods: { client: 150, services: 30 },
      firstSeen: day(89) + 'T08:00:00.000Z',
      lastSeen: day(20) + 'T17:02:44.090Z',
      userAgents: ['shop-widget/3'],
      statuses: { '200': 170, '404': 10 },
      shapes: { 'client?email': 150, 'services/{start}/{limit}': 30 },
      daily: daily(90, (ago) => (ago >= 20 ? 2 + (ago % 3) : 0)),
    },
    {
      name: 'crm <script>alert(1)</script>',
      owner: 'CRM team <crm@example.com>',
      fingerprint: 'bbbbbbbbbbbb0000000000000000000000000000000000000000000000000002',
      calls: 2000,
      methods: { clients: 1900, payment: 100 },
      firstSeen: day(120) + 'T08:00:00.000Z',
      lastSeen: day(0) + 'T08:31:07.412Z',
      userAgents: ['crm-sync/1.0'],
      statuses: { '200': 1950, '502': 50 },
      paymentCodes: { '12': 90, '7': 6, '11': 4 },
      shapes: { 'clients/{start}/{limit}': 1900, payment: 100 },
      daily: daily(90, (ago) => 10 + ((ago * 7) % 25)),
    },
    {
      name: null,
      fingerprint: 'cccccccccccc0000000000000000000000000000000000000000000000000003',
      calls: 12,
      methods: { staffs: 12 },
      firstSeen: day(9) + 'T08:00:00.000Z',
      lastSeen: day(2) + 'T12:00:00.000Z',
      userAgents: [],
      daily: daily(10, (ago) => (ago >= 2 ? 1 + (ago % 2) : 0)),
    },
  ],
};

const BROWNOUTS = `brownouts:
  - name: first-friday
    start: 2026-12-04T14:00:00Z
    end: 2026-12-04T15:00:00Z
    repeat: { every: 7d, until: 2027-01-29T14:00:00Z }
    all: true
    methods: [clients, staffs]
`;

const dir = mkdtempSync(path.join(os.tmpdir(), 'usage-page-'));
const htmlPath = path.join(dir, 'usage.html');
const pageUrl = pathToFileURL(htmlPath).href;
const screenshotPath = process.env.USAGE_PAGE_SCREENSHOT ?? path.join(dir, 'usage.png');
let server: http.Server;
let context: BrowserContext;
let page: Page;
const requests: string[] = [];
const errors: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    res.writeHead(req.url === '/usage' ? 200 : 404, { 'content-type': 'application/json' });
    res.end(req.url === '/usage' ? JSON.stringify(REPORT) : '{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const brownouts = path.join(dir, 'brownouts.yaml');
  writeFileSync(brownouts, BROWNOUTS);
  const err: string[] = [];
  const io: UsageIo = { out: () => undefined, err: (t) => void err.push(t), fetch: (...args) => fetch(...args), readStdin: () => Promise.resolve(''), now: () => NOW };
  const metrics = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
  await runUsage({ url: metrics, html: htmlPath, brownouts }, {}, io);
  expect(err).toEqual([`${htmlPath}\n`]);
  expect(process.exitCode ?? 0).toBe(0);

  context = await chromium.launchPersistentContext(path.join(dir, 'chromium-profile'), {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1200, height: 1600 },
  });
  page = await context.newPage();
  page.on('request', (r) => void requests.push(r.url()));
  page.on('console', (m) => void (m.type() === 'error' && errors.push(m.text())));
  page.on('pageerror', (e) => void errors.push(e.message));
  // Anything but the page itself is refused (and recorded above), so a stray load cannot succeed.
  await context.route('**/*', (route) => (route.request().url() === pageUrl ? route.continue() : route.abort()));
  await page.goto(pageUrl);
});

afterAll(async () => {
  await context?.close();
  await new Promise((resolve) => server?.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

describe('the usage page in Chromium', () => {
  it('shows every integration, most recently called first, a name with markup as text', async () => {
    const headings = page.locator('section.integration h2');
    await expect.poll(() => headings.allInnerTexts()).toEqual(['crm <script>alert(1)</script>', 'unnamed key cccccccccccc', 'shop-widget']);
    for (const h of await headings.all()) expect(await h.isVisible()).toBe(true);
    expect(await page.locator('script').count()).toBe(0);
  });

  it('draws one SVG chart per integration, 90 bars each, named for assistive technology', async () => {
    const charts = page.locator('section.integration svg[role="img"]');
    expect(await charts.count()).toBe(3);
    for (const chart of await charts.all()) {
      expect(await chart.isVisible()).toBe(true);
      expect(await chart.locator('rect').count()).toBe(90);
      const box = await chart.boundingBox();
      expect(box!.width).toBeGreaterThan(600);
    }
    expect(await page.getByRole('img', { name: /^shop-widget: \d+ calls over the last 90 days, 2026-09-04 to 2026-12-02/ }).count()).toBe(1);
  });

  it('shows the error rate, the payment codes other than 12, the brownouts and the guide links', async () => {
    const crm = page.locator('section.integration').first();
    expect(await crm.locator('.rate').innerText()).toBe('Error rate: 2.5% not 2xx (50 of 2000)');
    expect(await crm.locator('ul.codes li').allInnerTexts()).toEqual(['7 discountInvalid: 6', '11 cardDeclined: 4']);
    expect(await crm.locator('.brownouts li').innerText()).toMatch(/^first-friday: next 2026-12-04T14:00:00.000Z, 2026-12-11T14:00:00.000Z, 2026-12-18T14:00:00.000Z \(9 openings to come\); it would refuse \d+ calls of the last 7 days/);
    expect(await page.locator('p.guide a').evaluateAll((as) => as.map((a) => a.getAttribute('href')))).toEqual(['crm-script-alert-1-script-.html', 'cccccccccccc.html', 'shop-widget.html']);
  });

  it('made no request but the page itself, and logged no error; a screenshot is written', async () => {
    await page.screenshot({ path: screenshotPath, fullPage: true });
    expect(statSync(screenshotPath).size).toBeGreaterThan(10_000);
    expect(readFileSync(screenshotPath).subarray(1, 4).toString()).toBe('PNG');
    expect(requests).toEqual([pageUrl]);
    expect(errors).toEqual([]);
  });
});
