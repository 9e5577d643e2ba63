// The v1 requests that replace a lookup method (GET /api/client?...): its precedence of query parameters,
// each key's v1 request (a record by id, or a filtered list the gateway read page by page, checking every
// record itself), and example calls. For an integration, the keys its call shapes used are highlighted and
// its shapes are the examples. Pure.
import type { LookupKey, LookupMapping } from '../mapping/schema.js';
import { code, joined, type Inline, type TableRow, type Text } from './document.js';
import type { CallShape } from './call-shapes.js';
import { legacyGet, v1Get } from './example-calls.js';
import { fixedQuery, type Replacement } from './read-requests.js';
import { V1_PATH_PREFIX } from './v1-conventions.js';

/** A value for an example: any whole number for an integer key, a word otherwise. */
const exampleValue = (key: LookupKey): string => (key.value === 'integer' ? '1' : 'example');

function matchWords(key: LookupKey): Inline[] {
  const field = code(key.field ?? key.param);
  switch (key.match) {
    case 'list-contains-ci':
      return [field, ' is a comma-separated list holding the value (case and spaces ignored)'];
    case 'equals-ci':
      return [field, ' equals the value, case ignored'];
    default:
      return [field, ' equals the value exactly'];
  }
}

/** The keys a call with these parameters reads: the first exclusive one present, else the combinable ones. */
export function keysRead(m: LookupMapping, params: readonly string[]): LookupKey[] {
  for (const param of params) {
    const key = m.exclusive.find((k) => k.param === param);
    if (key) return [key];
  }
  return m.combinable.filter((k) => params.includes(k.param));
}

function filterRequest(m: LookupMapping, keys: readonly LookupKey[], values: (k: LookupKey) => string): string {
  const query = [...fixedQuery(m), ...keys.map((k): [string, string] => [k.filter ?? k.param, values(k)]), ['offset', '0'], ['limit', String(m.source.pageSize)]];
  return `GET ${V1_PATH_PREFIX}/${m.source.resource}?${query.map(([k, v]) => `${k}=${v}`).join('&')}`;
}

function keyRow(m: LookupMapping, keys: readonly LookupKey[], order: string, used: ReadonlySet<string>): TableRow {
  const legacy = keys.map((k) => `${k.param}={${k.param}}`).join('&');
  const detail = keys.length === 1 && keys[0]!.via === 'detail';
  const request = detail ? `GET ${V1_PATH_PREFIX}/${m.source.resource}/{${keys[0]!.param}}` : filterRequest(m, keys, (k) => `{${k.param}}`);
  const found: Inline[] = detail
    ? [keys[0]!.value === 'integer' ? 'that record (the value a whole number, else 400)' : 'that record']
    : ['the first record where ', ...keys.flatMap((k, i) => (i === 0 ? matchWords(k) : [' and ', ...matchWords(k)])), `; the next page while `, code('has_more'), ` is true, up to ${m.source.maxPages} pages`];
  return { cells: [[order], [code(`GET /api/${m.method}?${legacy}`)], [code(request)], found], highlight: keys.some((k) => used.has(k.param)) };
}

function lookupExample(m: LookupMapping, keys: readonly LookupKey[]): { legacy: string[]; v1: string[] } {
  const legacy = [legacyGet(`/api/${m.method}`, keys.map((k) => [k.param, exampleValue(k)]))];
  if (keys.length === 1 && keys[0]!.via === 'detail') return { legacy, v1: [v1Get(`/${m.source.resource}/${exampleValue(keys[0]!)}`)] };
  const query: Array<[string, string]> = [...fixedQuery(m), ...keys.map((k): [string, string] => [k.filter ?? k.param, exampleValue(k)]), ['offset', '0'], ['limit', String(m.source.pageSize)]];
  const check = keys.map((k) => `${k.field ?? k.param} ${k.match === 'list-contains-ci' ? 'holds' : 'equals'} the value`).join(' and ');
  return { legacy, v1: [v1Get(`/${m.source.resource}`, query), `# keep the first record whose ${check}; read on while has_more is true`] };
}

/** The precedence rows: each exclusive key alone, then the combinable keys together. */
function keyGroups(m: LookupMapping): Array<{ keys: LookupKey[]; order: string }> {
  const groups = m.exclusive.map((k) => ({ keys: [k], order: '1: the first of these in the query' }));
  if (m.combinable.length > 0) groups.push({ keys: m.combinable, order: '2: when none of the above' });
  return groups;
}

export function lookupReplacement(m: LookupMapping, shapes: readonly CallShape[] | undefined): Replacement {
  const used = new Set((shapes ?? []).flatMap((s) => keysRead(m, s.params).map((k) => k.param)));
  const params = (keys: readonly LookupKey[]): Inline[] => joined(keys.map((k) => code(k.param)));
  const rules: Text[] = [
    ['Of ', ...params(m.exclusive), ', the first to appear in the query string wins; the others are ignored.'],
  ];
  if (m.combinable.length > 0) {
    rules.push(['Only when none of them is given: ', ...params(m.combinable), ', alone or together (a record then matches every one given).']);
  }
  rules.push(
    ['None of them: the legacy API answered 400. No record found: 404 ', code(m.notFound), '.'],
    ['v1 combines filters (a record matches every filter sent), but the gateway checked every record itself, so that a filter v1 ignores could not return the wrong record: do the same.'],
  );
  const exampleKeys = shapes && shapes.length > 0
    ? shapes.map((s) => keysRead(m, s.params)).filter((keys) => keys.length > 0)
    : keyGroups(m).map((g) => g.keys);
  return {
    header: ['Precedence', 'Legacy call', 'v1 call', 'The record returned'],
    calls: keyGroups(m).map((g) => keyRow(m, g.keys, g.order, used)),
    rules,
    examples: exampleKeys.map((keys) => lookupExample(m, keys)),
  };
}
