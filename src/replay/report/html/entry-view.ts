// One entry of the HTML report: a line that says what happened (outcome, call, status, number of
// differences, the entry's own link), and, opened, the request (method, URL, body, copy-as-curl), the table
// of differences (each linked to its row in the bodies) and both whole replies side by side. The entry's
// number is its `index` in the JSON report, and its link is `#entry-<index>`.
// Pure: builds a string from redacted entries; every text in it is escaped. Outcomes, kinds and causes
// it does not know are shown by name, so new ones need no change here.
import { SKIP_REASON_TEXT, type SkipReason } from '../../run/safety.js';
import type { ReplayDifference } from '../replay-difference.js';
import { bodiesHtml, diffAnchor } from './body-view.js';
import { curlLine } from './curl-line.js';
import type { PageEntry } from './entry-selection.js';
import { escapeHtml, plural, sizeText, valueText } from './html-text.js';
import type { JsonValue } from '../../../shared/json-exact.js';
import { entrySeverity } from '../severity.js';

/** Differences listed per entry; the JSON report has all. */
export const MAX_DIFFS_PER_ENTRY = 200;

/** The id of an entry's element, and so its link: `entry-12`. */
export const entryAnchor = (index: number): string => `entry-${index}`;

/** A value cell of the differences table. */
function valueCell(value: JsonValue | undefined): string {
  if (value === undefined) return '<td class="absent"><em>absent</em></td>';
  return `<td><pre>${escapeHtml(valueText(value))}</pre></td>`;
}

/** `replay` -> a tag saying earlier replayed writes caused the difference. */
function causeTag(cause: string | undefined): string {
  if (cause === undefined) return '';
  const text = cause === 'replay' ? 'caused by earlier replayed writes' : `cause: ${cause}`;
  return ` <span class="tag cause-tag">${escapeHtml(text)}</span>`;
}

function diffRow(entry: PageEntry, d: ReplayDifference, i: number, anchors: ReadonlyMap<string, number>, group: number | undefined): string {
  const target = anchors.get(d.path);
  const path = `<code>${escapeHtml(d.path)}</code>`;
  const pathCell = target !== undefined ? `<a href="#${diffAnchor(entry.index, target)}">${path}</a>` : path;
  const groupAttr = group !== undefined ? ` data-group="${group}"` : '';
  const cause = d.cause !== undefined ? ` data-cause="${escapeHtml(d.cause)}"` : '';
  return (
    `<tr data-kind="${escapeHtml(d.kind)}"${groupAttr}${cause}><td>${pathCell}${causeTag(d.cause)}</td>` +
    `<td><span class="kind kind-${escapeHtml(d.kind)}">${escapeHtml(d.kind)}</span></td>` +
    valueCell(d.expected) +
    valueCell(d.actual) +
    '</tr>'
  );
}

/** The first difference of each path that has a row in the bodies: where the table's links point. */
function rowAnchors(entry: PageEntry): Map<string, number> {
  const anchors = new Map<string, number>();
  if (entry.bodies === undefined) return anchors;
  entry.diffs.forEach((d, i) => {
    if (d.path.startsWith('$') && !anchors.has(d.path)) anchors.set(d.path, i);
  });
  return anchors;
}

function diffsTable(entry: PageEntry, groupIds: ReadonlyArray<number | undefined>): string {
  const shown = entry.diffs.slice(0, MAX_DIFFS_PER_ENTRY);
  const anchors = rowAnchors(entry);
  const more = entry.diffs.length - shown.length;
  return (
    '<table class="diffs"><thead><tr><th scope="col">Path</th><th scope="col">Kind</th>' +
    '<th scope="col">Recorded</th><th scope="col">Gateway</th></tr></thead><tbody>' +
    shown.map((d, i) => diffRow(entry, d, i, anchors, groupIds[i])).join('') +
    '</tbody></table>' +
    (more > 0 ? `<p class="note">${more} more differences in the JSON report.</p>` : '')
  );
}

function requestHtml(entry: PageEntry, curlBase: string | undefined): string {
  const { request } = entry;
  let body = '';
  if (request?.body !== undefined) {
    body = `<pre class="req-body">${escapeHtml(request.body)}</pre>`;
  } else if (request?.bodyChars !== undefined) {
    body = `<p class="note">Body of ${sizeText(request.bodyChars)} not kept.</p>`;
  }
  const type = request?.contentType !== undefined ? ` <span class="muted">${escapeHtml(request.contentType)}</span>` : '';
  return (
    '<div class="request"><h4>Request</h4>' +
    `<p class="req-line"><code>${escapeHtml(entry.method)} ${escapeHtml(entry.url)}</code>${type}</p>${body}` +
    '<div class="curl"><pre><code>' +
    escapeHtml(curlLine(entry.method, entry.url, request, curlBase)) +
    '</code></pre><button type="button" class="copy" title="Copy the curl line (it reads the key from $LEGACY_API_KEY)">Copy</button></div></div>'
  );
}

/** What an entry that was not compared says instead of differences. */
function outcomeNote(entry: PageEntry): string {
  const reason = entry.reason === undefined ? undefined : (SKIP_REASON_TEXT[entry.reason as SkipReason] ?? String(entry.reason));
  switch (entry.outcome) {
    case 'skipped':
      return `<p class="note">Skipped: ${escapeHtml(reason ?? 'not replayed')}</p>`;
    case 'error':
      return `<p class="note">Error: ${escapeHtml(entry.error ?? 'unknown')}</p>`;
    case 'identical':
      return '<p class="note">The gateway answered the same status, values and types.</p>';
    default:
      return reason !== undefined ? `<p class="note">${escapeHtml(entry.outcome)}: ${escapeHtml(reason)}</p>` : '';
  }
}

function entryDetail(entry: PageEntry, groupIds: ReadonlyArray<number | undefined>, curlBase: string | undefined): string {
  const request = entry.request !== undefined || entry.outcome === 'different' ? requestHtml(entry, curlBase) : '';
  if (entry.diffs.length === 0) return `<div class="entry-body">${outcomeNote(entry)}${request}</div>`;
  return `<div class="entry-body">${request}<h4>Differences</h4>${diffsTable(entry, groupIds)}${bodiesHtml(entry, groupIds)}</div>`;
}

/** `groupIds[i]` is the group of the entry's difference i; `curlBase`, where its curl line sends the call
 * (the run's target; undefined: the recorded URL). */
export function entryHtml(entry: PageEntry, groupIds: ReadonlyArray<number | undefined>, curlBase?: string): string {
  const kinds = [...new Set(entry.diffs.map((d) => d.kind))].join(' ');
  const groups = [...new Set(groupIds.filter((g) => g !== undefined))].join(' ');
  const status = entry.status ? ` <span class="status">HTTP ${entry.status.expected} → ${entry.status.actual}</span>` : '';
  const count = entry.diffs.length > 0 ? ` <span class="count">${plural(entry.diffs.length, 'difference')}</span>` : '';
  const open = entry.outcome !== 'identical' && entry.outcome !== 'skipped' ? ' open' : '';
  const outcome = escapeHtml(entry.outcome);
  const severity = entrySeverity(entry);
  const severityAttr = severity !== undefined ? ` data-severity="${severity}"` : '';
  const severityBadge =
    severity !== undefined ? `<span class="badge sev sev-${severity}" title="Severity: the highest of its differences">${severity}</span> ` : '';
  return (
    `<li class="entry" id="${entryAnchor(entry.index)}" data-outcome="${outcome}"${severityAttr} data-kinds="${escapeHtml(kinds)}" data-groups="${groups}" ` +
    `data-method="${escapeHtml(entry.legacyMethod)}" data-url="${escapeHtml(entry.url.toLowerCase())}">` +
    `<details${open}><summary>` +
    `<span class="badge outcome-${outcome}">${outcome}</span> ${severityBadge}` +
    `<code class="call">${escapeHtml(entry.method)} ${escapeHtml(entry.url)}</code>${count}${status}` +
    `<a class="index" href="#${entryAnchor(entry.index)}" title="Link to entry ${entry.index} (its index in the JSON report)">#${entry.index}</a>` +
    `</summary>${entryDetail(entry, groupIds, curlBase)}</details></li>`
  );
}
