// What `legacy-gateway replay` prints once the entries are counted, and its exit code: the per-method table,
// then the verdict (0 when at most --max-differences entries differ or failed, else 1), or, for an
// interrupted run, how many entries the reports cover and 130 (never 0 or 1: not everything was checked).
// Pure: must never do I/O; the command scrubs and prints the text returned here.
import type { RuleUsage } from './report-json.js';
import { renderSummaryTable, type ReplaySummary } from './summary.js';

/** An interrupted run's exit code: 128 + SIGINT's number, what shells report for Ctrl-C. */
export const INTERRUPTED_EXIT_CODE = 130;

export interface RunOutcome {
  summary: ReplaySummary;
  rules: readonly RuleUsage[];
  interrupted: boolean;
  entriesInFile: number | undefined;
}

/** Printed in this order: the table (stdout), warnings (stderr), the closing lines (stdout). */
export interface Verdict {
  table: string;
  warnings: string;
  closing: string;
  exitCode: number;
}

export function verdictOf(run: RunOutcome, maxDifferences: number, reports: { json?: string | undefined; html?: string | undefined }): Verdict {
  const { summary } = run;
  let closing = '';
  let warnings = '';
  let exitCode: number;
  if (run.interrupted) {
    // No verdict and no unused-rule warnings: the entries not replayed might have changed either.
    closing +=
      run.entriesInFile !== undefined
        ? `interrupted after ${summary.total} of ${run.entriesInFile} entries: the reports cover those ${summary.total}\n`
        : 'interrupted while the recording was still being checked, before any call: the reports cover no entries\n';
    exitCode = INTERRUPTED_EXIT_CODE;
  } else {
    for (const r of run.rules.filter((u) => u.matchedEntries === 0)) warnings += `warning: rule ${r.rule} matched nothing: remove or fix it\n`;
    const failing = summary.different + summary.errors;
    exitCode = failing > maxDifferences ? 1 : 0;
    closing += `${failing} of ${summary.total} entries differ or failed (allowed: ${maxDifferences}): exit ${exitCode}\n`;
  }
  if (reports.json !== undefined) closing += `JSON report: ${reports.json}\n`;
  if (reports.html !== undefined) closing += `HTML report: ${reports.html}\n`;
  return { table: renderSummaryTable(summary), warnings, closing, exitCode };
}
