// Counts a replay's outcomes: totals, per legacy method, skips by reason, differences by kind; and the
// per-method table printed at the end. The JSON and HTML reports show the same numbers.
// A `different` entry whose every difference was caused by the replay itself (`cause`) counts as
// `causedByReplay`, not `different`, and its differences are not in `kinds`: the verdict counts gateway
// differences only. Entries that could not be compared count as `notComparable`.
// Pure: must never do I/O (the table is returned as text).
import { DIFF_KINDS, type DiffKind } from '../../json-diff/json-diff.js';
import type { Outcome, ReportEntry } from './entry.js';
import { SKIP_REASONS, SKIP_REASON_TEXT, type SkipReason } from '../run/safety.js';
import { entrySeverity, zeroSeverityCounts, type Severity } from './severity.js';

export interface OutcomeCounts {
  total: number;
  identical: number;
  /** Entries with at least one gateway difference. */
  different: number;
  skipped: number;
  errors: number;
  /** Never sent: the recording cannot be replayed faithfully (the entry's reason says why). */
  notComparable: number;
  /** Entries whose every difference was caused by the replay (an earlier replayed write). */
  causedByReplay: number;
}

type EntryCount = Exclude<keyof OutcomeCounts, 'total'>;

export interface ReplaySummary extends OutcomeCounts {
  /** Skipped entries by reason. */
  skippedBy: Record<SkipReason, number>;
  /** Gateway differences (not entries) by kind. */
  kinds: Record<DiffKind, number>;
  /** Entries counted `different`, by their severity (money, status, shape, value, order). */
  bySeverity: Record<Severity, number>;
  /** Per legacy method, sorted by name. */
  methods: Record<string, OutcomeCounts>;
}

const OUTCOME_FIELD: Readonly<Record<Outcome, EntryCount>> = {
  identical: 'identical',
  different: 'different',
  skipped: 'skipped',
  error: 'errors',
  'not-comparable': 'notComparable',
};

/** The count an entry adds to. */
export function countOf(entry: ReportEntry): EntryCount {
  if (entry.outcome === 'different' && entry.diffs.length > 0 && entry.diffs.every((d) => d.cause !== undefined)) return 'causedByReplay';
  return OUTCOME_FIELD[entry.outcome];
}

function zeroCounts(): OutcomeCounts {
  return { total: 0, identical: 0, different: 0, skipped: 0, errors: 0, notComparable: 0, causedByReplay: 0 };
}

export class SummaryBuilder {
  private readonly totals = zeroCounts();
  private readonly methods = new Map<string, OutcomeCounts>();
  private readonly skippedBy = Object.fromEntries(SKIP_REASONS.map((r) => [r, 0])) as Record<SkipReason, number>;
  private readonly kinds = Object.fromEntries(DIFF_KINDS.map((k) => [k, 0])) as Record<DiffKind, number>;
  private readonly bySeverity = zeroSeverityCounts();

  add(entry: ReportEntry): void {
    const field = countOf(entry);
    this.totals.total++;
    this.totals[field]++;
    let perMethod = this.methods.get(entry.legacyMethod);
    if (!perMethod) {
      perMethod = zeroCounts();
      this.methods.set(entry.legacyMethod, perMethod);
    }
    perMethod.total++;
    perMethod[field]++;
    if (entry.outcome === 'skipped' && entry.reason !== undefined) this.skippedBy[entry.reason]++;
    for (const d of entry.diffs) if (d.cause === undefined) this.kinds[d.kind]++;
    if (field === 'different') {
      const severity = entrySeverity(entry);
      if (severity !== undefined) this.bySeverity[severity]++;
    }
  }

  result(): ReplaySummary {
    const methods: Record<string, OutcomeCounts> = {};
    for (const name of [...this.methods.keys()].sort()) methods[name] = { ...(this.methods.get(name) as OutcomeCounts) };
    return { ...this.totals, skippedBy: { ...this.skippedBy }, kinds: { ...this.kinds }, bySeverity: { ...this.bySeverity }, methods };
  }
}

/** The table's count columns; the last two only in a run that has such entries. */
const COLUMNS: ReadonlyArray<{ title: string; count: keyof OutcomeCounts; always: boolean }> = [
  { title: 'total', count: 'total', always: true },
  { title: 'identical', count: 'identical', always: true },
  { title: 'different', count: 'different', always: true },
  { title: 'skipped', count: 'skipped', always: true },
  { title: 'errors', count: 'errors', always: true },
  { title: 'not-comparable', count: 'notComparable', always: false },
  { title: 'by-replay', count: 'causedByReplay', always: false },
];

/** The lines under the table that say what the optional columns count. */
function apartLines(summary: ReplaySummary): string[] {
  const out: string[] = [];
  if (summary.notComparable > 0) {
    out.push(`not comparable: ${summary.notComparable} entries never sent: the recording cannot be replayed as made (a secret kept only as "[REDACTED]", a call refused for its key): each entry's reason says which`);
  }
  if (summary.causedByReplay > 0) {
    out.push(`by replay: ${summary.causedByReplay} entries differ only where an earlier replayed write changed what they read (not gateway differences)`);
  }
  return out;
}

/** The per-method table, then the skip reasons and difference kinds that occurred. */
export function renderSummaryTable(summary: ReplaySummary): string {
  const columns = COLUMNS.filter((c) => c.always || summary[c.count] > 0);
  const header = ['method', ...columns.map((c) => c.title)];
  const rows: string[][] = Object.entries(summary.methods).map(([name, counts]) => [name, ...columns.map((c) => String(counts[c.count]))]);
  rows.push(['all', ...columns.map((c) => String(summary[c.count]))]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ').trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  const out = [line(header), rule, ...rows.slice(0, -1).map(line), rule, line(rows[rows.length - 1] as string[])];
  const skips = SKIP_REASONS.filter((r) => summary.skippedBy[r] > 0);
  if (skips.length > 0) {
    out.push('', 'skipped:');
    for (const r of skips) out.push(`  ${String(summary.skippedBy[r]).padStart(6)}  ${r}: ${SKIP_REASON_TEXT[r]}`);
  }
  const apart = apartLines(summary);
  if (apart.length > 0) out.push('', ...apart);
  const kinds = DIFF_KINDS.filter((k) => summary.kinds[k] > 0);
  if (kinds.length > 0) out.push('', `differences by kind: ${kinds.map((k) => `${k} ${summary.kinds[k]}`).join(', ')}`);
  return out.join('\n') + '\n';
}
