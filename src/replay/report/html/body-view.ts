// The side-by-side view of a differing entry's two replies: recorded on the left, gateway's on the right,
// one row per line, the rows that show a difference highlighted (each linked from the entry's table of
// differences and tagged with its group), and every run of unchanged lines folded into a native <details>
// that opens from the keyboard and without JavaScript.
// Pure: builds a string from redacted entries; every text in it is escaped.
import { parseJsonExact } from '../../../shared/json-exact.js';
import { MAX_REPORT_BODY_CHARS, type ReportBody } from '../body.js';
import { bodyRows, bodyValueOf, type BodyRow, type BodyValue, type SideLine } from './body-rows.js';
import { MAX_PAGE_BODY_CHARS, type PageEntry } from './entry-selection.js';
import { escapeHtml, escapeText, plural, sizeText } from './html-text.js';

/** Unchanged lines kept visible before and after a change. */
export const FOLD_CONTEXT = 2;
/** Shorter runs of unchanged lines stay visible: a fold would save nothing. */
export const MIN_FOLD = 4;

/** The anchor of a difference's row: `e12-d3` (entry 12, its difference 3). */
export const diffAnchor = (entryIndex: number, diffIndex: number): string => `e${entryIndex}-d${diffIndex}`;

function sideCell(side: 'l' | 'r', line: SideLine | undefined): string {
  if (line === undefined) return `<pre class="${side} no"></pre>`;
  const depth = line.depth > 0 ? ` style="--d:${Math.min(line.depth, 40)}"` : '';
  return `<pre class="${side}"${depth}>${escapeText(line.text)}</pre>`;
}

interface RowContext {
  entryIndex: number;
  diffs: ReadonlyArray<{ path: string; kind: string; cause?: string }>;
  groupIds: ReadonlyArray<number | undefined>;
}

function rowHtml(row: BodyRow, ctx: RowContext): string {
  const classes = ['ln', row.mark === 'changed' ? 'chg' : row.mark === 'context' ? 'ctx' : ''];
  let attrs = '';
  if (row.diff !== undefined) {
    const d = ctx.diffs[row.diff];
    const group = ctx.groupIds[row.diff];
    if (d?.cause !== undefined) classes.push(`cause-${escapeHtml(d.cause)}`);
    attrs += ` id="${diffAnchor(ctx.entryIndex, row.diff)}"`;
    if (group !== undefined) attrs += ` data-group="${group}"`;
    if (d !== undefined) attrs += ` title="${escapeHtml(`${d.path}: ${d.kind}`)}"`;
  }
  return `<div class="${classes.join(' ').trim()}"${attrs}>${sideCell('l', row.left)}${sideCell('r', row.right)}</div>`;
}

/** Which rows stay visible: every row that is not `same`, and FOLD_CONTEXT rows around each changed one. */
function visibleRows(rows: readonly BodyRow[]): boolean[] {
  const visible = rows.map((r) => r.mark !== 'same');
  rows.forEach((r, i) => {
    if (r.mark !== 'changed') return;
    for (let j = Math.max(0, i - FOLD_CONTEXT); j <= Math.min(rows.length - 1, i + FOLD_CONTEXT); j++) visible[j] = true;
  });
  return visible;
}

/**
 * A run of unchanged rows, folded: each side as one block of lines (indented with spaces), which keeps a
 * long reply's page a few times its text rather than a few elements per line.
 */
function foldHtml(rows: readonly BodyRow[], label: string): string {
  const side = (pick: (r: BodyRow) => SideLine | undefined): string =>
    escapeText(rows.map((r) => { const line = pick(r); return line === undefined ? '' : '  '.repeat(line.depth) + line.text; }).join('\n'));
  return `<details class="fold"><summary>${label}</summary><div class="ln"><pre class="l">${side((r) => r.left)}</pre><pre class="r">${side((r) => r.right)}</pre></div></details>`;
}

/** The rows, with each run of at least MIN_FOLD hidden rows folded. */
export function foldedRowsHtml(rows: readonly BodyRow[], ctx: RowContext): string {
  const visible = visibleRows(rows);
  let html = '';
  let i = 0;
  while (i < rows.length) {
    let end = i;
    while (end < rows.length && !visible[end]) end++;
    if (end - i >= MIN_FOLD) {
      const label = end - i === rows.length ? `${plural(end - i, 'line')}, the same on both sides` : `${plural(end - i, 'unchanged line')}`;
      html += foldHtml(rows.slice(i, end), label);
      i = end;
    } else if (end > i) {
      html += rows.slice(i, end).map((r) => rowHtml(r, ctx)).join('');
      i = end;
    } else {
      html += rowHtml(rows[i] as BodyRow, ctx);
      i++;
    }
  }
  return html;
}

function parsed(body: ReportBody): BodyValue {
  try {
    return bodyValueOf(body, parseJsonExact);
  } catch {
    // Not JSON after all (never expected: the runner keeps JSON as written): show it as text.
    return body.kind === 'json' ? { kind: 'text', text: body.text } : { kind: 'none' };
  }
}

function bodyNote(side: string, body: ReportBody): string {
  if (body.kind === 'omitted') {
    return `<p class="note">The ${side} (${sizeText(body.chars)}) is larger than ${sizeText(MAX_REPORT_BODY_CHARS)}: it is not kept in either report; its differences are listed above.</p>`;
  }
  if (body.kind === 'empty') return `<p class="note">The ${side} has an empty body.</p>`;
  return '';
}

export function bodiesHtml(entry: PageEntry, groupIds: ReadonlyArray<number | undefined>): string {
  if (entry.bodiesLeftOut === true) {
    return `<p class="note">Bodies left out: this page keeps ${sizeText(MAX_PAGE_BODY_CHARS)} of bodies and they were spent on earlier entries; the JSON report has them.</p>`;
  }
  const { bodies } = entry;
  if (bodies === undefined) return '';
  const rows = bodyRows(parsed(bodies.recorded), parsed(bodies.gateway), entry.diffs);
  const status = entry.status;
  const head =
    '<div class="sbs-head"><div>Recorded reply' +
    (status ? ` <span class="muted">HTTP ${status.expected}</span>` : '') +
    '</div><div>Gateway reply' +
    (status ? ` <span class="muted">HTTP ${status.actual}</span>` : '') +
    '</div></div>';
  const notes = bodyNote('recorded reply', bodies.recorded) + bodyNote("gateway's reply", bodies.gateway);
  const ctx: RowContext = { entryIndex: entry.index, diffs: entry.diffs, groupIds };
  return `${notes}<div class="sbs" aria-label="Recorded and gateway replies, side by side">${head}${foldedRowsHtml(rows, ctx)}</div>`;
}
