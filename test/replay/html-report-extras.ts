// A report built by hand with what newer runs add and this run cannot produce yet: a `key-order`
// difference, a difference caused by earlier replayed writes (`cause: "replay"`), a `not-comparable` entry
// with its reason, the summary's `notComparable` and `causedByReplay`, and a mapping proposal with its
// unexplained fields. The HTML page must show them from the data alone.
import type { ReportEntry } from '../../src/replay/report/entry.js';
import { renderHtmlReport } from '../../src/replay/report/html/page.js';
import type { ReplaySummary } from '../../src/replay/report/summary.js';

const json = (value: unknown) => ({ kind: 'json' as const, text: JSON.stringify(value) });

const ENTRIES = [
  {
    index: 0,
    method: 'GET',
    url: 'https://old.example.com/api/clients/0/2',
    legacyMethod: 'clients',
    outcome: 'different',
    diffs: [
      { path: '$.response[0]', kind: 'key-order', expected: ['id', 'first_name'], actual: ['first_name', 'id'] },
      { path: '$.response[1].first_name', kind: 'value', expected: 'ADA', actual: 'Ada' },
    ],
    status: { expected: 200, actual: 200 },
    request: { apiKeyHeader: true },
    bodies: {
      recorded: json({ status: 'success', response: [{ id: '1', first_name: 'Ann' }, { id: '2', first_name: 'ADA' }] }),
      gateway: json({ status: 'success', response: [{ first_name: 'Ann', id: '1' }, { id: '2', first_name: 'Ada' }] }),
    },
  },
  {
    index: 1,
    method: 'GET',
    url: 'https://old.example.com/api/clients/2/1',
    legacyMethod: 'clients',
    outcome: 'different',
    diffs: [{ path: '$.response[0].balance', kind: 'value', expected: '5.00', actual: '7.50', cause: 'replay' }],
    status: { expected: 200, actual: 200 },
    request: {},
    bodies: {
      recorded: json({ status: 'success', response: [{ id: '3', balance: '5.00' }] }),
      gateway: json({ status: 'success', response: [{ id: '3', balance: '7.50' }] }),
    },
  },
  {
    index: 2,
    method: 'POST',
    url: 'https://old.example.com/api/payment',
    legacyMethod: 'payment',
    outcome: 'not-comparable',
    reason: 'the recording holds the payment with its card token redacted',
    diffs: [],
  },
  { index: 3, method: 'GET', url: 'https://old.example.com/api/clients/3/1', legacyMethod: 'clients', outcome: 'identical', diffs: [], status: { expected: 200, actual: 200 } },
] as unknown as ReportEntry[];

/** A rename as the mapping proposal writes it: the page shows every field of an edit. */
const RENAME = { kind: 'rename' as const, from: 'first_name', to: 'given_name' };

const counts = (total: number, identical: number, different: number, notComparable = 0, causedByReplay = 0) => ({
  total,
  identical,
  different,
  skipped: 0,
  errors: 0,
  notComparable,
  causedByReplay,
});

/** As SummaryBuilder counts: entry 1 differs only by the replay, so it is not `different`. */
const SUMMARY: ReplaySummary = {
  ...counts(4, 1, 1, 1, 1),
  skippedBy: { write: 0, payment: 0, 'not-api': 0, 'no-recorded-reply': 0 },
  kinds: { type: 0, format: 0, value: 1, missing: 0, extra: 0, order: 0, status: 0, 'key-order': 1 },
  bySeverity: { money: 0, status: 0, shape: 0, value: 1, order: 0 },
  methods: { clients: counts(3, 1, 1, 0, 1), payment: counts(1, 0, 0, 1, 0) },
};

export function extrasReport(): string {
  return renderHtmlReport({
    summary: SUMMARY,
    entries: ENTRIES,
    omittedEntries: 0,
    meta: {
      file: 'traffic.jsonl',
      target: 'in-process gateway + embedded sandbox',
      rules: [],
      interrupted: false,
      proposals: [
        {
          record: 'client',
          legacyField: 'first_name',
          edit: RENAME,
          evidence: { agreeing: 2, of: 2, entries: [0] },
          methods: ['client', 'clients'],
        },
      ],
      unexplained: [
        { record: 'client', legacyField: 'balance', methods: ['clients'], values: [{ entry: 1, recorded: '5.00', gateway: '7.50' }], reason: 'no v1 field holds the values' },
      ],
    },
  });
}
