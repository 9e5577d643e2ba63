// The difference groups of a run on the HTML page: method, path pattern and kind, in how many entries each
// occurs and what share of the method's compared calls that is, the first recorded and gateway values,
// and a link that filters the entries to the group (`#group-<id>`). The largest groups are on the first
// screen, the others one click away; groups caused by earlier replayed writes are listed apart, since they
// are not the gateway's.
// Pure: builds a string; every text in it is escaped.
import { groupKey, groupKeyOf, type DifferenceGroup } from '../difference-groups.js';
import type { ReportEntry } from '../entry.js';
import type { OutcomeCounts } from '../summary.js';
import { escapeHtml, percent, plural } from './html-text.js';

/** Groups shown before "all groups" is opened. */
export const FIRST_GROUPS = 8;

/** Groups numbered from 1 in the order given (largest first); the number is the filter's link. */
export class GroupIndex {
  private readonly ids = new Map<string, number>();

  constructor(readonly groups: readonly DifferenceGroup[]) {
    groups.forEach((g, i) => this.ids.set(groupKey(g), i + 1));
  }

  /** The group id of each of the entry's differences. */
  idsOf(entry: ReportEntry): Array<number | undefined> {
    return entry.diffs.map((d) => this.ids.get(groupKeyOf(entry.legacyMethod, d, (k) => this.ids.has(k))));
  }

  idOf(group: DifferenceGroup): number {
    return this.ids.get(groupKey(group)) ?? 0;
  }
}

/** Calls of a method whose reply was compared (those that differ only by the replay too): the share's whole. */
export function comparedCalls(counts: OutcomeCounts | undefined): number {
  return counts === undefined ? 0 : counts.identical + counts.different + counts.causedByReplay;
}

function exampleCell(g: DifferenceGroup): string {
  const side = (text: string | undefined): string =>
    text === undefined ? '<em class="muted">absent</em>' : `<code title="${escapeHtml(text)}">${escapeHtml(text)}</code>`;
  return `<td class="example"><div>${side(g.expected)}<span class="arrow" aria-label="becomes">→</span>${side(g.actual)}</div></td>`;
}

function groupRow(g: DifferenceGroup, id: number, methods: Readonly<Record<string, OutcomeCounts>>): string {
  const whole = comparedCalls(methods[g.method]);
  const share = percent(g.entries, whole);
  const width = whole > 0 ? Math.min(100, Math.round((g.entries / whole) * 100)) : 0;
  return (
    `<tr class="group" data-group="${id}" data-entries="${g.entries}" data-calls="${whole}">` +
    `<td class="g-method">${escapeHtml(g.method)}</td>` +
    `<td class="g-path"><code>${escapeHtml(g.path)}</code></td>` +
    `<td><span class="kind kind-${escapeHtml(g.kind)}">${escapeHtml(g.kind)}</span></td>` +
    `<td class="g-share" title="${g.entries} of the ${whole} compared ${escapeHtml(g.method)} calls">` +
    `<span class="bar" aria-hidden="true"><span style="width:${width}%"></span></span>` +
    `<span class="g-count">${g.entries}</span> <span class="muted">of ${whole}</span> <span class="g-pct">${share}</span></td>` +
    `<td class="num">${g.differences}</td>` +
    exampleCell(g) +
    `<td><a class="show-group" href="#group-${id}">Show<span class="sr-only"> the ${plural(g.entries, 'entry', 'entries')}</span></a></td></tr>`
  );
}

function groupTable(groups: readonly DifferenceGroup[], index: GroupIndex, methods: Readonly<Record<string, OutcomeCounts>>, caption: string, caused = false): string {
  const head =
    `<table class="groups-table${caused ? ' caused' : ''}"><caption>${caption}</caption>` +
    '<colgroup><col class="c-method"><col class="c-path"><col class="c-kind"><col class="c-share"><col class="c-diffs"><col class="c-example"><col class="c-show"></colgroup>' +
    `<thead><tr><th scope="col">Method</th><th scope="col">Path</th><th scope="col">Kind</th>` +
    '<th scope="col">Calls with it <span class="muted">(of compared)</span></th><th scope="col" class="num">Differences</th>' +
    '<th scope="col">First seen: recorded → gateway</th><th scope="col"><span class="sr-only">Filter</span></th></tr></thead>';
  const rows = (list: readonly DifferenceGroup[]): string => list.map((g) => groupRow(g, index.idOf(g), methods)).join('');
  const first = groups.slice(0, FIRST_GROUPS);
  const rest = groups.slice(FIRST_GROUPS);
  const table = `${head}<tbody>${rows(first)}</tbody></table>`;
  if (rest.length === 0) return table;
  return (
    table +
    `<details class="more-groups"><summary>${plural(rest.length, 'more group')}</summary>` +
    `${head}<tbody>${rows(rest)}</tbody></table></details>`
  );
}

export function groupsHtml(index: GroupIndex, methods: Readonly<Record<string, OutcomeCounts>>): string {
  const gateway = index.groups.filter((g) => g.cause === undefined);
  const caused = index.groups.filter((g) => g.cause !== undefined);
  if (gateway.length === 0 && caused.length === 0) return '';
  let html =
    '<section aria-labelledby="groups-h" class="groups"><h2 id="groups-h">Largest differences</h2>' +
    '<p class="lead">Differences grouped across entries by legacy method, path (list positions as <code>[*]</code>, as a rules file writes them) and kind. ' +
    'A group\'s link shows only its entries.</p>';
  if (gateway.length > 0) html += groupTable(gateway, index, methods, `${plural(gateway.length, 'group')} of gateway differences`);
  if (caused.length > 0) {
    html +=
      '<h3 id="caused-h">Caused by earlier replayed writes</h3><p class="lead">These differences come from calls the replay itself made earlier ' +
      '(a write changed what a later read returns); they are not the gateway\'s.</p>' +
      groupTable(caused, index, methods, plural(caused.length, 'group'), true);
  }
  return `${html}</section>`;
}
