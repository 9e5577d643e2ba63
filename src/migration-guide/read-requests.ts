// The v1 request(s) that replace one legacy read method, from its mapping: the legacy call beside the v1
// call, the rules that turn one into the other (paging, the sort of a listing read whole, the time zone
// beside a reply), and a pair of example calls. One function per mapping kind but lookups, which have
// lookup-requests.ts. Pure.
import type { DetailMapping, ListMapping, Mapping, SortedListMapping, SortKey, StaticMapping, TimezoneSpec } from '../mapping/schema.js';
import { code, type Inline, type TableRow, type Text } from './document.js';
import { legacyGet, v1Get } from './example-calls.js';
import { V1_PAGE_LIMIT, V1_PATH_PREFIX } from './v1-conventions.js';

/** What replaces a legacy method: the calls side by side, the rules, the examples (legacy, then v1). */
export interface Replacement {
  /** The columns of `calls`. */
  header: string[];
  calls: TableRow[];
  rules: Text[];
  /** Each pair is legacy call line(s), then v1 call line(s); comments start with `#`. */
  examples: Array<{ legacy: string[]; v1: string[] }>;
}

type Query = Array<[string, string]>;

const CALL_COLUMNS = ['Legacy call', 'v1 call'];

/** The mapping's fixed v1 query parameters, sent on every call. */
export const fixedQuery = (m: { source: { query?: Record<string, string> | undefined } }): Query => Object.entries(m.source.query ?? {});

const spelledQuery = (query: Query): string => query.map(([k, v]) => `${k}=${v}`).join('&');

function fixedQueryRule(query: Query): Text[] {
  return query.length === 0 ? [] : [['The gateway also sent ', code(spelledQuery(query)), ' on every v1 call: keep it.']];
}

function timezoneRule(spec: TimezoneSpec | undefined): Text[] {
  if (!spec) return [];
  return [
    ['The legacy reply carried ', code('timezone'), ' before ', code('response'), ': the first record\'s ', code(spec.from), ", else the account's time zone the gateway was configured with, else ", code(spec.fallback), '. In v1 each record carries its own ', code(spec.from), '.'],
  ];
}

/** `limit` of a legacy page: its default and maximum against v1's. */
function limitRule(paging: { default: number; max: number }): Text {
  const text: Inline[] = [code('limit'), ` (default ${paging.default}, at most ${paging.max}: a larger one was cut to ${paging.max}) stays `, code('limit'), '. '];
  if (paging.default !== V1_PAGE_LIMIT.default) text.push(`Send it always: v1's default is ${V1_PAGE_LIMIT.default}, not ${paging.default}. `);
  text.push(`v1 takes 1 to ${V1_PAGE_LIMIT.max} and answers 400 `, code('invalid_request'), ' to any other limit instead of cutting it.');
  return text;
}

const startRule: Text = [code('start'), ' (default 0) becomes ', code('offset'), ': both count the records skipped.'];

function listReplacement(m: ListMapping): Replacement {
  const fixed = fixedQuery(m);
  const path = `${V1_PATH_PREFIX}/${m.source.resource}`;
  return {
    header: CALL_COLUMNS,
    calls: [{ cells: [[code(`GET /api/${m.method}/{start}/{limit}`)], [code(`GET ${path}?${spelledQuery([...fixed, ['offset', '{start}'], ['limit', '{limit}']])}`)]] }],
    rules: [
      startRule,
      limitRule(m.paging),
      ['One v1 call per legacy call. ', code('total'), " is v1's ", code('total'), '; to read on, add ', code('limit'), ' to ', code('offset'), ' while ', code('has_more'), ' is true.'],
      ...fixedQueryRule(fixed),
      ...timezoneRule(m.timezone),
    ],
    examples: [{ legacy: [legacyGet(`/api/${m.method}/0/${m.paging.default}`)], v1: [v1Get(`/${m.source.resource}`, [...fixed, ['offset', '0'], ['limit', String(m.paging.default)]])] }],
  };
}

/** `priority` (as a number, records without one last), then ... */
function sortWords(keys: readonly SortKey[]): Inline[] {
  const one = (k: SortKey): Inline[] => [
    code(k.field),
    ` (${k.type === 'number' ? 'as a number' : 'as text, ignoring case and accents'}, records without one ${k.nulls})`,
  ];
  return keys.flatMap((k, i) => (i === 0 ? one(k) : [', then ', ...one(k)]));
}

function sortedListReplacement(m: SortedListMapping): Replacement {
  const fixed = fixedQuery(m);
  const { resource, pageSize, maxPages } = m.source;
  const path = `${V1_PATH_PREFIX}/${resource}`;
  const page = (offset: number): Query => [...fixed, ['offset', String(offset)], ['limit', String(pageSize)]];
  const rules: Text[] = [
    ['v1 lists records by id; the legacy listing is ordered by ', ...sortWords(m.sort), '; records that tie keep v1\'s order.'],
    ['So every page is read, ', code(`limit=${pageSize}`), `, offset 0, ${pageSize}, ${2 * pageSize}, … until `, code('has_more'), ` is false: a listing of N records takes ⌈N / ${pageSize}⌉ v1 calls (the gateway gave up after ${maxPages} pages, ${maxPages * pageSize} records). Then the whole listing is sorted, then cut.`],
    [code('start'), ' (default 0) is the position, in the sorted listing, of the first record returned; ', code('limit'), ` (default ${m.paging.default}, at most ${m.paging.max}: a larger one was cut to ${m.paging.max}) how many.`],
    [code('total'), " is the size of the whole listing: v1's ", code('total'), '.'],
    ...fixedQueryRule(fixed),
  ];
  if (m.cacheTtlMs !== undefined && m.cacheTtlMs > 0) {
    rules.push([`The gateway kept a sorted listing for up to ${m.cacheTtlMs / 1000} s, so a change in v1 could take that long to show; read from v1, it shows at once.`]);
  }
  const cut = `keep records 0 to ${m.paging.default - 1}`;
  const sortedBy = m.sort.map((k) => k.field).join(', ');
  return {
    header: CALL_COLUMNS,
    calls: [
      {
        cells: [
          [code(`GET /api/${m.method}/{start}/{limit}`)],
          [code(`GET ${path}?${spelledQuery(page(0))}`), ', then ', code(`offset=${pageSize}`), ', ', code(`offset=${2 * pageSize}`), ', … while ', code('has_more'), ' is true; sort; cut'],
        ],
      },
    ],
    rules,
    examples: [
      {
        legacy: [legacyGet(`/api/${m.method}/0/${m.paging.default}`)],
        v1: [v1Get(`/${resource}`, page(0)), `# then offset=${pageSize}, ${2 * pageSize}, … while has_more is true; sort by ${sortedBy}; ${cut}`],
      },
    ],
  };
}

function detailReplacement(m: DetailMapping): Replacement {
  const fixed = fixedQuery(m);
  const path = `${V1_PATH_PREFIX}/${m.source.resource}/{id}`;
  return {
    header: CALL_COLUMNS,
    calls: [{ cells: [[code(`GET /api/${m.method}/{id}`)], [code(fixed.length === 0 ? `GET ${path}` : `GET ${path}?${spelledQuery(fixed)}`)]] }],
    rules: [
      ['The id is a whole number (the legacy API answered 400 otherwise). An unknown id: v1 answers 404 ', code('not_found'), '.'],
      ...fixedQueryRule(fixed),
      ...timezoneRule(m.timezone),
    ],
    examples: [{ legacy: [legacyGet(`/api/${m.method}/1`)], v1: [v1Get(`/${m.source.resource}/1`, fixed)] }],
  };
}

function staticReplacement(m: StaticMapping): Replacement {
  return {
    header: CALL_COLUMNS,
    calls: [{ cells: [[code(`GET /api/${m.method}`)], ['none: v1 has no such resource']] }],
    rules: [
      ['The gateway answered from a file of records its operator supplied (the setting ', code(m.source.setting), '); without it, 501: ', code(m.unavailable), '.'],
      ['Ask the operator for the records, or keep your own copy.'],
    ],
    examples: [{ legacy: [legacyGet(`/api/${m.method}`)], v1: ['# no v1 call: v1 has no such resource'] }],
  };
}

/** The replacement of every read kind but lookups. */
export function readReplacement(m: Exclude<Mapping, { kind: 'lookup' }>): Replacement {
  switch (m.kind) {
    case 'list':
      return listReplacement(m);
    case 'sorted-list':
      return sortedListReplacement(m);
    case 'detail':
      return detailReplacement(m);
    case 'static':
      return staticReplacement(m);
  }
}

