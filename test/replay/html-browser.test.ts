// The HTML report in a real headless Chromium (Debian's `chromium`, driven by playwright-core): it renders,
// its counts and groups match the JSON report of the same run, the filters, the group links, the entry
// links and the difference links work (mouse and keyboard), the curl line copies, and the page makes no
// request of its own. A second page, built by hand, carries what newer runs add (a `key-order` kind,
// differences caused by the replay, `not-comparable` entries, a mapping proposal) and must show them.
// With REPORT_SCREENSHOTS_DIR set, screenshots at 1400x1000 are written there for a person to look at.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generalisePath } from '../../src/json-diff/json-path.js';
import { runReplayCommand } from '../../src/replay/run/run-command.js';
import { replayGateway } from '../../src/commands/replay-gateway.js';
import { extrasReport } from './html-report-extras.js';

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
const SCREENSHOTS = process.env.REPORT_SCREENSHOTS_DIR;

type Counts = { total: number; identical: number; different: number; skipped: number; errors: number; causedByReplay: number };
interface JsonReport {
  summary: Counts & { methods: Record<string, Counts> };
  entries: Array<{ index: number; method: string; url: string; outcome: string; legacyMethod: string; diffs: Array<{ path: string; kind: string }> }>;
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'replay-html-'));
const htmlPath = path.join(dir, 'report.html');
const extrasPath = path.join(dir, 'extras.html');
const pages = [pathToFileURL(htmlPath).href, pathToFileURL(extrasPath).href];
let report: JsonReport;
let context: BrowserContext;
let page: Page;
const requests: string[] = [];
const pageErrors: string[] = [];

beforeAll(async () => {
  const code = await runReplayCommand(
    HAR,
    { json: path.join(dir, 'report.json'), html: htmlPath },
    { stdout: { write: () => true }, stderr: { write: () => true }, env: {} },
    replayGateway,
  );
  expect(code).toBe(1);
  report = JSON.parse(readFileSync(path.join(dir, 'report.json'), 'utf8')) as JsonReport;
  writeFileSync(extrasPath, extrasReport());

  context = await chromium.launchPersistentContext(path.join(dir, 'chromium-profile'), {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1400, height: 1000 },
  });
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  page = await context.newPage();
  page.on('request', (r) => void requests.push(r.url()));
  page.on('pageerror', (e) => void pageErrors.push(e.message));
  // Anything but the reports themselves is refused (and recorded above), so a stray fetch cannot succeed.
  await context.route('**/*', (route) => (pages.includes(route.request().url()) ? route.continue() : route.abort()));
});

afterAll(async () => {
  await context?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function screenshot(name: string): Promise<void> {
  if (SCREENSHOTS === undefined) return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`) });
}

const visibleEntries = (): Promise<number> => page.locator('li.entry:visible').count();
const visibleIndexes = (): Promise<number[]> =>
  page.locator('li.entry:visible').evaluateAll((els) => els.map((el) => Number(el.id.replace('entry-', ''))));

/** Groups as the JSON report's entries give them: entries per (method, path pattern, kind). */
function groupsOfJson(): Map<string, number[]> {
  const groups = new Map<string, number[]>();
  for (const e of report.entries) {
    for (const key of new Set(e.diffs.map((d) => `${e.legacyMethod} ${generalisePath(d.path)} ${d.kind}`))) {
      groups.set(key, [...(groups.get(key) ?? []), e.index]);
    }
  }
  return groups;
}

describe('HTML report of a run, in Chromium', () => {
  beforeAll(async () => {
    await page.goto(pages[0] as string);
    await screenshot('first-screen');
  });

  it('says the verdict and shows the counts of the JSON report', async () => {
    await expect(page.title()).resolves.toContain('Replay report');
    await expect(page.locator('.verdict .headline').textContent()).resolves.toBe('7 of 10 replayed calls differ.');
    for (const key of ['total', 'identical', 'different', 'skipped', 'errors'] as const) {
      expect(await page.locator(`#count-${key}`).textContent(), key).toBe(String(report.summary[key]));
    }
    for (const [method, counts] of Object.entries(report.summary.methods)) {
      const row = page.locator(`table.methods tr[data-method="${method}"]`);
      for (const key of ['total', 'identical', 'different', 'skipped', 'errors'] as const) {
        expect(await row.locator(`td[data-count="${key}"]`).textContent(), `${method} ${key}`).toBe(String(counts[key]));
      }
    }
    expect(await page.locator('li.entry').count()).toBe(report.summary.total);
    expect(await visibleEntries()).toBe(report.summary.total);
    expect(await page.locator('#shown').textContent()).toBe(`Showing ${report.summary.total} of ${report.summary.total} entries`);
  });

  it('groups the differences as the JSON report has them, with each share of the method\'s compared calls, the largest on the first screen', async () => {
    const rows = await page.locator('tr.group').evaluateAll((trs) =>
      trs.map((tr) => ({
        key: `${tr.querySelector('.g-method')?.textContent} ${tr.querySelector('.g-path')?.textContent} ${tr.querySelector('.kind')?.textContent}`,
        entries: Number(tr.getAttribute('data-entries')),
        calls: Number(tr.getAttribute('data-calls')),
        share: tr.querySelector('.g-pct')?.textContent,
      })),
    );
    const expected = groupsOfJson();
    expect(rows.map((r) => r.key).sort()).toEqual([...expected.keys()].sort());
    for (const row of rows) {
      const method = row.key.split(' ')[0] as string;
      const counts = report.summary.methods[method] as Counts;
      expect(row.entries, row.key).toBe(expected.get(row.key)?.length);
      expect(row.calls, row.key).toBe(counts.identical + counts.different + counts.causedByReplay);
      expect(row.share, row.key).toBe(`${Math.round((row.entries / row.calls) * 100)}%`);
    }
    // The first eight groups are on the first screen; the others one click away.
    const firstScreen = await page.locator('tr.group:visible').evaluateAll((trs) => trs.filter((tr) => tr.getBoundingClientRect().bottom <= 1000).length);
    expect(firstScreen).toBe(8);
    await page.locator('.more-groups > summary').click();
    expect(await page.locator('tr.group:visible').count()).toBe(rows.length);
  });

  it('filters to a group in one click, highlighting its rows, and back to every entry', async () => {
    const group = page.locator('tr.group', { hasText: 'session_start_time' });
    await group.locator('a.show-group').click();
    await expect.poll(() => page.evaluate('location.hash')).toMatch(/^#group-\d+$/);
    expect(await visibleIndexes()).toEqual(groupsOfJson().get('sessions $.response[*].session_start_time format'));
    await expect(page.locator('#group-name').textContent()).resolves.toBe('sessions $.response[*].session_start_time format');
    const highlighted = page.locator('li.entry:visible .in-group');
    expect(await highlighted.count()).toBe(2); // its row in the table of differences and in the bodies
    await screenshot('group-filtered');
    await page.locator('#group-clear').click();
    expect(await visibleEntries()).toBe(report.summary.total);
    expect(await page.locator('#group-filter').isVisible()).toBe(false);
  });

  it('gives every entry the number and the link of the JSON report', async () => {
    for (const e of report.entries) {
      const li = page.locator(`li#entry-${e.index}`);
      expect(await li.getAttribute('data-outcome'), String(e.index)).toBe(e.outcome);
      expect(await li.locator('a.index').textContent()).toBe(`#${e.index}`);
      expect(await li.locator('a.index').getAttribute('href')).toBe(`#entry-${e.index}`);
      expect(await li.locator('.call').textContent()).toBe(`${e.method} ${e.url}`);
    }
    // A link to an entry the filters hide shows it, open, wherever the filters were.
    await page.locator('input[name="outcome"][value="identical"]').uncheck();
    const identical = report.entries.find((e) => e.outcome === 'identical')?.index;
    expect(await page.locator(`li#entry-${identical}`).isVisible()).toBe(false);
    await page.evaluate(`location.hash = '#entry-${identical}'`);
    await expect.poll(() => page.locator(`li#entry-${identical}`).isVisible()).toBe(true);
    expect(await page.locator(`li#entry-${identical} details`).getAttribute('open')).toBe('');
    expect(await visibleEntries()).toBe(report.summary.total);
  });

  it('shows both whole replies side by side, a difference linked to its row, the unchanged lines folded', async () => {
    const services = page.locator('li.entry[data-method="services"]');
    const row = services.locator('tr[data-kind="format"]');
    expect(await row.locator('td').nth(0).textContent()).toBe('$.response[0].service_cost');
    expect(await row.locator('td').nth(2).textContent()).toBe('"45.5"');
    expect(await row.locator('td').nth(3).textContent()).toBe('"45.50"');
    await expect(page.locator('li.entry[data-method="sessions"] tr[data-kind="missing"] td').nth(3).textContent()).resolves.toBe('absent');

    await row.locator('a').click();
    const line = services.locator('.ln.chg[id]');
    await expect.poll(() => page.evaluate('location.hash')).toBe(`#${await line.getAttribute('id')}`);
    expect(await line.locator('pre.l').textContent()).toBe('"service_cost": "45.5",');
    expect(await line.locator('pre.r').textContent()).toBe('"service_cost": "45.50",');
    expect(await line.isVisible()).toBe(true);
    await screenshot('difference-row');
    // The rest of both replies is there, folded: a fold opens from the keyboard.
    const fold = services.locator('details.fold').last();
    const firstFolded = fold.locator('.ln').first();
    expect(await firstFolded.isVisible()).toBe(false);
    await fold.locator('summary').focus();
    await page.keyboard.press('Enter');
    expect(await firstFolded.isVisible()).toBe(true);
    const recorded = await services.locator('.sbs pre.l').allTextContents();
    expect(recorded.join('')).toContain('"service_default_wage": "20.00",');
  });

  it('shows the request and copies its curl line, the key read from the environment', async () => {
    const entry = page.locator('li#entry-0');
    expect(await entry.locator('.req-line code').textContent()).toBe('GET https://old.example.com/api/services/0/2');
    // The in-process gateway is gone once the page is read: the line goes where `legacy-gateway serve` listens.
    const curl = `curl -sS 'http://127.0.0.1:8080/api/services/0/2' -H "X-API-KEY: $LEGACY_API_KEY"`;
    expect(await entry.locator('.curl code').textContent()).toBe(curl);
    await entry.locator('button.copy').click();
    await expect.poll(() => entry.locator('button.copy').textContent()).toBe('Copied');
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(curl);
  });

  it('filters by outcome, kind, method and URL', async () => {
    await page.locator('input[name="outcome"][value="identical"]').uncheck();
    expect(await visibleEntries()).toBe(report.summary.total - report.summary.identical);

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
    expect(await visibleEntries()).toBe(report.summary.total);
  });

  it('is usable with the keyboard', async () => {
    const skipped = page.locator('input[name="outcome"][value="skipped"]');
    await skipped.focus();
    await page.keyboard.press('Space');
    expect(await skipped.isChecked()).toBe(false);
    expect(await visibleEntries()).toBe(report.summary.total - report.summary.skipped);
    await page.keyboard.press('Space');
    expect(await visibleEntries()).toBe(report.summary.total);
    // An entry opens and closes from the keyboard (native <details>).
    const identical = page.locator('li.entry[data-outcome="identical"]').last();
    expect(await identical.locator('details').getAttribute('open')).toBe(null);
    await identical.locator('summary').focus();
    await page.keyboard.press('Enter');
    expect(await identical.locator('details').getAttribute('open')).toBe('');
    await page.keyboard.press('Enter');
    expect(await identical.locator('details').getAttribute('open')).toBe(null);
  });
});

describe('HTML report of what newer runs add, in Chromium', () => {
  beforeAll(async () => {
    await page.goto(pages[1] as string);
    await screenshot('extras-first-screen');
  });

  it('counts entries that could not be compared, and filters them by their outcome', async () => {
    expect(await page.locator('#count-not-comparable').textContent()).toBe('1');
    expect(await page.locator('#count-caused-by-replay').textContent()).toBe('1');
    await expect(page.locator('.verdict .headline').textContent()).resolves.toBe('1 of 3 replayed calls differ.');
    await expect(page.locator('.verdict').textContent()).resolves.toContain(
      '1 entry differs only where an earlier replayed write changed what it read: listed apart, not counted.',
    );
    expect(await page.locator('table.methods tr[data-method="payment"] td[data-count="not-comparable"]').textContent()).toBe('1');
    const entry = page.locator('li.entry[data-outcome="not-comparable"]');
    expect(await entry.locator('.note').textContent()).toBe('not-comparable: the recording holds the payment with its card token redacted');
    await page.locator('input[name="outcome"][value="not-comparable"]').uncheck();
    expect(await entry.isVisible()).toBe(false);
    await page.locator('input[name="outcome"][value="not-comparable"]').check();
    expect(await entry.isVisible()).toBe(true);
  });

  it('lists differences caused by the replay apart from the gateway\'s, marked in the entry', async () => {
    const gatewayGroups = await page.locator('table.groups-table').first().locator('tr.group .g-path').allTextContents();
    expect(gatewayGroups).toEqual(['$.response[*]', '$.response[*].first_name']);
    const caused = page.locator('#caused-h + p + table tr.group');
    expect(await caused.count()).toBe(1);
    // Of the three clients calls compared, one of which differs only by the replay.
    expect(await caused.getAttribute('data-calls')).toBe('3');
    expect(await caused.locator('.g-path').textContent()).toBe('$.response[*].balance');
    const row = page.locator('li#entry-1 tr[data-cause="replay"]');
    await expect(row.locator('.cause-tag').textContent()).resolves.toBe('caused by earlier replayed writes');
    expect(await page.locator('li#entry-1 .ln.cause-replay').count()).toBe(1);
  });

  it('shows a key-order difference as its two key lists, and the record on each side in its own order', async () => {
    const row = page.locator('li#entry-0 tr[data-kind="key-order"]');
    expect(await row.locator('td').nth(2).textContent()).toBe('[\n  "id",\n  "first_name"\n]');
    const line = page.locator('li#entry-0 .ln.chg[title="$.response[0]: key-order"]');
    expect(await line.locator('pre.l').textContent()).toBe('{');
    const record = page.locator('li#entry-0 .ln.chg').filter({ hasText: '"id": "1"' });
    expect(await record.locator('pre.l').allTextContents()).toEqual(['"id": "1",', '"first_name": "Ann"']);
    expect(await record.locator('pre.r').allTextContents()).toEqual(['"first_name": "Ann",', '"id": "1"']);
    expect(await page.locator('input[name="kind"][value="key-order"]').count()).toBe(1);
  });

  it('says on the first screen what the mapping proposal found, linked to it', async () => {
    const line = page.locator('.verdict p.proposed');
    expect(await line.textContent()).toBe('1 mapping edit proposed, 1 field unexplained: see Mapping proposal below.');
    await line.locator('a').click();
    await expect.poll(() => page.evaluate('location.hash')).toBe('#proposal-h');
  });

  it('shows the mapping proposal with links to the entries of its evidence', async () => {
    const proposal = page.locator('table.proposals tbody tr');
    expect(await proposal.locator('th').textContent()).toBe('client.first_name');
    expect(await proposal.locator('td').nth(0).textContent()).toBe('rename from first_name, to given_name');
    expect(await proposal.locator('td').nth(1).textContent()).toBe('2 of 2 records');
    await proposal.locator('a[href="#entry-0"]').click();
    await expect.poll(() => page.evaluate('location.hash')).toBe('#entry-0');
    const unexplained = page.locator('table.unexplained tbody tr');
    expect(await unexplained.locator('td').nth(1).textContent()).toBe('no v1 field holds the values');
    expect(await unexplained.locator('ul.seen li').first().textContent()).toBe('#1 "5.00" → "7.50"');
    await screenshot('extras-proposal');
  });
});

describe('both pages', () => {
  it('make no request beyond loading themselves, and run without errors', () => {
    expect([...new Set(requests)]).toEqual(pages);
    expect(pageErrors).toEqual([]);
  });
});
