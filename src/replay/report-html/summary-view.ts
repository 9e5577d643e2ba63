// The top of the HTML report: the verdict in one sentence (or, for an interrupted run, how much of the
// recording the page covers), the totals, the per-method table, the skip reasons, the kinds and the rules.
// The numbers are the JSON report's summary, each in an element a test can read (`#count-different`).
// Pure: builds a string; every text in it is escaped. Counts it does not know (a newer summary's) are
// shown when present, under their own name.
import { SKIP_REASONS, SKIP_REASON_TEXT } from '../safety.js';
import type { ReportMeta } from '../report-json.js';
import type { OutcomeCounts, ReplaySummary } from '../summary.js';
import { escapeHtml, plural } from './html-text.js';

/** The summary, with the counts a run may add: entries not comparable, differences caused by the replay. */
export type ShownSummary = ReplaySummary & { notComparable?: number; causedByReplay?: number };

/** The totals shown, in order: [summary field, label]. */
const TOTALS: ReadonlyArray<[keyof ShownSummary & string, string]> = [
  ['total', 'total'],
  ['identical', 'identical'],
  ['different', 'different'],
  ['errors', 'errors'],
  ['skipped', 'skipped'],
  ['notComparable', 'not comparable'],
];

const METHOD_COLUMNS = ['total', 'identical', 'different', 'skipped', 'errors'] as const;

/** Entries whose reply was compared (or whose call failed): what the verdict speaks of. */
function replayedCount(s: ShownSummary): number {
  return s.total - s.skipped - (s.notComparable ?? 0);
}

/** The sentence at the top: interrupted, differences found, none found, or nothing replayed. */
function verdictHtml(s: ShownSummary, meta: ReportMeta, maxDifferences: number | undefined): string {
  if (meta.interrupted) {
    const headline =
      meta.entriesInFile !== undefined ? `Interrupted: ${s.total} of ${meta.entriesInFile} entries replayed.` : `Interrupted: ${s.total} entries replayed.`;
    const detail =
      meta.entriesInFile !== undefined
        ? 'The run was stopped before the end of the recording: the counts and entries below cover only those entries.'
        : 'The run was stopped while the recording was still being checked, before any call was made.';
    return `<div class="verdict verdict-partial interrupted"><p class="headline">${headline}</p><p>${detail}</p></div>`;
  }
  const replayed = replayedCount(s);
  const failing = s.different + s.errors;
  const allowed = maxDifferences !== undefined ? ` Allowed by <code>--max-differences</code>: ${maxDifferences}, so the run ${failing > maxDifferences ? 'fails (exit 1)' : 'passes (exit 0)'}.` : '';
  const notReplayed = s.total - replayed > 0 ? ` ${plural(s.total - replayed, 'entry', 'entries')} not replayed (below).` : '';
  if (replayed === 0) {
    return `<div class="verdict verdict-none"><p class="headline">No call was replayed.</p><p>${plural(s.total, 'entry', 'entries')} in the recording, none sent.${allowed}</p></div>`;
  }
  if (failing === 0) {
    const all = replayed === 1 ? 'The one replayed call' : `All ${replayed} replayed calls`;
    return `<div class="verdict verdict-pass"><p class="headline">${all} answered as recorded.</p><p>Same status, values, types and spellings.${notReplayed}${allowed}</p></div>`;
  }
  const what = s.errors > 0 ? (s.different > 0 ? 'differ or failed' : 'failed') : 'differ';
  const caused = (s.causedByReplay ?? 0) > 0 ? ` ${plural(s.causedByReplay ?? 0, 'difference')} caused by earlier replayed writes, listed apart.` : '';
  return (
    `<div class="verdict verdict-fail"><p class="headline">${failing} of ${plural(replayed, 'replayed call')} ${what}.</p>` +
    `<p>The gateway does not yet answer every call as the recorded service did.${caused}${notReplayed}${allowed}</p></div>`
  );
}

function totalsHtml(s: ShownSummary): string {
  return TOTALS.filter(([key]) => key !== 'notComparable' || s.notComparable !== undefined)
    .map(([key, label]) => {
      const value = Number(s[key] ?? 0);
      const id = key === 'notComparable' ? 'not-comparable' : key;
      return `<div class="total total-${id}"><dt>${label}</dt><dd id="count-${id}" data-count="${value}">${value}</dd></div>`;
    })
    .join('');
}

function methodsTable(methods: Readonly<Record<string, OutcomeCounts & { notComparable?: number }>>): string {
  const extra = Object.values(methods).some((c) => c.notComparable !== undefined);
  const columns: string[] = [...METHOD_COLUMNS, ...(extra ? ['notComparable'] : [])];
  const rows = Object.entries(methods)
    .map(
      ([name, c]) =>
        `<tr data-method="${escapeHtml(name)}"><th scope="row">${escapeHtml(name)}</th>` +
        columns.map((k) => `<td data-count="${k}">${Number((c as unknown as Record<string, number>)[k] ?? 0)}</td>`).join('') +
        '</tr>',
    )
    .join('');
  const head = columns.map((k) => `<th scope="col">${k === 'notComparable' ? 'not comparable' : k}</th>`).join('');
  return `<table class="methods"><caption>Per legacy method</caption><thead><tr><th scope="col">method</th>${head}</tr></thead><tbody>${rows}</tbody></table>`;
}

function rulesHtml(meta: ReportMeta): string {
  if (meta.rules.length === 0) return '';
  const unmatched = meta.rules.filter((r) => r.matchedEntries === 0);
  const items = meta.rules
    .map(
      (r) =>
        `<li class="${r.matchedEntries === 0 ? 'unmatched' : ''}"><code>${escapeHtml(r.rule)}</code>: ${
          r.matchedEntries === 0 ? '<strong>matched nothing</strong>' : `applied in ${r.matchedEntries} entries`
        }</li>`,
    )
    .join('');
  const warn = unmatched.length > 0 ? `<p class="warn">${unmatched.length} rule(s) matched nothing: remove or fix them.</p>` : '';
  return `<h3>Rules</h3><ul class="rules">${items}</ul>${warn}`;
}

function detailsHtml(s: ShownSummary, meta: ReportMeta): string {
  const skips = SKIP_REASONS.filter((r) => s.skippedBy[r] > 0)
    .map((r) => `<li data-reason="${r}"><strong>${s.skippedBy[r]}</strong> ${r}: ${escapeHtml(SKIP_REASON_TEXT[r])}</li>`)
    .join('');
  const kinds = Object.entries(s.kinds as Record<string, number>)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `<li><span class="kind kind-${escapeHtml(k)}">${escapeHtml(k)}</span> ${n}</li>`)
    .join('');
  return (
    (kinds ? `<h3>Differences by kind</h3><ul class="kinds">${kinds}</ul>` : '') +
    (skips ? `<h3>Skipped</h3><ul class="skips">${skips}</ul>` : '') +
    rulesHtml(meta)
  );
}

/** The verdict and the totals: the first thing on the page. */
export function verdictSection(s: ShownSummary, meta: ReportMeta, maxDifferences: number | undefined): string {
  return `<section aria-labelledby="summary-h" class="summary"><h2 id="summary-h" class="sr-only">Summary</h2>${verdictHtml(s, meta, maxDifferences)}<dl class="totals">${totalsHtml(s)}</dl></section>`;
}

/** The per-method table, skips, kinds and rules: below the largest groups. */
export function breakdownSection(s: ShownSummary, meta: ReportMeta): string {
  return `<section aria-labelledby="breakdown-h" class="breakdown"><h2 id="breakdown-h">By method</h2><div class="cols">${methodsTable(s.methods)}<div>${detailsHtml(s, meta)}</div></div></section>`;
}
