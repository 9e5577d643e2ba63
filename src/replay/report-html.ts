// The HTML report (`--html FILE`): one self-contained page a reviewer opens from disk. Summary with
// per-method counts, filters by outcome, kind, method and URL, and each difference side by side (recorded
// | gateway) with its JSON path. Works from the keyboard (native checkboxes, <details>) and without
// JavaScript (filters then do nothing, everything is shown).
// Pure: builds a string. It must never reference anything outside the page (a Content-Security-Policy
// forbids every fetch), and only ever receives entries that went through redactReportEntry.
import { DIFF_KINDS, type Difference } from './diff.js';
import { stringifyExact, type JsonValue } from '../shared/json-exact.js';
import { OUTCOMES, type ReportEntry } from './report-entry.js';
import type { ReportMeta } from './report-json.js';
import { SKIP_REASONS, SKIP_REASON_TEXT } from './safety.js';
import type { ReplaySummary } from './summary.js';

export interface HtmlReportInput {
  summary: ReplaySummary;
  meta: ReportMeta;
  /** The entries shown (the runner caps how many it keeps). */
  entries: readonly ReportEntry[];
  /** Entries of the run not on the page (see the JSON report for all). */
  omittedEntries: number;
}

/** Longest value text shown in one cell; the JSON report has the whole value. */
export const MAX_VALUE_CHARS = 2000;
/** Differences shown per entry. */
export const MAX_DIFFS_PER_ENTRY = 200;

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function valueCell(value: JsonValue | undefined): string {
  if (value === undefined) return '<td class="absent"><em>absent</em></td>';
  let text = stringifyExact(value, 2);
  if (text.length > MAX_VALUE_CHARS) {
    text = `${text.slice(0, MAX_VALUE_CHARS)}\n… (${text.length - MAX_VALUE_CHARS} more characters in the JSON report)`;
  }
  return `<td><pre>${escapeHtml(text)}</pre></td>`;
}

function diffRow(d: Difference): string {
  return (
    `<tr data-kind="${d.kind}"><td><code>${escapeHtml(d.path)}</code></td>` +
    `<td><span class="kind kind-${d.kind}">${d.kind}</span></td>` +
    valueCell(d.expected) +
    valueCell(d.actual) +
    '</tr>'
  );
}

function entryItem(entry: ReportEntry): string {
  const kinds = [...new Set(entry.diffs.map((d) => d.kind))].join(' ');
  const status = entry.status ? ` <span class="status">HTTP ${entry.status.expected} → ${entry.status.actual}</span>` : '';
  let detail = '';
  if (entry.outcome === 'different') {
    const shown = entry.diffs.slice(0, MAX_DIFFS_PER_ENTRY);
    detail =
      '<table class="diffs"><thead><tr><th scope="col">Path</th><th scope="col">Kind</th>' +
      '<th scope="col">Recorded</th><th scope="col">Gateway</th></tr></thead><tbody>' +
      shown.map(diffRow).join('') +
      '</tbody></table>' +
      (entry.diffs.length > shown.length
        ? `<p class="note">${entry.diffs.length - shown.length} more differences in the JSON report.</p>`
        : '');
  } else if (entry.outcome === 'skipped' && entry.reason !== undefined) {
    detail = `<p class="note">Skipped: ${escapeHtml(SKIP_REASON_TEXT[entry.reason])}</p>`;
  } else if (entry.outcome === 'error') {
    detail = `<p class="note">Error: ${escapeHtml(entry.error ?? 'unknown')}</p>`;
  } else {
    detail = '<p class="note">The gateway answered the same status, values and types.</p>';
  }
  const count = entry.diffs.length > 0 ? ` <span class="count">${entry.diffs.length} difference${entry.diffs.length === 1 ? '' : 's'}</span>` : '';
  return (
    `<li class="entry" data-outcome="${entry.outcome}" data-kinds="${kinds}" data-method="${escapeHtml(entry.legacyMethod)}" data-url="${escapeHtml(entry.url.toLowerCase())}">` +
    `<details${entry.outcome === 'different' || entry.outcome === 'error' ? ' open' : ''}><summary>` +
    `<span class="badge outcome-${entry.outcome}">${entry.outcome}</span> ` +
    `<code class="call">${escapeHtml(entry.method)} ${escapeHtml(entry.url)}</code>` +
    `<span class="index">#${entry.index + 1}</span>${status}${count}</summary>${detail}</details></li>`
  );
}

function summarySection(summary: ReplaySummary, meta: ReportMeta): string {
  const totals = (['total', 'identical', 'different', 'skipped', 'errors'] as const)
    .map(
      (k) =>
        `<div class="total total-${k}"><dt>${k}</dt><dd id="count-${k}" data-count="${summary[k]}">${summary[k]}</dd></div>`,
    )
    .join('');
  const methodRows = Object.entries(summary.methods)
    .map(
      ([name, c]) =>
        `<tr data-method="${escapeHtml(name)}"><th scope="row">${escapeHtml(name)}</th>` +
        (['total', 'identical', 'different', 'skipped', 'errors'] as const)
          .map((k) => `<td data-count="${k}">${c[k]}</td>`)
          .join('') +
        '</tr>',
    )
    .join('');
  const skips = SKIP_REASONS.filter((r) => summary.skippedBy[r] > 0)
    .map((r) => `<li data-reason="${r}"><strong>${summary.skippedBy[r]}</strong> ${r}: ${escapeHtml(SKIP_REASON_TEXT[r])}</li>`)
    .join('');
  const kinds = DIFF_KINDS.filter((k) => summary.kinds[k] > 0)
    .map((k) => `<li><span class="kind kind-${k}">${k}</span> ${summary.kinds[k]}</li>`)
    .join('');
  const unmatched = meta.rules.filter((r) => r.matchedEntries === 0);
  const rules =
    meta.rules.length === 0
      ? ''
      : `<h3>Rules</h3><ul class="rules">${meta.rules
          .map(
            (r) =>
              `<li class="${r.matchedEntries === 0 ? 'unmatched' : ''}"><code>${escapeHtml(r.rule)}</code>: ${
                r.matchedEntries === 0 ? '<strong>matched nothing</strong>' : `applied in ${r.matchedEntries} entries`
              }</li>`,
          )
          .join('')}</ul>${unmatched.length > 0 ? `<p class="warn">${unmatched.length} rule(s) matched nothing: remove or fix them.</p>` : ''}`;
  return (
    '<section aria-labelledby="summary-h"><h2 id="summary-h">Summary</h2>' +
    `<dl class="totals">${totals}</dl>` +
    '<table class="methods"><caption>Per legacy method</caption><thead><tr><th scope="col">method</th>' +
    '<th scope="col">total</th><th scope="col">identical</th><th scope="col">different</th><th scope="col">skipped</th><th scope="col">errors</th></tr></thead>' +
    `<tbody>${methodRows}</tbody></table>` +
    (skips ? `<h3>Skipped</h3><ul class="skips">${skips}</ul>` : '') +
    (kinds ? `<h3>Differences by kind</h3><ul class="kinds">${kinds}</ul>` : '') +
    rules +
    '</section>'
  );
}

/** Shown only for an interrupted run, so nobody mistakes a partial report for a whole one. */
function interruptedBanner(summary: ReplaySummary, meta: ReportMeta): string {
  if (!meta.interrupted) return '';
  const headline =
    meta.entriesInFile !== undefined
      ? `Interrupted: ${summary.total} of ${meta.entriesInFile} entries replayed.`
      : `Interrupted: ${summary.total} entries replayed.`;
  const detail =
    meta.entriesInFile !== undefined
      ? 'The run was stopped before the end of the recording: the counts and entries below cover only those entries.'
      : 'The run was stopped while the recording was still being checked, before any call was made.';
  // Inline style: the page's style sheet stays the same for every report.
  return (
    '<p class="interrupted" style="border:2px solid var(--bad);border-radius:8px;padding:8px 12px;margin:0 0 12px">' +
    `<strong style="color:var(--bad)">${headline}</strong> ${detail}</p>`
  );
}

function filtersSection(summary: ReplaySummary): string {
  const outcomeBoxes = OUTCOMES.map(
    (o) => `<label><input type="checkbox" name="outcome" value="${o}" checked> ${o}</label>`,
  ).join('');
  const kindBoxes = DIFF_KINDS.map(
    (k) => `<label><input type="checkbox" name="kind" value="${k}" checked> <span class="kind kind-${k}">${k}</span></label>`,
  ).join('');
  const methodOptions = Object.keys(summary.methods)
    .map((m) => `<option value="${escapeHtml(m)}">${escapeHtml(m)}</option>`)
    .join('');
  return (
    '<section aria-labelledby="filters-h" class="filters"><h2 id="filters-h">Filters</h2><form id="filters" onsubmit="return false">' +
    `<fieldset><legend>Outcome</legend>${outcomeBoxes}</fieldset>` +
    `<fieldset><legend>Difference kind (entries that differ)</legend>${kindBoxes}</fieldset>` +
    `<fieldset><legend>Call</legend><label>Method <select id="filter-method"><option value="">all</option>${methodOptions}</select></label> ` +
    '<label>URL contains <input type="search" id="filter-url" autocomplete="off"></label></fieldset>' +
    '</form><p id="shown" role="status" aria-live="polite"></p></section>'
  );
}

const STYLE = `
:root{color-scheme:light dark;--bg:#fff;--fg:#1b1f24;--muted:#59636e;--line:#d1d9e0;--panel:#f6f8fa;
--ok:#1a7f37;--bad:#cf222e;--skip:#9a6700;--err:#8250df;--focus:#0969da}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;--line:#3d444d;--panel:#151b23;
--ok:#3fb950;--bad:#f85149;--skip:#d29922;--err:#ab7df8;--focus:#4493f8}}
*{box-sizing:border-box}body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;background:var(--bg);color:var(--fg)}
header,main{max-width:1200px;margin:0 auto;padding:0 20px}header{padding-top:20px}h1{margin:0 0 4px;font-size:22px}
.meta{color:var(--muted);margin:0 0 12px}h2{font-size:17px;margin:24px 0 8px}h3{font-size:14px;margin:16px 0 6px}
code,pre{font:12.5px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}pre{margin:0;white-space:pre-wrap;word-break:break-word}
.totals{display:flex;flex-wrap:wrap;gap:10px;margin:0}.total{border:1px solid var(--line);border-radius:8px;padding:8px 14px;min-width:110px;background:var(--panel)}
.total dt{color:var(--muted);font-size:12px;text-transform:uppercase;letter-spacing:.04em}.total dd{margin:0;font-size:22px;font-weight:600}
.total-identical dd{color:var(--ok)}.total-different dd{color:var(--bad)}.total-skipped dd{color:var(--skip)}.total-errors dd{color:var(--err)}
table{border-collapse:collapse;width:100%}th,td{border-bottom:1px solid var(--line);padding:5px 8px;text-align:left;vertical-align:top}
.methods{margin-top:14px;max-width:700px}.methods td{text-align:right;font-variant-numeric:tabular-nums}caption{text-align:left;color:var(--muted);padding-bottom:4px}
.filters{position:sticky;top:0;background:var(--bg);border-bottom:1px solid var(--line);padding-bottom:6px;z-index:1}
fieldset{display:inline-block;border:1px solid var(--line);border-radius:8px;margin:0 8px 6px 0;padding:4px 10px}legend{color:var(--muted);font-size:12px}
label{margin-right:10px;white-space:nowrap}input,select{font:inherit}:focus-visible{outline:2px solid var(--focus);outline-offset:2px}
.entries{list-style:none;padding:0;margin:0}.entry{border:1px solid var(--line);border-radius:8px;margin:8px 0;background:var(--panel)}
.entry summary{cursor:pointer;padding:8px 10px;display:flex;gap:10px;align-items:baseline;flex-wrap:wrap}
.entry details[open] summary{border-bottom:1px solid var(--line)}.call{word-break:break-all}.index,.count,.status{color:var(--muted)}
.diffs{background:var(--bg)}.diffs th{font-size:12px;color:var(--muted)}.diffs td:nth-child(3),.diffs td:nth-child(4){width:36%}
.absent{color:var(--muted)}.note{margin:8px 10px;color:var(--muted)}.warn{color:var(--bad);font-weight:600}.rules .unmatched{color:var(--bad)}
.badge,.kind{display:inline-block;border-radius:10px;padding:0 8px;font-size:12px;font-weight:600;border:1px solid currentColor}
.outcome-identical{color:var(--ok)}.outcome-different{color:var(--bad)}.outcome-skipped{color:var(--skip)}.outcome-error{color:var(--err)}
.kind-type,.kind-status{color:var(--bad)}.kind-value,.kind-missing,.kind-extra{color:var(--err)}.kind-format,.kind-order{color:var(--skip)}
[hidden]{display:none!important}`;

// Filtering only toggles `hidden`; it never fetches, and with JavaScript off everything stays visible.
const SCRIPT = `
(function(){
  var form=document.getElementById('filters');var shown=document.getElementById('shown');
  var items=Array.prototype.slice.call(document.querySelectorAll('li.entry'));
  function checked(name){var s={};Array.prototype.forEach.call(form.querySelectorAll('input[name='+name+']'),function(i){if(i.checked)s[i.value]=true;});return s;}
  function apply(){
    var outcomes=checked('outcome'),kinds=checked('kind');
    var method=document.getElementById('filter-method').value;var text=document.getElementById('filter-url').value.toLowerCase();
    var visible=0;
    items.forEach(function(li){
      var ok=!!outcomes[li.dataset.outcome]&&(!method||li.dataset.method===method)&&(!text||li.dataset.url.indexOf(text)>=0);
      if(ok&&li.dataset.outcome==='different'){ok=li.dataset.kinds.split(' ').some(function(k){return kinds[k];});}
      li.hidden=!ok;if(ok)visible++;
      Array.prototype.forEach.call(li.querySelectorAll('tr[data-kind]'),function(tr){tr.hidden=!kinds[tr.dataset.kind];});
    });
    shown.textContent='Showing '+visible+' of '+items.length+' entries';
  }
  form.addEventListener('input',apply);form.addEventListener('change',apply);apply();
})();`;

export function renderHtmlReport(input: HtmlReportInput): string {
  const { summary, meta, entries, omittedEntries } = input;
  const omitted =
    omittedEntries > 0
      ? `<p class="note">${omittedEntries} entries are not on this page (identical ones first); the JSON report (--json) lists every entry.</p>`
      : '';
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
<header><h1>Replay report</h1><p class="meta"><code>${escapeHtml(meta.file)}</code> replayed against <code>${escapeHtml(meta.target)}</code>. Object key order is ignored; array order, types and spellings are not.</p>${interruptedBanner(summary, meta)}</header>
<main>
${summarySection(summary, meta)}
${filtersSection(summary)}
<section aria-labelledby="entries-h"><h2 id="entries-h">Entries</h2>${omitted}
<ol class="entries">${entries.map(entryItem).join('\n')}</ol>
</section>
</main>
<script>${SCRIPT}</script>
</body>
</html>
`;
}
