// Writes the report files. The JSON report streams: entries go to a spool file as they come, and at the
// end the summary (known only then) is written first, followed by the spooled entries, so the report
// reads summary-first without the run holding 100k entries in memory. The `money` entries (severity.ts)
// come first: the writer notes their places in the spool (one entry a line) and copies the spool twice,
// the money lines then the others; a run without any copies it once, as it was written. The HTML page is written at the end
// from a capped selection of entries (html/entry-selection.ts).
// Every file is written under a `.partial` name and renamed when whole; a failure removes the partial files.
// I/O only; the text comes from the pure report builders. It must never write an entry that did not go
// through redaction (the runner hands over only redacted ones), nor leave a partial file after a failure.
import { createReadStream, createWriteStream, rmSync, type WriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { once } from 'node:events';
import { pipeline } from 'node:stream/promises';
import { createInterface } from 'node:readline';
import type { ReportEntry } from './entry.js';
import type { HtmlEntrySelection } from './html/entry-selection.js';
import { renderHtmlReport } from './html/page.js';
import { JSON_REPORT_CLOSING, jsonReportEntry, jsonReportOpening, type ReportMeta } from './json.js';
import type { ReplaySummary } from './summary.js';
import { entrySeverity } from './severity.js';
import type { DifferenceGate } from './gate.js';

async function writeChunk(stream: WriteStream, text: string): Promise<void> {
  if (!stream.write(text)) await once(stream, 'drain');
}

async function closeStream(stream: WriteStream): Promise<void> {
  stream.end();
  await once(stream, 'close');
}

/** Where the JSON report's entries are spooled while the run goes on. */
const spoolPathOf = (reportPath: string): string => `${reportPath}.entries.partial`;
/** Where a report is written before it is renamed to its name. */
const partialPathOf = (reportPath: string): string => `${reportPath}.partial`;

/** Every partial file the reports of a run may have on disk (for a removal that cannot wait). */
export function partialReportPaths(reports: { json?: string | undefined; html?: string | undefined }): string[] {
  const paths: string[] = [];
  if (reports.json !== undefined) paths.push(spoolPathOf(reports.json), partialPathOf(reports.json));
  if (reports.html !== undefined) paths.push(partialPathOf(reports.html));
  return paths;
}

/** Synchronous on purpose: used just before the process exits, when nothing asynchronous will run. A
 * folder (the mapping proposal's partial copy) goes with its content. */
export function removeFilesNow(paths: readonly string[]): void {
  for (const p of paths) {
    try {
      rmSync(p, { force: true, recursive: true });
    } catch {
      // Quitting anyway: one file that cannot be removed must not keep the others.
    }
  }
}

/**
 * Copies the spooled entries (one a line, each but the last ending with the separator's comma) to `out`,
 * the lines in `first` before the others, each group in spool order.
 */
async function copyLinesFirst(spoolPath: string, out: WriteStream, first: ReadonlySet<number>): Promise<void> {
  let written = 0;
  let pending = '';
  for (const wanted of [true, false]) {
    const lines = createInterface({ input: createReadStream(spoolPath, 'utf8'), crlfDelay: Infinity });
    let i = 0;
    for await (const line of lines) {
      if (first.has(i++) === wanted) {
        const entry = line.endsWith(',') ? line.slice(0, -1) : line;
        pending += (written++ === 0 ? '' : ',\n') + entry;
        if (pending.length >= 64 * 1024) {
          await writeChunk(out, pending);
          pending = '';
        }
      }
    }
  }
  if (pending !== '') await writeChunk(out, pending);
}

export interface JsonReportWriter {
  add(entry: ReportEntry): Promise<void>;
  finish(summary: ReplaySummary, meta: ReportMeta): Promise<void>;
  /** Removes the spool file after a failed run. */
  abort(): Promise<void>;
}

export async function createJsonReportWriter(filePath: string): Promise<JsonReportWriter> {
  await mkdir(path.dirname(path.resolve(filePath)), { recursive: true });
  const spoolPath = spoolPathOf(filePath);
  const spool = createWriteStream(spoolPath, { flags: 'w' });
  await once(spool, 'open');
  let first = true;
  // Spool lines (entries) of severity `money`, listed first in the report.
  let lines = 0;
  const moneyLines = new Set<number>();
  // Entries are small: gathered into ~64 KB writes instead of one write per entry.
  let pending = '';
  const flush = async (): Promise<void> => {
    if (pending === '') return;
    const chunk = pending;
    pending = '';
    await writeChunk(spool, chunk);
  };
  return {
    async add(entry) {
      if (entrySeverity(entry) === 'money') moneyLines.add(lines);
      lines++;
      pending += jsonReportEntry(entry, first);
      first = false;
      if (pending.length >= 64 * 1024) await flush();
    },
    async finish(summary, meta) {
      const tmpPath = partialPathOf(filePath);
      let out: WriteStream | undefined;
      try {
        await flush();
        await closeStream(spool);
        out = createWriteStream(tmpPath, { flags: 'w' });
        await writeChunk(out, jsonReportOpening(summary, meta));
        if (moneyLines.size === 0) await pipeline(createReadStream(spoolPath), out, { end: false });
        else await copyLinesFirst(spoolPath, out, moneyLines);
        await writeChunk(out, JSON_REPORT_CLOSING);
        await closeStream(out);
        await rename(tmpPath, filePath);
      } catch (err) {
        spool.destroy();
        out?.destroy();
        await rm(tmpPath, { force: true });
        throw err;
      } finally {
        await rm(spoolPath, { force: true });
      }
    },
    async abort() {
      spool.destroy();
      await rm(spoolPath, { force: true });
    },
  };
}

export async function writeHtmlReport(
  filePath: string,
  summary: ReplaySummary,
  meta: ReportMeta,
  selection: HtmlEntrySelection,
  verdict: { maxDifferences?: number | DifferenceGate; curlBase?: string | undefined } = {},
): Promise<void> {
  await mkdir(path.dirname(path.resolve(filePath)), { recursive: true });
  const html = renderHtmlReport({
    summary,
    meta,
    entries: selection.entries,
    omittedEntries: selection.omittedEntries,
    groups: selection.groups.list(),
    ...verdict,
  });
  const tmpPath = partialPathOf(filePath);
  const out = createWriteStream(tmpPath);
  try {
    await writeChunk(out, html);
    await closeStream(out);
    await rename(tmpPath, filePath);
  } catch (err) {
    out.destroy();
    await rm(tmpPath, { force: true });
    throw err;
  }
}
