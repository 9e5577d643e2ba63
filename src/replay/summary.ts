// Counts a replay's outcomes: totals, per legacy method, skips by reason, differences by kind; and the
// per-method table printed at the end. The JSON and HTML reports show the same numbers.
// Pure: must never do I/O (the table is returned as text).
import { DIFF_KINDS, type DiffKind } from './diff.js';
import type { Outcome, ReportEntry } from './report-entry.js';
import { SKIP_REASONS, SKIP_REASON_TEXT, type SkipReason } from './safety.js';

export interface OutcomeCounts {
  total: number;
  identical: number;
  different: number;
  skipped: number;
  errors: number;
}

export interface ReplaySummary extends OutcomeCounts {
  /** Skipped entries by reason. */
  skippedBy: Record<SkipReason, number>;
  /** Differences (not entries) by kind. */
  kinds: Record<DiffKind, number>;
  /** Per legacy method, sorted by name. */
  methods: Record<string, OutcomeCounts>;
}

const OUTCOME_FIELD: Readonly<Record<Outcome, keyof OutcomeCounts>> = {
  identical: 'identical',
  different: 'different',
  skipped: 'skipped',
  error: 'errors',
};

function zeroCounts(): OutcomeCounts {
  return { total: 0, identical: 0, different: 0, skipped: 0, errors: 0 };
}

export class SummaryBuilder {
  private readonly totals = zeroCounts();
  private readonly methods = new Map<string, OutcomeCounts>();
  private readonly skippedBy = Object.fromEntries(SKIP_REASONS.map((r) => [r, 0])) as Record<SkipReason, number>;
  private readonly kinds = Object.fromEntries(DIFF_KINDS.map((k) => [k, 0])) as Record<DiffKind, number>;

  add(entry: ReportEntry): void {
    const field = OUTCOME_FIELD[entry.outcome];
    this.totals.total++;
    this.totals[field]++;
    let perMethod = this.methods.get(entry.legacyMethod);
    if (!perMethod) {
      perMethod = zeroCounts();
      this.methods.set(entry.legacyMethod, perMethod);
    }
    perMethod.total++;
    perMethod[field]++;
    if (entry.reason !== undefined) this.skippedBy[entry.reason]++;
    for (const d of entry.diffs) this.kinds[d.kind]++;
  }

  result(): ReplaySummary {
    const methods: Record<string, OutcomeCounts> = {};
    for (const name of [...this.methods.keys()].sort()) methods[name] = { ...(this.methods.get(name) as OutcomeCounts) };
    return { ...this.totals, skippedBy: { ...this.skippedBy }, kinds: { ...this.kinds }, methods };
  }
}

/** The per-method table, then the skip reasons and difference kinds that occurred. */
export function renderSummaryTable(summary: ReplaySummary): string {
  const header = ['method', 'total', 'identical', 'different', 'skipped', 'errors'];
  const rows: string[][] = Object.entries(summary.methods).map(([name, c]) => [
    name,
    ...[c.total, c.identical, c.different, c.skipped, c.errors].map(String),
  ]);
  rows.push(['all', ...[summary.total, summary.identical, summary.different, summary.skipped, summary.errors].map(String)]);
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
  const kinds = DIFF_KINDS.filter((k) => summary.kinds[k] > 0);
  if (kinds.length > 0) out.push('', `differences by kind: ${kinds.map((k) => `${k} ${summary.kinds[k]}`).join(', ')}`);
  return out.join('\n') + '\n';
}
