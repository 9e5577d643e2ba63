// Runs one mapping for one legacy call: checks the legacy input, asks v1 through the injected port,
// and builds the legacy reply. Knows no legacy method by name: everything specific is in the mapping.
// It never does I/O itself; the only way out is `deps.v1Get`. A v1 reply of the wrong shape (a list without
// `data`, a single record that is not an object carrying the requested id) is a 502, never a success.
import { badRequest, GatewayError } from '../shared/errors.js';
import { toLegacyRecord, type V1Record } from './legacy-record.js';
import { parseId, parsePage } from './paging.js';
import type {
  DetailMapping,
  ListMapping,
  LookupKey,
  LookupMapping,
  Mapping,
  SortedListMapping,
  StaticMapping,
  TimezoneSpec,
} from './schema.js';
import { sortRecords } from './record-order.js';
import { asV1List, asV1Record, type V1Get } from './v1-reply.js';

export interface LegacyCall {
  /** Path segments after /api/{method} (empty trailing segments removed). */
  segments: string[];
  /** Query parameters in the order they appear (the key parameter already removed). */
  query: Array<[string, string]>;
}

export interface EngineDeps {
  v1Get: V1Get;
  accountTimezone: string | undefined;
  /** Records of an operator-supplied file, by setting name; undefined when the setting is unset. */
  staticRecords: (setting: string) => readonly V1Record[] | undefined;
}

export type LegacyBody = Record<string, unknown>;

export async function runMapping(mapping: Mapping, call: LegacyCall, deps: EngineDeps): Promise<LegacyBody> {
  switch (mapping.kind) {
    case 'list':
      return runList(mapping, call, deps);
    case 'sorted-list':
      return runSortedList(mapping, call, deps);
    case 'detail':
      return runDetail(mapping, call, deps);
    case 'lookup':
      return runLookup(mapping, call, deps);
    case 'static':
      return runStatic(mapping, call, deps);
  }
}

function noSegments(call: LegacyCall): void {
  if (call.segments.length > 0) throw badRequest('this method takes no path parameters');
}

function reshape(mapping: Mapping, records: readonly V1Record[]): ReturnType<typeof toLegacyRecord>[] {
  return records.map((r) => toLegacyRecord(r, mapping.record.fields, mapping.record.nulls));
}

function timezoneOf(spec: TimezoneSpec, first: V1Record | undefined, deps: EngineDeps): string {
  const value = first?.[spec.from];
  if (typeof value === 'string' && value !== '') return value;
  return deps.accountTimezone ?? spec.fallback;
}

function listBody(total: number, response: unknown[], timezone: string | undefined): LegacyBody {
  const body: LegacyBody = { status: 'success', total: String(total) };
  if (timezone !== undefined) body.timezone = timezone;
  body.response = response;
  return body;
}

function detailBody(response: unknown, timezone: string | undefined): LegacyBody {
  const body: LegacyBody = { status: 'success' };
  if (timezone !== undefined) body.timezone = timezone;
  body.response = response;
  return body;
}

async function runList(mapping: ListMapping, call: LegacyCall, deps: EngineDeps): Promise<LegacyBody> {
  const paged = parsePage(call.segments, mapping.paging);
  if (!paged.ok) throw badRequest(paged.reason);
  const list = asV1List(
    await deps.v1Get({
      path: `/${mapping.source.resource}`,
      query: { ...mapping.source.query, offset: String(paged.page.offset), limit: String(paged.page.limit) },
    }),
  );
  const tz = mapping.timezone ? timezoneOf(mapping.timezone, list.data[0], deps) : undefined;
  return listBody(list.total, reshape(mapping, list.data), tz);
}

/** Every v1 page of a resource, in v1's order. */
async function readAllPages(
  resource: string,
  query: Record<string, string>,
  pageSize: number,
  maxPages: number,
  deps: EngineDeps,
): Promise<V1Record[]> {
  const all: V1Record[] = [];
  for (let page = 0; page < maxPages; page++) {
    const list = asV1List(
      await deps.v1Get({
        path: `/${resource}`,
        query: { ...query, offset: String(page * pageSize), limit: String(pageSize) },
      }),
    );
    all.push(...list.data);
    if (!list.has_more || list.data.length === 0) return all;
  }
  throw new GatewayError('LGW_UPSTREAM_BAD_REPLY', `the upstream listing did not end within ${maxPages} pages`);
}

/** Every v1 page, sorted as the mapping says, then the legacy page cut from the whole listing. */
async function runSortedList(mapping: SortedListMapping, call: LegacyCall, deps: EngineDeps): Promise<LegacyBody> {
  const paged = parsePage(call.segments, mapping.paging);
  if (!paged.ok) throw badRequest(paged.reason);
  const { resource, query, pageSize, maxPages } = mapping.source;
  const all = sortRecords(await readAllPages(resource, query ?? {}, pageSize, maxPages, deps), mapping.sort);
  const { offset, limit } = paged.page;
  return listBody(all.length, reshape(mapping, all.slice(offset, offset + limit)), undefined);
}

async function runDetail(mapping: DetailMapping, call: LegacyCall, deps: EngineDeps): Promise<LegacyBody> {
  const parsed = parseId(call.segments);
  if (!parsed.ok) throw badRequest(parsed.reason);
  const { resource, query, idField } = mapping.source;
  const record = asV1Record(await deps.v1Get({ path: `/${resource}/${parsed.id}`, query: { ...query } }), { idField, id: parsed.id });
  const tz = mapping.timezone ? timezoneOf(mapping.timezone, record, deps) : undefined;
  return detailBody(reshape(mapping, [record])[0], tz);
}

const WHOLE = /^\d{1,15}$/;

function checkLookupValue(key: LookupKey, value: string): string {
  if (key.value === 'integer') {
    if (!WHOLE.test(value)) throw badRequest(`${key.param} must be a whole number`);
    return String(Number(value));
  }
  if (value.trim() === '') throw badRequest(`${key.param} must not be empty`);
  return value;
}

function matches(key: LookupKey, record: V1Record, wanted: string): boolean {
  const actual = record[key.field!];
  if (actual === null || actual === undefined) return false;
  const text = String(actual);
  switch (key.match) {
    case 'equals':
      return text === wanted;
    case 'equals-ci':
      return text.toLowerCase() === wanted.toLowerCase();
    case 'list-contains-ci': {
      const target = wanted.trim().toLowerCase();
      return text.split(',').some((item) => item.trim().toLowerCase() === target);
    }
    default:
      return false;
  }
}

async function runLookup(mapping: LookupMapping, call: LegacyCall, deps: EngineDeps): Promise<LegacyBody> {
  noSegments(call);
  const { resource, pageSize, maxPages, idField } = mapping.source;
  // The first exclusive key to appear in the query string wins (legacy rule 1).
  for (const [param, raw] of call.query) {
    const key = mapping.exclusive.find((k) => k.param === param);
    if (!key) continue;
    const value = checkLookupValue(key, raw);
    if (key.via === 'detail') {
      try {
        const record = asV1Record(await deps.v1Get({ path: `/${resource}/${value}`, query: {} }), { idField, id: value });
        return detailBody(reshape(mapping, [record])[0], undefined);
      } catch (err) {
        if (err instanceof GatewayError && err.code === 'LGW_UPSTREAM_ERROR' && err.status === 404) {
          throw new GatewayError('LGW_NOT_FOUND', mapping.notFound);
        }
        throw err;
      }
    }
    return findByFilters(mapping, [[key, value]], deps, resource, pageSize, maxPages);
  }
  const present: Array<[LookupKey, string]> = [];
  for (const key of mapping.combinable) {
    const entry = call.query.find(([p]) => p === key.param);
    if (entry) present.push([key, checkLookupValue(key, entry[1])]);
  }
  if (present.length === 0) {
    const names = [...mapping.exclusive, ...mapping.combinable].map((k) => k.param).join(', ');
    throw badRequest(`one of ${names} is required`);
  }
  return findByFilters(mapping, present, deps, resource, pageSize, maxPages);
}

async function findByFilters(
  mapping: LookupMapping,
  keys: Array<[LookupKey, string]>,
  deps: EngineDeps,
  resource: string,
  pageSize: number,
  maxPages: number,
): Promise<LegacyBody> {
  const query: Record<string, string> = { ...mapping.source.query };
  for (const [key, value] of keys) query[key.filter!] = value;
  // Reads on until a record passes the gateway's own check: a filter v1 ignores cannot pick the wrong one.
  for (let page = 0; page < maxPages; page++) {
    const list = asV1List(
      await deps.v1Get({ path: `/${resource}`, query: { ...query, offset: String(page * pageSize), limit: String(pageSize) } }),
    );
    const found = list.data.find((r) => keys.every(([key, value]) => matches(key, r, value)));
    if (found) return detailBody(reshape(mapping, [found])[0], undefined);
    if (!list.has_more || list.data.length === 0) break;
  }
  throw new GatewayError('LGW_NOT_FOUND', mapping.notFound);
}

async function runStatic(mapping: StaticMapping, call: LegacyCall, deps: EngineDeps): Promise<LegacyBody> {
  noSegments(call);
  const records = deps.staticRecords(mapping.source.setting);
  if (!records) throw new GatewayError('LGW_NOT_CONFIGURED', mapping.unavailable);
  return detailBody(reshape(mapping, records), undefined);
}
