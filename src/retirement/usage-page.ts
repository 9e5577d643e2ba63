// The usage report (GET /usage) as one self-contained HTML page, for the retirement's watch step: every
// integration, most recently called first, with its calls per day over the last 90 days (an inline SVG bar
// chart with a title and a label per bar), its methods and call shapes, its error rate (the share of replies
// that were not 2xx, from `statuses`) and the payment codes other than 12 it got, the brownouts that would
// refuse it (the same forecast as `brownout --dry-run`, src/retirement/brownout-forecast.ts) and a link to its
// migration guide. Styles inline, no script, no external asset (a Content-Security-Policy forbids loading
// any); every value from the report is escaped, names and owners being operator text. The fields a report may
// lack (`name`, `daily`, `statuses`, `paymentCodes`, `shapes`) are shown when present and said to be absent
// otherwise. Pure: the report, the options and the moment are handed in.
import type { BrownoutWindow } from '../gateway/brownouts/brownout-schema.js';
import { PAYMENT_CODES } from '../payment/codes.js';
import { escapeHtml, selfContainedPage } from '../shared/html-page.js';
import { forecastBrownouts, type WindowForecast } from './brownout-forecast.js';
import { lastDays, usageEntries, type UsageEntry } from './usage-entries.js';
import { guideFileBase } from './guide-file-name.js';

/** The days the chart shows, ending with today (UTC). */
export const CHART_DAYS = 90;
/** The chart's drawing: one bar per day, the busiest day CHART_HEIGHT high. */
export const CHART_HEIGHT = 60;
export const BAR_WIDTH = 6;
const BAR_GAP = 1;

export interface UsagePageOptions {
  /** The brownouts file's windows; undefined: none given, no brownout section. */
  brownouts?: readonly BrownoutWindow[] | undefined;
  /** Where the guides are published (`https://docs.example.com/legacy-guides`); undefined: the file names
   * `migration-guide --all --format html --out DIR` writes, relative to the page. */
  guidesUrl?: string | undefined;
  /** Where the report came from, said in the page's head (e.g. the /usage URL). */
  source?: string | undefined;
}

const esc = escapeHtml;

/** What the page reads of one integration, beyond the entry the other retirement commands read. */
interface PageIntegration {
  entry: UsageEntry;
  firstSeen: string | undefined;
  owner: string | undefined;
  userAgents: string[];
  statuses: Array<[string, number]> | undefined;
  paymentCodes: Array<[string, number]> | undefined;
  shapes: Array<[string, number]> | undefined;
  guideFile: string;
}

const countOf = (value: unknown): number | undefined => (typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined);

/** `{ key: count }` as pairs, most first (then by key); undefined when the report does not carry it. */
function counts(value: unknown): Array<[string, number]> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  return Object.entries(value as Record<string, unknown>)
    .flatMap(([k, v]): Array<[string, number]> => {
      const n = countOf(v);
      return n === undefined ? [] : [[k, n]];
    })
    .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0));
}

/** The file names `migration-guide --all --format html` gives the integrations' guides, in the report's order. */
export function guideFileNames(entries: readonly Pick<UsageEntry, 'name' | 'fingerprint'>[]): string[] {
  const taken = new Set<string>();
  return entries.map((e) => `${guideFileBase(e, taken)}.html`);
}

function pageIntegrations(integrations: readonly unknown[]): PageIntegration[] {
  const entries = usageEntries(integrations);
  const raws = new Map(
    integrations.flatMap((raw) => {
      const fp = (raw as { fingerprint?: unknown } | null)?.fingerprint;
      return typeof fp === 'string' ? [[fp, raw as Record<string, unknown>] as const] : [];
    }),
  );
  const files = guideFileNames(entries);
  return entries
    .map((entry, k): PageIntegration => {
      const raw = raws.get(entry.fingerprint) ?? {};
      return {
        entry,
        firstSeen: typeof raw.firstSeen === 'string' ? raw.firstSeen : undefined,
        owner: typeof raw.owner === 'string' && raw.owner !== '' ? raw.owner : undefined,
        userAgents: Array.isArray(raw.userAgents) ? raw.userAgents.filter((u): u is string => typeof u === 'string') : [],
        statuses: counts(raw.statuses),
        paymentCodes: counts(raw.paymentCodes),
        shapes: counts(raw.shapes),
        guideFile: files[k]!,
      };
    })
    .sort((a, b) => b.entry.lastSeenMs - a.entry.lastSeenMs || (a.entry.fingerprint < b.entry.fingerprint ? -1 : 1));
}

const title = (i: PageIntegration): string => i.entry.name ?? `unnamed key ${i.entry.fingerprint.slice(0, 12)}`;
const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
const iso = (ms: number): string => new Date(ms).toISOString();

/** The bar heights of the chart, one per day of `days`: the busiest day CHART_HEIGHT, a day with calls at
 * least 1, a day without none. */
export function barHeights(perDay: readonly number[]): number[] {
  const max = Math.max(0, ...perDay);
  return perDay.map((n) => (n === 0 || max === 0 ? 0 : Math.max(1, Math.round((n * CHART_HEIGHT) / max))));
}

function chart(i: PageIntegration, now: number, id: string): string {
  const daily = i.entry.daily;
  if (daily === undefined) return '<p class="absent">No calls per day in the report (it counts no <code>daily</code>).</p>';
  const days = lastDays(now, CHART_DAYS);
  const byDay = new Map(daily.map((d) => [d.day, d.calls]));
  const perDay = days.map((d) => byDay.get(d) ?? 0);
  const heights = barHeights(perDay);
  const total = perDay.reduce((a, b) => a + b, 0);
  const width = CHART_DAYS * (BAR_WIDTH + BAR_GAP);
  const label = `${title(i)}: ${plural(total, 'call')} over the last ${CHART_DAYS} days, ${days[0]} to ${days.at(-1)}, busiest day ${Math.max(0, ...perDay)}`;
  const bars = days.map((day, k) => {
    const h = heights[k]!;
    return `<rect x="${k * (BAR_WIDTH + BAR_GAP)}" y="${CHART_HEIGHT - h}" width="${BAR_WIDTH}" height="${h}"><title>${day}: ${plural(perDay[k]!, 'call')}</title></rect>`;
  });
  return [
    `<svg class="chart" role="img" aria-labelledby="${id}-chart-title" viewBox="0 0 ${width} ${CHART_HEIGHT + 1}" width="${width}" height="${CHART_HEIGHT + 1}" xmlns="http://www.w3.org/2000/svg">`,
    `<title id="${id}-chart-title">${esc(label)}</title>`,
    `<line x1="0" y1="${CHART_HEIGHT + 0.5}" x2="${width}" y2="${CHART_HEIGHT + 0.5}" class="axis"/>`,
    ...bars,
    '</svg>',
    `<p class="axis-labels"><span>${days[0]}</span><span>${days.at(-1)}</span></p>`,
  ].join('\n');
}

function countTable(caption: string, header: string, rows: ReadonlyArray<readonly [string, number]>): string {
  const body = rows.map(([k, n]) => `<tr><td><code>${esc(k)}</code></td><td class="n">${n}</td></tr>`);
  return `<table>\n<caption>${esc(caption)}</caption>\n<thead><tr><th>${esc(header)}</th><th class="n">Calls</th></tr></thead>\n<tbody>\n${body.join('\n')}\n</tbody>\n</table>`;
}

const PAYMENT_NAMES = new Map<string, string>(Object.entries(PAYMENT_CODES).map(([name, code]) => [String(code), name]));

function errors(i: PageIntegration): string {
  const out: string[] = [];
  if (i.statuses === undefined) out.push('<p class="absent">No reply statuses in the report (it counts no <code>statuses</code>).</p>');
  else {
    const total = i.statuses.reduce((n, [, c]) => n + c, 0);
    const failed = i.statuses.filter(([s]) => !/^2\d\d$/.test(s)).reduce((n, [, c]) => n + c, 0);
    const rate = total === 0 ? 'no replies counted' : `${((failed * 100) / total).toFixed(1)}% not 2xx (${failed} of ${total})`;
    const list = i.statuses.map(([s, n]) => `<code>${esc(s)}</code> ${n}`).join(', ');
    out.push(`<p><strong class="rate">Error rate: ${rate}</strong>${list === '' ? '' : `; statuses: ${list}`}</p>`);
  }
  // No payment made (the report counts an empty `paymentCodes`): nothing to say of the codes.
  if (i.paymentCodes !== undefined && i.paymentCodes.length > 0) {
    const other = i.paymentCodes.filter(([code]) => code !== '12');
    const added = i.paymentCodes.find(([code]) => code === '12')?.[1] ?? 0;
    const named = other.map(([code, n]) => `<li><code>${esc(code)}</code> ${esc(PAYMENT_NAMES.get(code) ?? 'not a legacy code')}: ${n}</li>`);
    out.push(
      other.length === 0
        ? `<p>Payment codes: every payment answered 12 (${added}).</p>`
        : `<p>Payment codes other than 12 (paymentAdded, ${added}):</p>\n<ul class="codes">\n${named.join('\n')}\n</ul>`,
    );
  }
  return out.join('\n');
}

function brownouts(forecasts: readonly WindowForecast[] | undefined): string {
  if (forecasts === undefined) return '';
  const hits = forecasts.filter((f) => f.hits.length > 0);
  if (hits.length === 0) return '<p class="brownouts">No brownout window would refuse it (judged from its calls of the last 7 days).</p>';
  const items = hits.map((f) => {
    const h = f.hits[0]!;
    const open = f.openNow ? `open now, until ${iso(f.openNow.end)}; ` : '';
    const next = f.next.length === 0 ? 'no opening to come' : `next ${f.next.map((o) => iso(o.start)).join(', ')}${f.coming > f.next.length ? ` (${f.coming} openings to come)` : ''}`;
    const per = h.perOpening === undefined ? '' : `, ~${h.perOpening} per opening`;
    const methods = h.methods.map(([m, n]) => `${esc(m)} ${n}`).join(', ');
    return `<li><strong>${esc(f.window.name)}</strong>: ${open}${next}; it would refuse ${plural(h.calls, 'call')} of the last 7 days${per} (${methods})</li>`;
  });
  return `<div class="brownouts"><p>Brownouts that would refuse it:</p>\n<ul>\n${items.join('\n')}\n</ul></div>`;
}

function guideHref(file: string, base: string | undefined): string {
  const name = encodeURIComponent(file);
  return base === undefined ? name : `${base.replace(/\/+$/, '')}/${name}`;
}

function section(i: PageIntegration, k: number, now: number, opts: UsagePageOptions): string {
  const id = `i${k + 1}`;
  const e = i.entry;
  const facts = [
    ['Fingerprint', `<code>${esc(e.fingerprint)}</code>`],
    ...(i.owner !== undefined ? [['Owner', esc(i.owner)]] : []),
    ['Calls', String(e.calls)],
    ['Last call', esc(e.lastSeen)],
    ...(i.firstSeen !== undefined ? [['First call', esc(i.firstSeen)]] : []),
    ...(i.userAgents.length > 0 ? [['User agents', esc(i.userAgents.join('; '))]] : []),
  ];
  const methods = Object.entries(e.methods).sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1));
  const forecasts = opts.brownouts === undefined ? undefined : forecastBrownouts(opts.brownouts, [e], now);
  return [
    `<section class="integration" id="${id}" aria-labelledby="${id}-h">`,
    `<h2 id="${id}-h">${esc(title(i))}</h2>`,
    `<dl>${facts.map(([dt, dd]) => `<dt>${dt}</dt><dd>${dd}</dd>`).join('')}</dl>`,
    chart(i, now, id),
    '<div class="tables">',
    countTable('Methods', 'Method', methods),
    i.shapes === undefined ? '<p class="absent">No call shapes in the report (it counts no <code>shapes</code>).</p>' : countTable('Call shapes', 'Shape', i.shapes),
    '</div>',
    errors(i),
    brownouts(forecasts),
    `<p class="guide"><a href="${esc(guideHref(i.guideFile, opts.guidesUrl))}">Migration guide for ${esc(title(i))}</a></p>`,
    '</section>',
  ]
    .filter((part) => part !== '')
    .join('\n');
}

const STYLE = `
body { font: 15px/1.5 system-ui, sans-serif; margin: 0; color: #1d2330; background: #fff; }
main { max-width: 72rem; margin: 0 auto; padding: 1.5rem; }
h1 { font-size: 1.6rem; } h2 { margin-top: 2.5rem; border-bottom: 1px solid #d5dae3; padding-bottom: .3rem; }
code { font: 13px ui-monospace, monospace; background: #f1f3f7; padding: 0 .2em; border-radius: 3px; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .1rem 1rem; } dt { color: #5a6275; } dd { margin: 0; }
.chart { display: block; max-width: 100%; height: auto; } .chart rect { fill: #3b6fd8; } .chart .axis { stroke: #9aa3b5; stroke-width: 1; }
.axis-labels { display: flex; justify-content: space-between; max-width: 630px; margin: 0; color: #5a6275; font-size: 12px; }
.tables { display: flex; gap: 1.5rem; flex-wrap: wrap; align-items: flex-start; }
table { border-collapse: collapse; margin: .8rem 0; } th, td { border: 1px solid #d5dae3; padding: .3rem .5rem; text-align: left; vertical-align: top; }
th { background: #f7f8fa; } caption { text-align: left; font-weight: 600; } .n { text-align: right; }
.absent { color: #5a6275; font-style: italic; }
.brownouts { border-left: 4px solid #e0a800; background: #fffaf0; padding: .6rem .9rem; margin: .8rem 0; }
`;

/** The page for a usage report's integrations (the report's `integrations`, as it came), at `now`. */
export function renderUsagePage(integrations: readonly unknown[], opts: UsagePageOptions, now: number): string {
  const list = pageIntegrations(integrations);
  const from = opts.source === undefined ? '' : ` from ${esc(opts.source)}`;
  const head = `<p>${plural(list.length, 'integration')} in the usage report${from} at ${iso(now)}, most recently called first.</p>`;
  return selfContainedPage({
    title: 'Who still calls the legacy API',
    style: STYLE,
    dataImages: true,
    main: [
      '<h1>Who still calls the legacy API</h1>',
      head,
      ...(list.length === 0 ? ['<p>No legacy calls counted.</p>'] : list.map((i, k) => section(i, k, now, opts))),
    ],
  });
}
