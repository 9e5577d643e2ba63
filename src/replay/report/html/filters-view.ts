// The filter bar above the entries: outcome, difference kind, legacy method, text in the URL, and the group
// a link chose (shown with a way back to every entry). Native form controls, usable from the keyboard;
// without JavaScript they do nothing and every entry stays shown.
// Pure: builds a string; every text in it is escaped.
import { escapeHtml } from './html-text.js';

export interface FilterChoices {
  outcomes: readonly string[];
  kinds: readonly string[];
  methods: readonly string[];
}

export function filtersHtml(choices: FilterChoices): string {
  const outcomeBoxes = choices.outcomes
    .map((o) => `<label><input type="checkbox" name="outcome" value="${escapeHtml(o)}" checked> ${escapeHtml(o)}</label>`)
    .join('');
  const kindBoxes = choices.kinds
    .map((k) => `<label><input type="checkbox" name="kind" value="${escapeHtml(k)}" checked> <span class="kind kind-${escapeHtml(k)}">${escapeHtml(k)}</span></label>`)
    .join('');
  const methodOptions = choices.methods.map((m) => `<option value="${escapeHtml(m)}">${escapeHtml(m)}</option>`).join('');
  return (
    '<section aria-labelledby="filters-h" class="filters"><h2 id="filters-h" class="sr-only">Filters</h2><form id="filters" onsubmit="return false">' +
    `<fieldset><legend>Outcome</legend>${outcomeBoxes}</fieldset>` +
    `<fieldset><legend>Difference kind</legend>${kindBoxes}</fieldset>` +
    `<fieldset><legend>Call</legend><label>Method <select id="filter-method"><option value="">all</option>${methodOptions}</select></label> ` +
    '<label>URL contains <input type="search" id="filter-url" autocomplete="off"></label></fieldset>' +
    '</form><p class="shown-line"><span id="shown" role="status" aria-live="polite"></span>' +
    '<span id="group-filter" hidden> · group <strong id="group-name"></strong> <a href="#entries-h" id="group-clear">show every entry</a></span></p></section>'
  );
}
