// The top of the HTML report: the verdict in one sentence (or, for an interrupted run, how much of the
// recording the page covers), the totals, the per-method table, the skip reasons, the kinds and the rules.
// The numbers are the JSON report's summary, each in an element a test can read (`#count-different`);
// entries not comparable and those that differ only by the replay's own writes are shown when a run has
// them, apart from the gateway's differences, as the verdict of the command line counts them.
// Pure: builds a string; every text in it is escaped.
import { SKIP_REASONS, SKIP_REASON_TEXT } from '../../run/safety.js';
import type { ReportMeta } from '../json.js';
import type { OutcomeCounts, ReplaySummary } from '../summary.js';
import { escapeHtml, plural } from './html-text.js';
import { applyGate, gateOf, type DifferenceGate } from '../gate.js';
import { SEVERITIES } from '../severity.js';

/** The counts shown, in order: [summary field, label, id, shown even when 0]. */
const COUNTS: ReadonlyArray<[keyof OutcomeCounts, string, string, boolean]> = [
  ['total', 'total', 'total', true],
  ['identical', 'identical', 'identical', true],
  ['different', 'different', 'different', true],
  ['errors', 'errors', 'errors', true],
  ['skipped', 'skipped', 'skipped', true],
  ['notComparable', 'not comparable', 'not-comparable', false],
  ['causedByReplay', 'by the replay', 'caused-by-replay', false],
];

/** The counts of this run: the usual ones, and the others when the run has such entries. */
const countsOf = (s: ReplaySummary): typeof COUNTS => COUNTS.filter(([key, , , always]) => always || s[key] > 0);

/** Entries whose reply was compared (or whose call failed): what the verdict speaks of. */
function replayedCount(s: ReplaySummary): number {
  return s.total - s.skipped - s.notComparable;
}

/** With --propose-mappings: what the evidence proved, linked to the proposal below, so the fix is on the
 * first screen beside the differences it fixes. */
function proposalSentence(meta: ReportMeta): string {
  if (meta.proposals === undefined && meta.unexplained === undefined) return '';
  const edits = meta.proposals?.length ?? 0;
  const unexplained = meta.unexplained?.length ?? 0;
  const what = edits > 0 ? `${plural(edits, 'mapping edit')} proposed` : 'No mapping edit proposed';
  const rest = unexplained > 0 ? `, ${plural(unexplained, 'field')} unexplained` : '';
  return `<p class="proposed"><a href="#proposal-h">${what}${rest}</a>: see <em>Mapping proposal</em> below.</p>`;
}

/** The sentence at the top: interrupted, differences found, none found, or nothing replayed. */
/** The sentence on --max-differences: what it allows and whether the run passes. */
function allowedSentence(s: ReplaySummary, maxDifferences: number | DifferenceGate | undefined): string {
  if (maxDifferences === undefined) return '';
  const outcome = applyGate(s, gateOf(maxDifferences));
  const verdict = outcome.exitCode === 1 ? 'fails (exit 1)' : 'passes (exit 0)';
  const over = outcome.over.length > 0 && typeof maxDifferences !== 'number' ? ` Over: ${escapeHtml(outcome.over.join(', '))}.` : '';
  return ` Allowed by <code>--max-differences</code>: ${escapeHtml(outcome.allowed)}, so the run ${verdict}.${over}`;
}

/** The differing entries by severity, money first: `1 money, 2 value`. */
function severitySentence(s: ReplaySummary): string {
  const counted = SEVERITIES.filter((k) => s.bySeverity[k] > 0);
  if (counted.length === 0) return '';
  const parts = counted.map((k) => `<span class="sev sev-${k}">${s.bySeverity[k]} ${k}</span>`).join(', ');
  const money = s.bySeverity.money > 0 ? ` <strong>${plural(s.bySeverity.money, 'payment')} answered with another outcome: listed first.</strong>` : '';
  return `<p class="severities" id="severities">Differing entries by severity: ${parts}.${money}</p>`;
}

function verdictHtml(s: ReplaySummary, meta: ReportMeta, maxDifferences: number | DifferenceGate | undefined): string {
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
  const allowed = allowedSentence(s, maxDifferences);
  const notReplayed = s.total - replayed > 0 ? ` ${plural(s.total - replayed, 'entry', 'entries')} not replayed (below).` : '';
  if (replayed === 0) {
    return `<div class="verdict verdict-none"><p class="headline">No call was replayed.</p><p>${plural(s.total, 'entry', 'entries')} in the recording, none sent.${allowed}</p></div>`;
  }
  if (failing === 0) {
    const all = replayed === 1 ? 'The one replayed call' : `All ${replayed} replayed calls`;
    return `<div class="verdict verdict-pass"><p class="headline">${all} answered as recorded.</p><p>Same status, values, types and spellings.${notReplayed}${allowed}</p></div>`;
  }
  const proposed = proposalSentence(meta);
  // The colour is the verdict's: a run within --max-differences passes (exit 0), whatever it found.
  const passes = maxDifferences !== undefined && applyGate(s, gateOf(maxDifferences)).exitCode === 0;
  const what = s.errors > 0 ? (s.different > 0 ? 'differ or failed' : 'failed') : 'differ';
  const caused =
    s.causedByReplay > 0
      ? ` ${plural(s.causedByReplay, 'entry differs', 'entries differ')} only where an earlier replayed write changed what ${s.causedByReplay === 1 ? 'it' : 'they'} read: listed apart, not counted.`
      : '';
  return (
    `<div class="verdict ${passes ? 'verdict-pass' : 'verdict-fail'}"><p class="headline">${failing} of ${plural(replayed, 'replayed call')} ${what}.</p>` +
    `<p>The gateway does not yet answer every call as the recorded service did.${caused}${notReplayed}${allowed}</p>${severitySentence(s)}${proposed}</div>`
  );
}

function totalsHtml(s: ReplaySummary): string {
  return countsOf(s)
    .map(([key, label, id]) => `<div class="total total-${id}"><dt>${label}</dt><dd id="count-${id}" data-count="${s[key]}">${s[key]}</dd></div>`)
    .join('');
}

function methodsTable(s: ReplaySummary): string {
  const columns = countsOf(s);
  const rows = Object.entries(s.methods)
    .map(
      ([name, c]) =>
        `<tr data-method="${escapeHtml(name)}"><th scope="row">${escapeHtml(name)}</th>` +
        columns.map(([key, , id]) => `<td data-count="${id}">${c[key]}</td>`).join('') +
        '</tr>',
    )
    .join('');
  const head = columns.map(([, label]) => `<th scope="col">${label}</th>`).join('');
  return `<table class="methods"><caption>Per legacy method</caption><thead><tr><th scope="col">method</th>${head}</tr></thead><tbody>${rows}</tbody></table>`;
}

/**
 * The rules and their use: each rule that matched, and each of the operator's own that matched nothing
 * (worth a warning). The default rules that matched nothing are one sentence, not a list: they cover what
 * the gateway makes new on every call, which a recording without such calls never meets.
 */
function rulesHtml(meta: ReportMeta): string {
  const unmatched = meta.rules.filter((r) => r.matchedEntries === 0 && r.origin === 'file');
  const unusedDefaults = meta.rules.filter((r) => r.matchedEntries === 0 && r.origin === 'default').length;
  const listed = meta.rules.filter((r) => r.matchedEntries > 0 || r.origin !== 'default');
  if (listed.length === 0 && unusedDefaults === 0) return '';
  const items = listed
    .map((r) => {
      const warn = r.matchedEntries === 0 && r.origin === 'file';
      const use = r.matchedEntries === 0 ? (warn ? '<strong>matched nothing</strong>' : 'matched nothing') : `applied in ${plural(r.matchedEntries, 'entry', 'entries')}`;
      const origin = r.origin === 'default' ? ' <span class="tag">default</span>' : '';
      return `<li class="${warn ? 'unmatched' : ''}"><code>${escapeHtml(r.rule)}</code>${origin}: ${use}</li>`;
    })
    .join('');
  const warn = unmatched.length > 0 ? `<p class="warn">${unmatched.length} rule(s) matched nothing: remove or fix them.</p>` : '';
  const defaults =
    unusedDefaults > 0
      ? `<p class="note" id="unused-default-rules">${plural(unusedDefaults, 'default rule')} not used by this run: they make equal what the gateway makes new on every call (payment ids, new client ids, request ids), which no compared call here carried.</p>`
      : '';
  return `<h3>Rules</h3>${items !== '' ? `<ul class="rules">${items}</ul>` : ''}${warn}${defaults}`;
}

function detailsHtml(s: ReplaySummary, meta: ReportMeta): string {
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
export function verdictSection(s: ReplaySummary, meta: ReportMeta, maxDifferences: number | DifferenceGate | undefined): string {
  return `<section aria-labelledby="summary-h" class="summary"><h2 id="summary-h" class="sr-only">Summary</h2>${verdictHtml(s, meta, maxDifferences)}<dl class="totals">${totalsHtml(s)}</dl></section>`;
}

/** The per-method table, skips, kinds and rules: below the largest groups. */
export function breakdownSection(s: ReplaySummary, meta: ReportMeta): string {
  return `<section aria-labelledby="breakdown-h" class="breakdown"><h2 id="breakdown-h">By method</h2><div class="cols">${methodsTable(s)}<div>${detailsHtml(s, meta)}</div></div></section>`;
}
