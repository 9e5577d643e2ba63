// What a run with --propose-mappings adds to the page: the proposed mapping edits with their evidence
// (records that agree, of those examined, and links to the entries they came from), and the fields that
// differed with no consistent source, with the values seen. An edit is shown by its fields, so a new
// kind of edit needs no change here.
// Pure: builds a string; every text in it is escaped.
import { stringifyExact, type JsonValue } from '../../../shared/json-exact.js';
import type { Proposal, Unexplained } from '../../propose/proposal.js';
import type { ReportMeta } from '../json.js';
import { entryAnchor } from './entry-view.js';
import { escapeHtml, plural } from './html-text.js';

/** Entry links shown per row; the JSON report lists all. */
const MAX_ENTRY_LINKS = 12;

function entryLinks(entries: readonly number[]): string {
  const links = entries.slice(0, MAX_ENTRY_LINKS).map((i) => `<a href="#${entryAnchor(i)}">#${i}</a>`);
  if (entries.length > MAX_ENTRY_LINKS) links.push(`<span class="muted">+${entries.length - MAX_ENTRY_LINKS}</span>`);
  return links.join(' ');
}

function editText(edit: Proposal['edit']): string {
  const fields = Object.entries(edit)
    .filter(([k, v]) => k !== 'kind' && v !== undefined)
    .map(([k, v]) => `${k} ${typeof v === 'string' ? v : stringifyExact(v as JsonValue)}`);
  return `<span class="tag">${escapeHtml(edit.kind)}</span> ${escapeHtml(fields.join(', '))}`;
}

function proposalsHtml(proposals: readonly Proposal[]): string {
  const rows = proposals
    .map(
      (p) =>
        `<tr><th scope="row"><code>${escapeHtml(`${p.record}.${p.legacyField}`)}</code></th><td>${editText(p.edit)}</td>` +
        `<td class="num">${p.evidence.agreeing} <span class="muted">of ${p.evidence.of} records</span></td>` +
        `<td>${escapeHtml(p.methods.join(', '))}</td><td>${entryLinks(p.evidence.entries)}</td></tr>`,
    )
    .join('');
  return (
    `<h3>${plural(proposals.length, 'proposed mapping edit')}</h3><table class="extras proposals"><thead><tr><th scope="col">Field</th><th scope="col">Edit</th>` +
    `<th scope="col">Evidence</th><th scope="col">Methods</th><th scope="col">Entries</th></tr></thead><tbody>${rows}</tbody></table>`
  );
}

const shown = (v: JsonValue | undefined): string => (v === undefined ? '<em class="muted">absent</em>' : `<code>${escapeHtml(stringifyExact(v))}</code>`);

function unexplainedHtml(unexplained: readonly Unexplained[]): string {
  const rows = unexplained
    .map((u) => {
      const values = u.values
        .slice(0, 5)
        .map((v) => `<li><a href="#${entryAnchor(v.entry)}">#${v.entry}</a> ${shown(v.recorded)} → ${shown(v.gateway)}</li>`)
        .join('');
      return (
        `<tr><th scope="row"><code>${escapeHtml(`${u.record}.${u.legacyField}`)}</code></th><td>${escapeHtml(u.methods.join(', '))}</td>` +
        `<td>${escapeHtml(u.reason)}</td><td><ul class="seen">${values}</ul></td></tr>`
      );
    })
    .join('');
  return (
    `<h3>${plural(unexplained.length, 'unexplained field')}</h3><table class="extras unexplained"><thead><tr><th scope="col">Field</th><th scope="col">Methods</th>` +
    `<th scope="col">Why no edit</th><th scope="col">Values seen (recorded → gateway)</th></tr></thead><tbody>${rows}</tbody></table>`
  );
}

/** Only for a run with --propose-mappings (the report then has `proposals`). */
export function extrasHtml(extras: Pick<ReportMeta, 'proposals' | 'unexplained'>): string {
  const proposals = extras.proposals ?? [];
  const unexplained = extras.unexplained ?? [];
  if (extras.proposals === undefined && extras.unexplained === undefined) return '';
  return (
    '<section aria-labelledby="proposal-h" class="proposal"><h2 id="proposal-h">Mapping proposal</h2>' +
    (proposals.length > 0 ? proposalsHtml(proposals) : '<p class="note">No edit to propose.</p>') +
    (unexplained.length > 0 ? unexplainedHtml(unexplained) : '') +
    '</section>'
  );
}
