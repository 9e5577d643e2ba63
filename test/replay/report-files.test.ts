// The report files on disk: a report that cannot be written (here its name is taken by a directory, so the
// final rename fails) leaves no partial file behind, JSON or HTML; the list of partial files a run may
// leave is the one the second-signal path removes.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ReportEntry } from '../../src/replay/report/entry.js';
import { HtmlEntrySelection } from '../../src/replay/report/html/entry-selection.js';
import {
  createJsonReportWriter,
  partialReportPaths,
  removeFilesNow,
  writeHtmlReport,
} from '../../src/replay/report/files.js';
import { SummaryBuilder } from '../../src/replay/report/summary.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'replay-report-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const entry: ReportEntry = { index: 0, method: 'GET', url: '/api/staff/1', legacyMethod: 'staff', outcome: 'identical', diffs: [] };
const meta = { file: 'x.jsonl', target: 'gw', rules: [], interrupted: false };

function summary() {
  const b = new SummaryBuilder();
  b.add(entry);
  return b.result();
}

const partials = (where: string): string[] => readdirSync(where).filter((f) => f.endsWith('.partial'));

describe('report files', () => {
  it('JSON: a report that cannot be written removes its spool and its partial file', async () => {
    const where = path.join(dir, 'json');
    const reportPath = path.join(where, 'report.json');
    mkdirSync(reportPath, { recursive: true });
    const writer = await createJsonReportWriter(reportPath);
    await writer.add(entry);
    expect(partials(where)).toEqual(['report.json.entries.partial']);
    await expect(writer.finish(summary(), meta)).rejects.toThrow(/EISDIR|ENOTEMPTY|EEXIST/);
    expect(partials(where)).toEqual([]);
  });

  it('HTML: a page that cannot be written removes its partial file', async () => {
    const where = path.join(dir, 'html');
    const reportPath = path.join(where, 'report.html');
    mkdirSync(reportPath, { recursive: true });
    const selection = new HtmlEntrySelection();
    selection.add(entry);
    await expect(writeHtmlReport(reportPath, summary(), meta, selection)).rejects.toThrow(/EISDIR|ENOTEMPTY|EEXIST/);
    expect(partials(where)).toEqual([]);
  });

  it('names every partial file a run may leave, and removes them at once', async () => {
    const where = path.join(dir, 'names');
    const json = path.join(where, 'r.json');
    const html = path.join(where, 'r.html');
    const writer = await createJsonReportWriter(json);
    await writer.add(entry);
    const paths = partialReportPaths({ json, html });
    expect(paths).toEqual([`${json}.entries.partial`, `${json}.partial`, `${html}.partial`]);
    writeFileSync(`${json}.partial`, '{');
    writeFileSync(`${html}.partial`, '<');
    expect(partials(where)).toHaveLength(3);
    removeFilesNow(paths);
    expect(partials(where)).toEqual([]);
    expect(partialReportPaths({})).toEqual([]);
    await writer.abort();
    expect(existsSync(`${json}.entries.partial`)).toBe(false);
  });
});
