/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The page's only script, inline: the filters (they toggle `hidden`, nothing else), the group a link
// chose (`#group-<id>`), the links to an entry (`#entry-<index>`) or to a difference's row (`#e<index>-d<n>`)
// which reveal and open what they point at, and the curl lines' copy buttons.
// It must never fetch anything (the page's Content-Security-Policy forbids it anyway); with JavaScript off
// every entry stays shown, folds and entries open natively, and links still jump.
// Browser code, type-checked against the DOM (the references above) and linted like the rest: the
// functions below run in the reader's browser, never in the replay. PAGE_SCRIPT carries their source
// (Function.prototype.toString) into the page, so each may use only the DOM, its parameters and the other
// functions of PAGE_FUNCTIONS: no import, no module constant.

/** What the script keeps between events: the page's controls and entries, and the filters last applied. */
interface PageState {
  form: HTMLFormElement;
  shown: HTMLElement;
  groupBox: HTMLElement;
  groupName: HTMLElement;
  items: HTMLElement[];
  /** The group a link chose (its id), or ''. */
  activeGroup: string;
  /** The filters last applied, as JSON. */
  last: string;
}

/** The filters' values at one moment. */
interface Filters {
  outcomes: Record<string, boolean>;
  kinds: Record<string, boolean>;
  method: string;
  text: string;
  group: string;
}

function elementById(id: string): HTMLElement {
  const element = document.getElementById(id);
  if (element === null) throw new Error(`the report has no #${id}`);
  return element;
}

function textOf(parent: Element, selector: string): string {
  return parent.querySelector(selector)?.textContent ?? '';
}

/** The values of the checked boxes named `name`. */
function checkedValues(form: HTMLFormElement, name: string): Record<string, boolean> {
  const values: Record<string, boolean> = {};
  form.querySelectorAll<HTMLInputElement>('input[name="' + name + '"]').forEach((input) => {
    if (input.checked) values[input.value] = true;
  });
  return values;
}

/** The group as its row in the groups table names it: method, path pattern and kind. */
function groupLabel(id: string): string {
  const row = document.querySelector('tr.group[data-group="' + id + '"]');
  if (!row) return '#' + id;
  return textOf(row, '.g-method') + ' ' + textOf(row, '.g-path') + ' ' + textOf(row, '.kind');
}

function entryShown(li: HTMLElement, filters: Filters): boolean {
  const d = li.dataset;
  let ok =
    !!filters.outcomes[d.outcome ?? ''] &&
    (!filters.method || d.method === filters.method) &&
    (!filters.text || (d.url ?? '').indexOf(filters.text) >= 0);
  if (ok && d.kinds) ok = d.kinds.split(' ').some((k) => filters.kinds[k]);
  if (ok && filters.group) ok = (' ' + d.groups + ' ').indexOf(' ' + filters.group + ' ') >= 0;
  return ok;
}

/** In a differing entry: the differences of the kinds shown, and the rows of the group chosen marked. */
function showEntryParts(li: HTMLElement, filters: Filters): void {
  li.querySelectorAll<HTMLElement>('tr[data-kind]').forEach((tr) => {
    const hidden = !filters.kinds[tr.dataset.kind ?? ''];
    if (tr.hidden !== hidden) tr.hidden = hidden;
  });
  li.querySelectorAll<HTMLElement>('[data-group]').forEach((el) => {
    el.classList.toggle('in-group', !!filters.group && el.dataset.group === filters.group);
  });
}

function applyFilters(page: PageState): void {
  const filters: Filters = {
    outcomes: checkedValues(page.form, 'outcome'),
    kinds: checkedValues(page.form, 'kind'),
    method: (elementById('filter-method') as HTMLSelectElement).value,
    text: (elementById('filter-url') as HTMLInputElement).value.toLowerCase(),
    group: page.activeGroup,
  };
  // A checkbox sends both input and change: the second finds nothing to do.
  const state = JSON.stringify([filters.outcomes, filters.kinds, filters.method, filters.text, filters.group]);
  if (state === page.last) return;
  page.last = state;
  let visible = 0;
  for (const li of page.items) {
    const ok = entryShown(li, filters);
    if (li.hidden !== !ok) li.hidden = !ok;
    if (ok) visible++;
    if (li.dataset.kinds) showEntryParts(li, filters);
  }
  document.querySelectorAll<HTMLElement>('tr.group').forEach((tr) => {
    tr.classList.toggle('active', tr.dataset.group === page.activeGroup);
  });
  page.shown.textContent = 'Showing ' + visible + ' of ' + page.items.length + ' entries';
  if (page.groupBox.hidden !== !page.activeGroup) {
    page.groupBox.hidden = !page.activeGroup;
    keepClearOfFilters(page);
  }
  page.groupName.textContent = page.activeGroup ? groupLabel(page.activeGroup) : '';
}

// Links and scrolling land below the sticky filter bar, whatever its height at this width. Measured only
// when that height may change: a measure lays out the whole page.
function keepClearOfFilters(page: PageState): void {
  document.documentElement.style.scrollPaddingTop = (page.form.parentElement?.offsetHeight ?? 0) + 8 + 'px';
}

function showGroup(page: PageState, id: string): void {
  page.activeGroup = id;
  applyFilters(page);
  elementById('entries-h').scrollIntoView({ block: 'start' });
}

/** Shows the entry `target` is in (clearing the filters if they hide it), opens it and its fold, scrolls to it. */
function reveal(page: PageState, target: HTMLElement): void {
  const li = target.closest<HTMLElement>('li.entry');
  if (!li) return;
  if (li.hidden) {
    page.activeGroup = '';
    page.form.reset();
    page.last = '';
    applyFilters(page);
  }
  const details = li.querySelector('details');
  if (details) details.open = true;
  const fold = target.closest<HTMLDetailsElement>('details.fold');
  if (fold) fold.open = true;
  target.scrollIntoView({ block: target === li ? 'start' : 'center' });
}

function route(page: PageState): void {
  const hash = location.hash.slice(1);
  const group = /^group-(\d+)$/.exec(hash);
  if (group) {
    showGroup(page, group[1] ?? '');
    return;
  }
  const target = hash ? document.getElementById(hash) : null;
  if (target) reveal(page, target);
}

function selectText(pre: HTMLElement): void {
  const range = document.createRange();
  range.selectNodeContents(pre);
  const selection = window.getSelection();
  selection?.removeAllRanges();
  selection?.addRange(range);
}

function copied(button: HTMLButtonElement, ok: boolean): void {
  button.textContent = ok ? 'Copied' : 'Selected: copy it';
  setTimeout(() => {
    button.textContent = 'Copy';
  }, 1500);
}

/** Copies the curl line beside the button; where the clipboard is out of reach, selects it instead. */
function copyCurl(button: HTMLButtonElement): void {
  const pre = button.parentElement?.querySelector('pre');
  if (!pre) return;
  if (navigator.clipboard && navigator.clipboard.writeText) {
    navigator.clipboard.writeText(pre.textContent ?? '').then(
      () => copied(button, true),
      () => {
        selectText(pre);
        copied(button, false);
      },
    );
  } else {
    selectText(pre);
    copied(button, false);
  }
}

function onClick(page: PageState, ev: MouseEvent): void {
  const t = ev.target;
  if (!(t instanceof Element)) return;
  const link = t.closest('a[href^="#group-"]');
  // The same link twice makes no hashchange: apply it here too.
  if (link) {
    showGroup(page, (link.getAttribute('href') ?? '').slice(7));
    return;
  }
  const button = t.closest<HTMLButtonElement>('button.copy');
  if (button) copyCurl(button);
}

function startPage(): void {
  const form = document.getElementById('filters') as HTMLFormElement | null;
  if (!form) return;
  const page: PageState = {
    form,
    shown: elementById('shown'),
    groupBox: elementById('group-filter'),
    groupName: elementById('group-name'),
    items: Array.from(document.querySelectorAll<HTMLElement>('li.entry')),
    activeGroup: '',
    last: '',
  };
  form.addEventListener('input', () => applyFilters(page));
  form.addEventListener('change', () => applyFilters(page));
  elementById('group-clear').addEventListener('click', () => {
    page.activeGroup = '';
    applyFilters(page);
  });
  document.addEventListener('click', (ev) => onClick(page, ev));
  window.addEventListener('hashchange', () => route(page));
  window.addEventListener('resize', () => keepClearOfFilters(page));
  applyFilters(page);
  keepClearOfFilters(page);
  route(page);
}

/** Every function of the script; startPage runs it. */
const PAGE_FUNCTIONS: readonly ((...args: never[]) => unknown)[] = [
  elementById,
  textOf,
  checkedValues,
  groupLabel,
  entryShown,
  showEntryParts,
  applyFilters,
  keepClearOfFilters,
  showGroup,
  reveal,
  route,
  selectText,
  copied,
  copyCurl,
  onClick,
  startPage,
];

/** The script as the page carries it: the functions' compiled source in one strict scope, then startPage(). */
export const PAGE_SCRIPT = `
(function () {
'use strict';
${PAGE_FUNCTIONS.map((fn) => fn.toString()).join('\n')}
${startPage.name}();
})();`;
