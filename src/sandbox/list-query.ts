// The query of a v1 list call: paging (`limit`, `offset`) and the resource's filters, parsed once, then
// applied to the records. Pure: it must never touch the state or the response.
import { isDate } from './calendar.js';
import { SandboxError } from './errors.js';
import { fieldValue, type FilterDef, type ResourceDef } from './resources.js';

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;

export interface ListQuery {
  limit: number;
  offset: number;
  /** Filters sent; a name sent twice must match both values. Unknown names are dropped, as v1 ignores them. */
  filters: readonly { def: FilterDef; value: string }[];
}

function wholeNumber(raw: string): number | undefined {
  if (!/^\d+$/.test(raw)) return undefined;
  const n = Number(raw);
  return Number.isSafeInteger(n) ? n : undefined;
}

function pagingParam(params: URLSearchParams, name: string, fallback: number, min: number, max: number, rule: string): number {
  const values = params.getAll(name);
  if (values.length === 0) return fallback;
  const n = values.length === 1 && values[0] !== undefined ? wholeNumber(values[0]) : undefined;
  if (n === undefined || n < min || n > max) throw new SandboxError('invalid_request', `${name} must be ${rule}`);
  return n;
}

/** Parses `search` (the query string without `?`); throws invalid_request naming a malformed parameter. */
export function parseListQuery(search: string, resource: ResourceDef): ListQuery {
  const params = new URLSearchParams(search);
  const limit = pagingParam(params, 'limit', DEFAULT_LIMIT, 1, MAX_LIMIT, `an integer from 1 to ${String(MAX_LIMIT)}`);
  const offset = pagingParam(params, 'offset', 0, 0, Number.MAX_SAFE_INTEGER, 'an integer of 0 or more');
  const filters: { def: FilterDef; value: string }[] = [];
  for (const [name, value] of params) {
    const def = resource.filters[name];
    if (def === undefined) continue;
    if (value !== '' && def.match === 'integer' && wholeNumber(value) === undefined) {
      throw new SandboxError('invalid_request', `${name} must be an integer`);
    }
    if (value !== '' && def.match === 'date' && !isDate(value)) {
      throw new SandboxError('invalid_request', `${name} must be a date YYYY-MM-DD`);
    }
    filters.push({ def, value });
  }
  return { limit, offset, filters };
}

function matches(record: object, { def, value }: { def: FilterDef; value: string }): boolean {
  const field = fieldValue(record, def.field);
  if (value === '') return field === null || field === undefined || field === '';
  switch (def.match) {
    case 'integer':
      return field === Number(value);
    case 'date':
    case 'exact':
      return field === value;
    case 'case-insensitive':
      return typeof field === 'string' && field.toLowerCase() === value.toLowerCase();
    case 'email-list': {
      if (typeof field !== 'string') return false;
      const wanted = value.trim().toLowerCase();
      return field.split(',').some((address) => address.trim().toLowerCase() === wanted);
    }
  }
}

function idOf(record: object): number {
  const id = fieldValue(record, 'id');
  return typeof id === 'number' ? id : 0;
}

/**
 * The matching records, ids ascending (v1 endpoint rule 3, even for records a test added out of order),
 * and the page of them the query asks for.
 */
export function selectPage<R extends object>(records: readonly R[], query: ListQuery): { total: number; page: R[] } {
  const matching = records.filter((r) => query.filters.every((f) => matches(r, f))).sort((a, b) => idOf(a) - idOf(b));
  return { total: matching.length, page: matching.slice(query.offset, query.offset + query.limit) };
}
