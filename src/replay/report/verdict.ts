// What `legacy-gateway replay` prints once the entries are counted, and its exit code: the per-method table,
// then the verdict (0 when the run is within --max-differences: at most N entries differ or failed, and/or
// at most N entries of each severity named, see gate.ts; else 1), or, for an
// interrupted run, how many entries the reports cover and 130 (never 0 or 1: not everything was checked).
// Entries that differ only because of the replay, and entries that could not be compared, are not gateway
// differences: the verdict leaves them out and says how many there were.
// Pure: must never do I/O; the command scrubs and prints the text returned here.
import type { RuleUsage } from './json.js';
import { renderSummaryTable, type ReplaySummary } from './summary.js';
import { applyGate, gateOf, type DifferenceGate } from './gate.js';
import { SEVERITIES } from './severity.js';

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

/** What the verdict leaves out, when there is any: ` (not counted: 2 by the replay, 1 not comparable)`. */
function notCounted(summary: ReplaySummary): string {
  const parts: string[] = [];
  if (summary.causedByReplay > 0) parts.push(`${summary.causedByReplay} by the replay`);
  if (summary.notComparable > 0) parts.push(`${summary.notComparable} not comparable`);
  return parts.length > 0 ? ` (not counted: ${parts.join(', ')})` : '';
}

/** With a per-severity gate: the differing entries by severity, and the limits exceeded. */
function severityLines(summary: ReplaySummary, over: readonly string[]): string {
  const counted = SEVERITIES.filter((s) => summary.bySeverity[s] > 0).map((s) => `${s} ${summary.bySeverity[s]}`);
  let out = `differing entries by severity: ${counted.length > 0 ? counted.join(', ') : 'none'}\n`;
  if (over.length > 0) out += `over the gate: ${over.join(', ')}\n`;
  return out;
}

export function verdictOf(run: RunOutcome, maxDifferences: number | DifferenceGate, reports: { json?: string | undefined; html?: string | undefined }): Verdict {
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
    // The default rules are not the operator's to fix: a payment-free recording never uses some of them.
    for (const r of run.rules.filter((u) => u.matchedEntries === 0 && u.origin === 'file')) warnings += `warning: rule ${r.rule} matched nothing: remove or fix it\n`;
    const failing = summary.different + summary.errors;
    const gate = gateOf(maxDifferences);
    const outcome = applyGate(summary, gate);
    exitCode = outcome.exitCode;
    // The total alone (the option's first form) keeps its one line as it was.
    if (Object.keys(gate.bySeverity).length > 0) closing += severityLines(summary, outcome.over);
    closing += `${failing} of ${summary.total} entries differ or failed (allowed: ${outcome.allowed})${notCounted(summary)}: exit ${exitCode}\n`;
  }
  if (reports.json !== undefined) closing += `JSON report: ${reports.json}\n`;
  if (reports.html !== undefined) closing += `HTML report: ${reports.html}\n`;
  return { table: renderSummaryTable(summary), warnings, closing, exitCode };
}
