// The pure report builders: the JSON report is valid JSON with exact numbers, the summary table lines
// up, and the HTML page escapes every recorded or replayed value (a reply is untrusted text).
import { describe, expect, it } from 'vitest';
import { NumberLiteral } from '../../src/shared/json-exact.js';
import type { ReportEntry } from '../../src/replay/report/entry.js';
import { redactReportEntry } from '../../src/replay/report/entry.js';
import { escapeHtml } from '../../src/replay/report/html/html-text.js';
import { renderHtmlReport } from '../../src/replay/report/html/page.js';
import { buildJsonReport } from '../../src/replay/report/json.js';
import { progressLine } from '../../src/replay/run/progress.js';
import { SecretScrubber } from '../../src/shared/redact.js';
import { renderSummaryTable, SummaryBuilder } from '../../src/replay/report/summary.js';
import { verdictOf } from '../../src/replay/report/verdict.js';

const entries: ReportEntry[] = [
  { index: 0, method: 'GET', url: 'https://old/api/staff/1', legacyMethod: 'staff', outcome: 'identical', diffs: [], status: { expected: 200, actual: 200 } },
  {
    index: 1,
    method: 'GET',
    url: 'https://old/api/services/0/2?a="><script>alert(1)</script>',
    legacyMethod: 'services',
    outcome: 'different',
    diffs: [
      { path: '$.response[0].service_cost', kind: 'format', expected: '45.5', actual: '45.50' },
      { path: '$.response[0].code', kind: 'format', expected: new NumberLiteral('12.0'), actual: 12 },
      { path: '$.response[0].notes', kind: 'value', expected: '</pre><img src=x onerror=alert(1)>', actual: 'ok' },
      { path: '$.response[0].gone', kind: 'missing', expected: null },
    ],
    status: { expected: 200, actual: 200 },
  },
  { index: 2, method: 'POST', url: 'https://old/api/payment', legacyMethod: 'payment', outcome: 'skipped', diffs: [], reason: 'payment' },
  { index: 3, method: 'GET', url: 'https://old/api/staff/2', legacyMethod: 'staff', outcome: 'error', diffs: [], error: 'ECONNREFUSED: connect' },
];

function summaryOf(list: ReportEntry[]) {
  const b = new SummaryBuilder();
  for (const e of list) b.add(e);
  return b.result();
}

describe('reports', () => {
  it('JSON: the documented shape, valid JSON, numbers as spelled, absent sides left out', () => {
    const text = buildJsonReport(summaryOf(entries), { file: 'x.har', target: 'gw', rules: [{ rule: 'ignore[0] $.a', matchedEntries: 0, origin: 'file' }], interrupted: false }, entries);
    const report = JSON.parse(text) as { summary: Record<string, unknown>; interrupted: boolean; rules: unknown[]; entries: Array<Record<string, unknown>> };
    expect(Object.keys(report)).toEqual(['summary', 'interrupted', 'file', 'target', 'rules', 'entries']);
    expect(report.interrupted).toBe(false);
    expect(text).toContain('},"interrupted":false,"file":"x.har","target":"gw","rules":[');
    expect(report.summary).toMatchObject({ total: 4, identical: 1, different: 1, skipped: 1, errors: 1, skippedBy: { payment: 1 }, kinds: { format: 2, value: 1, missing: 1 } });
    expect(Object.keys(report.summary).slice(0, 5)).toEqual(['total', 'identical', 'different', 'skipped', 'errors']);
    expect(report.entries[1]).toMatchObject({ method: 'GET', outcome: 'different' });
    expect(Object.keys(report.entries[1] ?? {}).slice(0, 4)).toEqual(['method', 'url', 'outcome', 'diffs']);
    expect(text).toContain('"expected":12.0,"actual":12');
    expect(text).toContain('{"path":"$.response[0].gone","kind":"missing","expected":null}');
    expect(report.rules).toEqual([{ rule: 'ignore[0] $.a', matchedEntries: 0, origin: 'file' }]);
  });

  describe('entries that are not gateway differences', () => {
    const apart: ReportEntry[] = [
      ...entries,
      { index: 4, method: 'POST', url: 'https://old/api/payment', legacyMethod: 'payment', outcome: 'not-comparable', diffs: [], reason: 'redacted in the recording: token' },
      {
        index: 5,
        method: 'GET',
        url: 'https://old/api/clients/0/50',
        legacyMethod: 'clients',
        outcome: 'different',
        diffs: [{ path: '$.total', kind: 'value', expected: '50', actual: '51', cause: 'replay' }],
        status: { expected: 200, actual: 200 },
      },
      {
        index: 6,
        method: 'GET',
        url: 'https://old/api/clients/0/50',
        legacyMethod: 'clients',
        outcome: 'different',
        diffs: [
          { path: '$.total', kind: 'value', expected: '50', actual: '51', cause: 'replay' },
          { path: '$.response[0]', kind: 'key-order', expected: ['id', 'email'], actual: ['email', 'id'] },
        ],
        status: { expected: 200, actual: 200 },
      },
    ];

    it('counts them apart, in the JSON report with each difference\'s cause', () => {
      const summary = summaryOf(apart);
      expect(summary).toMatchObject({ total: 7, identical: 1, different: 2, skipped: 1, errors: 1, notComparable: 1, causedByReplay: 1 });
      expect(summary.kinds).toMatchObject({ format: 2, value: 1, missing: 1, 'key-order': 1 });
      expect(summary.methods.clients).toEqual({ total: 2, identical: 0, different: 1, skipped: 0, errors: 0, notComparable: 0, causedByReplay: 1 });
      const text = buildJsonReport(summary, { file: 'x', target: 'gw', rules: [], interrupted: false }, apart);
      const report = JSON.parse(text) as { summary: Record<string, unknown>; entries: Array<Record<string, unknown>> };
      expect(report.summary).toMatchObject({ notComparable: 1, causedByReplay: 1 });
      expect(report.entries[4]).toMatchObject({ outcome: 'not-comparable', reason: 'redacted in the recording: token', diffs: [] });
      expect(text).toContain('{"path":"$.total","kind":"value","expected":"50","actual":"51","cause":"replay"}');
      expect(text).toContain('{"path":"$.response[0]","kind":"key-order","expected":["id","email"],"actual":["email","id"]}');
    });

    it('adds their columns to the table only when a run has them, and leaves them out of the verdict', () => {
      const summary = summaryOf(apart);
      const table = renderSummaryTable(summary);
      expect(table.split('\n').slice(0, 8)).toEqual([
        'method    total  identical  different  skipped  errors  not-comparable  by-replay',
        '--------  -----  ---------  ---------  -------  ------  --------------  ---------',
        'clients       2          0          1        0       0               0          1',
        'payment       2          0          0        1       0               1          0',
        'services      1          0          1        0       0               0          0',
        'staff         2          1          0        0       1               0          0',
        '--------  -----  ---------  ---------  -------  ------  --------------  ---------',
        'all           7          1          2        1       1               1          1',
      ]);
      expect(table).toContain('not comparable: 1 entries never sent: the recording cannot be replayed as made (a secret kept only as "[REDACTED]", a call refused for its key): each entry\'s reason says which');
      expect(table).toContain('by replay: 1 entries differ only where an earlier replayed write changed what they read');
      expect(table).toContain('differences by kind: format 2, value 1, missing 1, key-order 1');
      const verdict = verdictOf({ summary, rules: [], interrupted: false, entriesInFile: 7 }, 3, {});
      expect(verdict.closing).toBe('3 of 7 entries differ or failed (allowed: 3) (not counted: 1 by the replay, 1 not comparable): exit 0\n');
      expect(verdictOf({ summary, rules: [], interrupted: false, entriesInFile: 7 }, 2, {}).exitCode).toBe(1);
    });

    it('warns about an operator\'s rule that matched nothing, never about a default one', () => {
      const rules = [
        { rule: 'default pattern[0] $.response (payment)', matchedEntries: 0, origin: 'default' as const },
        { rule: 'ignore[0] $.gone', matchedEntries: 0, origin: 'file' as const },
      ];
      const verdict = verdictOf({ summary: summaryOf(entries), rules, interrupted: false, entriesInFile: 4 }, 0, {});
      expect(verdict.warnings).toBe('warning: rule ignore[0] $.gone matched nothing: remove or fix it\n');
    });
  });

  it('JSON: an interrupted run says so, with the number of entries in the file, before the rest', () => {
    const meta = { file: 'x.har', target: 'gw', rules: [], interrupted: true, entriesInFile: 40 };
    const text = buildJsonReport(summaryOf(entries), meta, entries);
    const report = JSON.parse(text) as { interrupted: boolean; entriesInFile: number; entries: unknown[] };
    expect(Object.keys(report)).toEqual(['summary', 'interrupted', 'entriesInFile', 'file', 'target', 'rules', 'entries']);
    expect(report).toMatchObject({ interrupted: true, entriesInFile: 40 });
    expect(report.entries).toHaveLength(4);
    // Apart from those two keys, the same bytes as a complete run's report.
    expect(text.replace('"interrupted":true,"entriesInFile":40', '"interrupted":false')).toBe(
      buildJsonReport(summaryOf(entries), { ...meta, interrupted: false }, entries),
    );
  });

  it('summary table: per method, then skips and kinds', () => {
    const table = renderSummaryTable(summaryOf(entries));
    expect(table).toBe(
      [
        'method    total  identical  different  skipped  errors',
        '--------  -----  ---------  ---------  -------  ------',
        'payment       1          0          0        1       0',
        'services      1          0          1        0       0',
        'staff         2          1          0        0       1',
        '--------  -----  ---------  ---------  -------  ------',
        'all           4          1          1        1       1',
        '',
        'skipped:',
        '       1  payment: replayed only with --include-writes against the sandbox or a loopback target (or with --allow-production-writes)',
        '',
        'differences by kind: format 2, value 1, missing 1',
        '',
      ].join('\n'),
    );
  });

  it('HTML: self-contained, escaped, with the counts and filters', () => {
    const html = renderHtmlReport({ summary: summaryOf(entries), meta: { file: 'x.har', target: 'gw', rules: [], interrupted: false }, entries, omittedEntries: 0 });
    expect(html).not.toContain('Interrupted');
    expect(html).not.toContain('<script>alert(1)</script>');
    expect(html).not.toContain('<img src=x');
    expect(html).toContain(escapeHtml('</pre><img src=x onerror=alert(1)>'));
    expect(html).toContain(`default-src 'none'`);
    expect(html).not.toMatch(/\b(src|href)=["']?(https?:)?\/\//);
    expect(html).toContain('<dd id="count-different" data-count="1">1</dd>');
    expect(html).toContain('12.0');
    expect((html.match(/<li class="entry"/g) ?? []).length).toBe(4);
  });

  it('HTML: an interrupted run says how many entries of the file were replayed in place of the verdict, and nothing else changes', () => {
    const input = { summary: summaryOf(entries), entries, omittedEntries: 0 };
    const complete = renderHtmlReport({ ...input, meta: { file: 'x.har', target: 'gw', rules: [], interrupted: false } });
    const interrupted = renderHtmlReport({ ...input, meta: { file: 'x.har', target: 'gw', rules: [], interrupted: true, entriesInFile: 40 } });
    const verdict = /<div class="verdict [^"]*">.*?<\/div>/;
    expect(complete.match(verdict)?.[0]).toContain('<p class="headline">2 of 3 replayed calls differ or failed.</p>');
    expect(interrupted.match(verdict)?.[0]).toMatch(/^<div class="verdict verdict-partial interrupted"><p class="headline">Interrupted: 4 of 40 entries replayed\.<\/p><p>[^<]*only those entries\.<\/p><\/div>$/);
    expect(interrupted).not.toContain('replayed calls differ');
    expect(interrupted.replace(verdict, '')).toBe(complete.replace(verdict, ''));
    // Stopped during the first pass: no count of the file to give.
    const early = renderHtmlReport({ summary: new SummaryBuilder().result(), entries: [], omittedEntries: 0, meta: { file: 'x.har', target: 'gw', rules: [], interrupted: true } });
    expect(early).toContain('Interrupted: 0 entries replayed.');
    expect(early).toContain('before any call was made');
  });

  it('HTML: the verdict says whether the run passes --max-differences, or that nothing differed, or that nothing was replayed', () => {
    const meta = { file: 'x.har', target: 'gw', rules: [], interrupted: false };
    const headline = (html: string): string | undefined => /<p class="headline">([^<]*)<\/p>/.exec(html)?.[1];
    const all = renderHtmlReport({ summary: summaryOf(entries), meta, entries, omittedEntries: 0, maxDifferences: 2 });
    expect(headline(all)).toBe('2 of 3 replayed calls differ or failed.');
    expect(all).toContain('so the run passes (exit 0)');
    expect(renderHtmlReport({ summary: summaryOf(entries), meta, entries, omittedEntries: 0, maxDifferences: 1 })).toContain('so the run fails (exit 1)');
    const same = [entries[0] as ReportEntry, entries[2] as ReportEntry];
    expect(headline(renderHtmlReport({ summary: summaryOf(same), meta, entries: same, omittedEntries: 0 }))).toBe('The one replayed call answered as recorded.');
    const none = [entries[2] as ReportEntry];
    expect(headline(renderHtmlReport({ summary: summaryOf(none), meta, entries: none, omittedEntries: 0 }))).toBe('No call was replayed.');
  });

  it('redactReportEntry removes secrets from URLs, values and error messages', () => {
    const scrubber = new SecretScrubber().add('live-key-123456');
    const safe = redactReportEntry(
      {
        index: 0,
        method: 'GET',
        url: 'https://old/api/x?api_key=live-key-123456',
        legacyMethod: 'x',
        outcome: 'different',
        diffs: [{ path: '$.token', kind: 'value', expected: 'tok_1', actual: 'tok_2' }, { path: '$.note', kind: 'value', expected: 'live-key-123456', actual: 'x' }],
        error: 'failed GET /api/x?api_key=live-key-123456',
      },
      scrubber,
    );
    expect(JSON.stringify(safe)).not.toMatch(/live-key-123456|tok_1|tok_2/);
  });

  it('progress line: bar, counts, rate, time left', () => {
    const line = progressLine({ done: 50, total: 100, identical: 40, different: 5, skipped: 4, errors: 1 }, 10, 120);
    expect(line.replace(/^\[█+░+\]/, '[bar]')).toBe('[bar]  50% 50/100  =40 ≠5 skip 4 err 1  5/s  0:10 left');
  });
});
