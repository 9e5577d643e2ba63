// The HTML report (`--html FILE`): one self-contained page a reviewer opens from disk. The first screen
// says the verdict and shows the largest difference groups; below come the mapping proposal (when the run
// made one), the per-method table, the filters and every entry, each with its request and both replies
// side by side. The entries are listed by severity (severity.ts), the payments whose outcome differs
// (`money`) first, then status, shape, value and order, then the entries without differences; each group
// in file order, and each differing entry with its severity's badge. It works from the keyboard and without JavaScript (filters then do nothing).
// Pure: builds a string. It must never reference anything outside the page (a Content-Security-Policy
// forbids every fetch), and only ever receives entries that went through redactReportEntry.
import { DIFF_KINDS } from '../../../json-diff/json-diff.js';
import { DifferenceGroups, type DifferenceGroup } from '../difference-groups.js';
import { OUTCOMES } from '../entry.js';
import type { ReportMeta } from '../json.js';
import type { ReplaySummary } from '../summary.js';
import type { PageEntry } from './entry-selection.js';
import { entryHtml } from './entry-view.js';
import { extrasHtml } from './extras-view.js';
import { filtersHtml } from './filters-view.js';
import { GroupIndex, groupsHtml } from './groups-view.js';
import { escapeHtml, plural } from './html-text.js';
import { PAGE_SCRIPT } from './page-script.js';
import { STYLE } from './style.js';
import { breakdownSection, verdictSection } from './summary-view.js';
import type { DifferenceGate } from '../gate.js';
import { entrySeverity, severityRank, SEVERITIES } from '../severity.js';

export interface HtmlReportInput {
  summary: ReplaySummary;
  meta: ReportMeta;
  /** The entries shown (the selection caps how many it keeps). */
  entries: readonly PageEntry[];
  /** Entries of the run not on the page (see the JSON report for all). */
  omittedEntries: number;
  /** The difference groups of every entry of the run; by default, those of the entries shown. */
  groups?: readonly DifferenceGroup[];
  /** The run's --max-differences, for the verdict. */
  maxDifferences?: number | DifferenceGate | undefined;
  /** Where the copy-as-curl lines send each call: the run's target (undefined: the recorded URL). */
  curlBase?: string | undefined;
}

/** Every value the run has, in the usual order first, then any other the entries carry. */
function choicesOf(known: readonly string[], seen: Iterable<string>): string[] {
  const out = [...known];
  for (const v of seen) if (!out.includes(v)) out.push(v);
  return out;
}

/** Money first, then by severity, then the entries without differences; file order within each. */
export function bySeverity<T extends PageEntry>(entries: readonly T[]): T[] {
  const rank = (e: T): number => {
    const severity = entrySeverity(e);
    return severity === undefined ? SEVERITIES.length : severityRank(severity);
  };
  return entries
    .map((entry, at) => ({ entry, at, rank: rank(entry) }))
    .sort((a, b) => a.rank - b.rank || a.at - b.at)
    .map((x) => x.entry);
}

function entriesSection(input: HtmlReportInput, index: GroupIndex): string {
  const { omittedEntries } = input;
  const entries = bySeverity(input.entries);
  const omitted =
    omittedEntries > 0
      ? `<p class="note">${plural(omittedEntries, 'entry', 'entries')} not on this page (identical ones first); the JSON report (--json) lists every entry.</p>`
      : '';
  return (
    '<section aria-labelledby="entries-h"><h2 id="entries-h">Entries</h2>' +
    '<p class="lead">Numbered as in the JSON report (<code>index</code>: the position in the recording, from 0). Each number is a link to its entry. ' +
    'Listed by severity: payments whose outcome differs (<span class="sev sev-money">money</span>) first, then <span class="sev sev-status">status</span>, ' +
    '<span class="sev sev-shape">shape</span>, <span class="sev sev-value">value</span> and <span class="sev sev-order">order</span>, then the entries without differences.</p>' +
    `${omitted}<ol class="entries">${entries.map((e) => entryHtml(e, index.idsOf(e), input.curlBase)).join('\n')}</ol></section>`
  );
}

function groupsOf(input: HtmlReportInput): readonly DifferenceGroup[] {
  if (input.groups !== undefined) return input.groups;
  const groups = new DifferenceGroups();
  for (const e of input.entries) groups.add(e);
  return groups.list();
}

export function renderHtmlReport(input: HtmlReportInput): string {
  const { meta, entries, summary } = input;
  const index = new GroupIndex(groupsOf(input));
  const filters = filtersHtml({
    outcomes: choicesOf(OUTCOMES, entries.map((e) => e.outcome)),
    kinds: choicesOf(DIFF_KINDS, entries.flatMap((e) => e.diffs.map((d) => d.kind))),
    methods: Object.keys(summary.methods),
  });
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; base-uri 'none'; form-action 'none'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Replay report: ${escapeHtml(meta.file)}</title>
<style>${STYLE}</style>
</head>
<body>
<header class="top"><div class="wrap"><h1>Replay report</h1><p class="meta"><code>${escapeHtml(meta.file)}</code> replayed against <code>${escapeHtml(meta.target)}</code>. The recorded replies are the reference: status, values, types, spellings and order are compared, except where a rule (listed under the method table) says otherwise.</p></div></header>
<main class="wrap">
${verdictSection(summary, meta, input.maxDifferences)}
${groupsHtml(index, summary.methods)}
${extrasHtml(meta)}
${breakdownSection(summary, meta)}
${filters}
${entriesSection(input, index)}
</main>
<script>${PAGE_SCRIPT}</script>
</body>
</html>
`;
}
