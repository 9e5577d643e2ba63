// The HTML report in a real headless Chromium (Debian's `chromium`, driven by playwright-core): it renders,
// its counts match the JSON report of the same run, the filters work (mouse and keyboard), and the page
// makes no request of its own.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runReplayCommand } from '../../src/replay/run-command.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const HAR = path.join(here, '../fixtures/replay/legacy-traffic.har');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
// This machine has no network: without these flags Chromium keeps trying to reach Google services.
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

interface Summary {
  total: number;
  identical: number;
  different: number;
  skipped: number;
  errors: number;
  methods: Record<string, { total: number; identical: number; different: number; skipped: number; errors: number }>;
}

describe('HTML report in Chromium', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'replay-html-'));
  const htmlPath = path.join(dir, 'report.html');
  let summary: Summary;
  let context: BrowserContext;
  let page: Page;
  const requests: string[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    const code = await runReplayCommand(
      HAR,
      { json: path.join(dir, 'report.json'), html: htmlPath },
      { stdout: { write: () => true }, stderr: { write: () => true }, env: {} },
    );
    expect(code).toBe(1);
    summary = (JSON.parse(readFileSync(path.join(dir, 'report.json'), 'utf8')) as { summary: Summary }).summary;

    context = await chromium.launchPersistentContext(path.join(dir, 'chromium-profile'), {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
    });
    page = await context.newPage();
    page.on('request', (r) => void requests.push(r.url()));
    page.on('pageerror', (e) => void pageErrors.push(e.message));
    // Anything but the report itself is refused (and recorded above), so a stray fetch cannot succeed.
    await context.route('**/*', (route) => (route.request().url() === pathToFileURL(htmlPath).href ? route.continue() : route.abort()));
    await page.goto(pathToFileURL(htmlPath).href);
  });

  afterAll(async () => {
    await context?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const visibleEntries = (): Promise<number> => page.locator('li.entry:visible').count();

  it('renders the summary with the counts of the JSON report', async () => {
    await expect(page.title()).resolves.toContain('Replay report');
    for (const key of ['total', 'identical', 'different', 'skipped', 'errors'] as const) {
      expect(await page.locator(`#count-${key}`).textContent(), key).toBe(String(summary[key]));
    }
    for (const [method, counts] of Object.entries(summary.methods)) {
      const row = page.locator(`table.methods tr[data-method="${method}"]`);
      for (const key of ['total', 'identical', 'different', 'skipped', 'errors'] as const) {
        expect(await row.locator(`td[data-count="${key}"]`).textContent(), `${method} ${key}`).toBe(String(counts[key]));
      }
    }
    expect(await page.locator('li.entry').count()).toBe(summary.total);
    expect(await visibleEntries()).toBe(summary.total);
    expect(await page.locator('#shown').textContent()).toBe(`Showing ${summary.total} of ${summary.total} entries`);
  });

  it('shows each difference side by side with its path', async () => {
    const services = page.locator('li.entry[data-method="services"]');
    const row = services.locator('tr[data-kind="format"]');
    expect(await row.locator('td').nth(0).textContent()).toBe('$.response[0].service_cost');
    expect(await row.locator('td').nth(2).textContent()).toBe('"45.5"');
    expect(await row.locator('td').nth(3).textContent()).toBe('"45.50"');
    await expect(page.locator('li.entry[data-method="sessions"] tr[data-kind="missing"] td').nth(3).textContent()).resolves.toBe('absent');
  });

  it('filters by outcome, kind, method and URL', async () => {
    await page.locator('input[name="outcome"][value="identical"]').uncheck();
    expect(await visibleEntries()).toBe(summary.total - summary.identical);

    // Only `type` differences: the entries that differ without one disappear.
    for (const kind of ['format', 'value', 'missing', 'extra', 'order', 'status']) {
      await page.locator(`input[name="kind"][value="${kind}"]`).uncheck();
    }
    const withType = await page.locator('li.entry[data-outcome="different"]:visible').evaluateAll((els) =>
      els.map((el) => el.getAttribute('data-method')),
    );
    expect(withType.sort()).toEqual(['client', 'testimonials']);
    expect(await page.locator('li.entry[data-method="testimonials"] tr[data-kind="status"]').isVisible()).toBe(false);
    for (const kind of ['format', 'value', 'missing', 'extra', 'order', 'status']) {
      await page.locator(`input[name="kind"][value="${kind}"]`).check();
    }

    await page.locator('#filter-method').selectOption('services');
    expect(await visibleEntries()).toBe(1);
    await page.locator('#filter-method').selectOption('');
    await page.locator('#filter-url').fill('/api/staff');
    // /api/staff/1 (different) and /api/staffs/0/2 (identical, hidden by the outcome filter)
    expect(await visibleEntries()).toBe(1);
    await page.locator('#filter-url').fill('');
    await page.locator('input[name="outcome"][value="identical"]').check();
    expect(await visibleEntries()).toBe(summary.total);
  });

  it('is usable with the keyboard', async () => {
    const skipped = page.locator('input[name="outcome"][value="skipped"]');
    await skipped.focus();
    await page.keyboard.press('Space');
    expect(await skipped.isChecked()).toBe(false);
    expect(await visibleEntries()).toBe(summary.total - summary.skipped);
    await page.keyboard.press('Space');
    expect(await visibleEntries()).toBe(summary.total);
    // An entry opens and closes from the keyboard (native <details>).
    const identical = page.locator('li.entry[data-outcome="identical"] summary').first();
    await identical.focus();
    await page.keyboard.press('Enter');
    expect(await page.locator('li.entry[data-outcome="identical"] details').first().getAttribute('open')).toBe('');
  });

  it('makes no request beyond loading itself, and runs without errors', () => {
    expect(requests).toEqual([pathToFileURL(htmlPath).href]);
    expect(pageErrors).toEqual([]);
  });
});
