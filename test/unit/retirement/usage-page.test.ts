// The usage page's renderer at a fixed moment, for a fixed report: the integrations most recently called first,
// one chart of 90 bars each (heights scaled to the busiest day), the methods, call shapes, error rate and payment
// codes other than 12, the brownouts that would refuse each, the guide links, and every value from the report
// escaped (a name with <script> stays text). A report without the newer fields says they are absent.
import { describe, expect, it } from 'vitest';
import type { BrownoutWindow } from '../../../src/gateway/brownouts/brownout-schema.js';
import { barHeights, CHART_DAYS, CHART_HEIGHT, guideFileNames, renderUsagePage } from '../../../src/retirement/usage-page.js';

const NOW = Date.parse('2026-12-02T09:00:00Z');

const report = [
  {
    name: 'shop-widget',
    fingerprint: 'aaaaaaaaaaaa1111',
    calls: 4,
    methods: { client: 4 },
    firstSeen: '2026-09-01T10:00:00.000Z',
    lastSeen: '2026-11-20T10:00:00.000Z',
    userAgents: ['shop-widget/3'],
  },
  {
    name: 'crm <script>alert(1)</script>',
    owner: 'Team "A" & co',
    fingerprint: 'bbbbbbbbbbbb2222',
    calls: 46,
    methods: { clients: 40, payment: 6 },
    firstSeen: '2026-10-01T10:00:00.000Z',
    lastSeen: '2026-12-02T08:00:00.000Z',
    userAgents: ['crm/1.0'],
    statuses: { '200': 40, '404': 4, '500': 2 },
    paymentCodes: { '12': 3, '7': 2, '11': 1 },
    shapes: { 'clients/{start}/{limit}': 40, 'payment': 6 },
    daily: { '2026-12-02': 10, '2026-12-01': 30, '2026-11-30': 6, '2026-09-01': 99 },
  },
  { name: null, fingerprint: 'cccccccccccc3333', calls: 1, methods: { services: 1 }, lastSeen: '2026-11-30T00:00:00.000Z', userAgents: [], daily: { '2026-11-30': 1 } },
];

const window: BrownoutWindow = {
  name: 'first-friday',
  start: Date.parse('2026-12-04T14:00:00Z'),
  end: Date.parse('2026-12-04T15:00:00Z'),
  integrations: undefined,
  except: new Set(['shop-widget']),
  methods: new Set(['clients']),
  payments: false,
  repeat: undefined,
};

const sections = (html: string): string[] => html.split('<section ').slice(1);

describe('renderUsagePage', () => {
  const html = renderUsagePage(report, { brownouts: [window] }, NOW);

  it('lists the integrations most recently called first, each a section with its heading', () => {
    expect([...html.matchAll(/<h2 id="(i\d)-h">([^<]*)</g)].map((m) => [m[1], m[2]])).toEqual([
      ['i1', 'crm &lt;script&gt;alert(1)&lt;/script&gt;'],
      ['i2', 'unnamed key cccccccccccc'],
      ['i3', 'shop-widget'],
    ]);
    expect(html).toContain('<p>3 integrations in the usage report at 2026-12-02T09:00:00.000Z, most recently called first.</p>');
  });

  it('escapes what the report says: no markup from a name or an owner', () => {
    expect(html).not.toContain('<script');
    expect(html).toContain('<dt>Owner</dt><dd>Team &quot;A&quot; &amp; co</dd>');
    expect(html).toContain('<title id="i1-chart-title">crm &lt;script&gt;alert(1)&lt;/script&gt;: 46 calls over the last 90 days, 2026-09-04 to 2026-12-02, busiest day 30</title>');
    expect(html).toContain(`content="default-src 'none'; style-src 'unsafe-inline'; img-src data:"`);
  });

  it('draws 90 bars per chart, the busiest day of the last 90 CHART_HEIGHT high', () => {
    const [crm, unnamed, shop] = sections(html);
    const bars = (s: string) => [...s.matchAll(/<rect x="(\d+)" y="(\d+)" width="6" height="(\d+)"><title>([^<]*)<\/title><\/rect>/g)];
    const crmBars = bars(crm!);
    expect(crmBars).toHaveLength(CHART_DAYS);
    expect(crmBars.slice(-3).map((m) => [m[1], m[2], m[3], m[4]])).toEqual([
      ['609', '48', '12', '2026-11-30: 6 calls'],
      ['616', '0', '60', '2026-12-01: 30 calls'],
      ['623', '40', '20', '2026-12-02: 10 calls'],
    ]);
    // 2026-09-01 is before the 90 days: not drawn, not the scale.
    expect(crmBars.slice(0, -3).every((m) => m[3] === '0')).toBe(true);
    expect(crm).toContain('role="img" aria-labelledby="i1-chart-title"');
    expect(bars(unnamed!)).toHaveLength(CHART_DAYS);
    expect(bars(unnamed!)[87]![3]).toBe(String(CHART_HEIGHT));
    expect(shop).not.toContain('<svg');
    expect(shop).toContain('No calls per day in the report');
  });

  it('shows the methods, call shapes, error rate and the payment codes other than 12', () => {
    const [crm, , shop] = sections(html);
    expect(crm).toContain('<tr><td><code>clients</code></td><td class="n">40</td></tr>\n<tr><td><code>payment</code></td><td class="n">6</td></tr>');
    expect(crm).toContain('<caption>Call shapes</caption>');
    expect(crm).toContain('<tr><td><code>clients/{start}/{limit}</code></td><td class="n">40</td></tr>');
    expect(crm).toContain('<strong class="rate">Error rate: 13.0% not 2xx (6 of 46)</strong>; statuses: <code>200</code> 40, <code>404</code> 4, <code>500</code> 2');
    expect(crm).toContain('<p>Payment codes other than 12 (paymentAdded, 3):</p>\n<ul class="codes">\n<li><code>7</code> discountInvalid: 2</li>\n<li><code>11</code> cardDeclined: 1</li>\n</ul>');
    expect(shop).toContain('No reply statuses in the report');
    expect(shop).toContain('No call shapes in the report');
  });

  it('names the brownouts that would refuse each integration, by the forecast of the dry run', () => {
    const [crm, unnamed, shop] = sections(html);
    expect(crm).toContain('<li><strong>first-friday</strong>: next 2026-12-04T14:00:00.000Z; it would refuse 40 calls of the last 7 days, ~0 per opening (clients 40)</li>');
    expect(unnamed).toContain('No brownout window would refuse it');
    expect(shop).toContain('No brownout window would refuse it');
    expect(renderUsagePage(report, {}, NOW)).not.toContain('class="brownouts"');
  });

  it('links each guide: the file migration-guide --all writes, or under --guides-url', () => {
    expect([...html.matchAll(/<a href="([^"]*)">/g)].map((m) => m[1])).toEqual(['crm-script-alert-1-script-.html', 'cccccccccccc.html', 'shop-widget.html']);
    const published = renderUsagePage(report, { guidesUrl: 'https://docs.example.com/guides/' }, NOW);
    expect([...published.matchAll(/<a href="([^"]*)">/g)].map((m) => m[1])[2]).toBe('https://docs.example.com/guides/shop-widget.html');
  });

  it('scales bars to the busiest day, at least 1 for a day with calls', () => {
    expect(barHeights([0, 1, 300, 150])).toEqual([0, 1, 60, 30]);
    expect(barHeights([0, 0])).toEqual([0, 0]);
    expect(guideFileNames([{ name: 'a b', fingerprint: 'f1' }, { name: 'a-b', fingerprint: 'f2' }])).toEqual(['a-b.html', 'a-b-f2.html']);
  });

  it('says nothing of payment codes for an integration that made no payment, and rates an empty count as none', () => {
    const readOnly = { ...report[0], statuses: {}, paymentCodes: {}, shapes: { 'client?email': 4 } };
    const page = renderUsagePage([readOnly], {}, NOW);
    expect(page).not.toContain('Payment codes');
    expect(page).toContain('<strong class="rate">Error rate: no replies counted</strong>');
    expect(page).toContain('<tr><td><code>client?email</code></td><td class="n">4</td></tr>');
    expect(renderUsagePage([{ ...report[0], paymentCodes: { '12': 5 } }], {}, NOW)).toContain('<p>Payment codes: every payment answered 12 (5).</p>');
  });

  it('says when the report counts no integration', () => {
    expect(renderUsagePage([], {}, NOW)).toContain('<p>No legacy calls counted.</p>');
  });
});
