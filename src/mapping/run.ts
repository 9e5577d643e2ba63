// Runs one mapping for one legacy call: checks the legacy input, asks v1 through the injected port,
// and builds the legacy reply as JSON (text, or its UTF-8 bytes). v1's replies come in, and the reply goes
// out, in boxes the receiver empties (shared/hand-off.ts). Knows no legacy method by name: everything
// specific is in the mapping, compiled once (compileMapping) into the function that builds its records. It
// never does I/O itself; the only way out is `deps.v1Get` (and `deps.v1GetBytes`; for sorted lists,
// `deps.rosters`). A v1 reply of the wrong shape (a list without `data`, a single record that is not an
// object carrying the requested id) is a 502, never a success. A plain list whose mapping the byte
// translation covers (byte-translation/) is read from v1's bytes straight to the reply's bytes when the
// caller can give the bytes; a page it declines goes through the engine as any other, decoded.
import { badRequest, GatewayError } from '../shared/errors.js';
import { handOff, type HandOff } from '../shared/hand-off.js';
import type { V1Record } from './legacy-record.js';
import { plainText } from './legacy-value.js';
import { parseId, parsePage } from './paging.js';
import { compileRecord, type CompiledRecord } from './record-writer.js';
import { allRecordsReplyText, detailReplyText, listReplyText } from './reply-text.js';
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
import { cutRoster, readSortedRoster, rosterSize, type RosterStore } from './sorted-roster.js';
import { compileListByteTranslation, type ListByteTranslation } from './byte-translation/list-translation.js';
import { asV1List, asV1Record, parseV1Text, type V1Get, type V1GetBytes } from './v1-reply.js';

export interface LegacyCall {
  /** Path segments after /api/{method} (empty trailing segments removed). */
  segments: string[];
  /** Query parameters in the order they appear (the key parameter already removed). */
  query: Array<[string, string]>;
}

export interface EngineDeps {
  v1Get: V1Get;
  /** A GET whose reply's bytes are given as they came; absent, every read goes through `v1Get`. */
  v1GetBytes?: V1GetBytes | undefined;
  accountTimezone: string | undefined;
  /** Records of an operator-supplied file, by setting name; undefined when the setting is unset. */
  staticRecords: (setting: string) => readonly V1Record[] | undefined;
  /** Sorted lists only: where this call's whole sorted listing may be kept between calls (and when it may
   * be read); absent, every call reads and sorts the listing anew. */
  rosters?: RosterStore;
}

/** A reply as a value: what JSON.parse gives of the reply's text. */
export type LegacyBody = Record<string, unknown>;

/** A reply's JSON: its text, or the UTF-8 bytes of that text (a list translated from v1's bytes). */
export type LegacyReplyJson = string | Buffer;

/** A mapping ready to run: its record compiled, once, into the functions that build it. */
export interface CompiledMapping {
  readonly mapping: Mapping;
  readonly record: CompiledRecord;
  /** A plain list's translation from v1's bytes to the reply's bytes, when the mapping is one it covers. */
  readonly listBytes: ListByteTranslation | undefined;
}

export function compileMapping(mapping: Mapping): CompiledMapping {
  return { mapping, record: compileRecord(mapping.record.fields, mapping.record.nulls), listBytes: compileListByteTranslation(mapping) };
}

/** The legacy reply's JSON, exactly what JSON.stringify of the reply as a value gives (or its UTF-8
 * bytes), handed off. */
export function runMappingText(compiled: CompiledMapping, call: LegacyCall, deps: EngineDeps): Promise<HandOff<LegacyReplyJson>> {
  const { mapping, record } = compiled;
  switch (mapping.kind) {
    case 'list':
      return runList(mapping, compiled, call, deps);
    case 'sorted-list':
      return runSortedList(mapping, record, call, deps);
    case 'detail':
      return runDetail(mapping, record, call, deps);
    case 'lookup':
      return runLookup(mapping, record, call, deps);
    case 'static':
      return runStatic(mapping, record, call, deps);
  }
}

/** The legacy reply as a value (the mapping compiled for this one call): for tests and tools; the gateway
 * compiles each mapping once and writes the text. */
export async function runMapping(mapping: Mapping, call: LegacyCall, deps: EngineDeps): Promise<LegacyBody> {
  return JSON.parse((await runMappingText(compileMapping(mapping), call, deps)).take().toString()) as LegacyBody;
}

function noSegments(call: LegacyCall): void {
  if (call.segments.length > 0) throw badRequest('this method takes no path parameters');
}

function timezoneOf(spec: TimezoneSpec, first: V1Record | undefined, deps: EngineDeps): string {
  const value = first?.[spec.from];
  if (typeof value === 'string' && value !== '') return value;
  return deps.accountTimezone ?? spec.fallback;
}

async function runList(mapping: ListMapping, compiled: CompiledMapping, call: LegacyCall, deps: EngineDeps): Promise<HandOff<LegacyReplyJson>> {
  const paged = parsePage(call.segments, mapping.paging);
  if (!paged.ok) throw badRequest(paged.reason);
  const v1Call = { path: `/${mapping.source.resource}`, query: { ...mapping.source.query, offset: String(paged.page.offset), limit: String(paged.page.limit) } };
  const { listBytes } = compiled;
  if (listBytes !== undefined && deps.v1GetBytes !== undefined) {
    const { accountTimezone } = deps;
    const page = (await deps.v1GetBytes(v1Call, { id: listBytes.id, open: () => listBytes.open(accountTimezone) })).take();
    // Translated as it came, or the page's bytes to translate whole (or, declined, to read as any other).
    if (!Buffer.isBuffer(page)) return handOff(page.bytes);
    const translated = listBytes(page, accountTimezone);
    return handOff(translated ? translated.bytes : listText(mapping, compiled.record, parseV1Text(page.toString('utf8')), deps));
  }
  return handOff(listText(mapping, compiled.record, (await deps.v1Get(v1Call)).take(), deps));
}

/** A list page's reply from v1's parsed page. */
function listText(mapping: ListMapping, record: CompiledRecord, body: unknown, deps: EngineDeps): string {
  const list = asV1List(body);
  const tz = mapping.timezone ? timezoneOf(mapping.timezone, list.data[0], deps) : undefined;
  return listReplyText(list.total, list.data.map((r) => record.build(r)), tz);
}

/** Every v1 page, sorted as the mapping says (or the listing kept from an earlier call), then the legacy
 * page cut from the whole listing. */
async function runSortedList(mapping: SortedListMapping, record: CompiledRecord, call: LegacyCall, deps: EngineDeps): Promise<HandOff<string>> {
  const paged = parsePage(call.segments, mapping.paging);
  if (!paged.ok) throw badRequest(paged.reason);
  const read = () => readSortedRoster(mapping, record, deps.v1Get);
  const roster = await (deps.rosters ? deps.rosters.roster(read) : read());
  return handOff(listReplyText(rosterSize(roster), cutRoster(roster, record, paged.page), undefined));
}

async function runDetail(mapping: DetailMapping, record: CompiledRecord, call: LegacyCall, deps: EngineDeps): Promise<HandOff<string>> {
  const parsed = parseId(call.segments);
  if (!parsed.ok) throw badRequest(parsed.reason);
  const { resource, query, idField } = mapping.source;
  const found = asV1Record((await deps.v1Get({ path: `/${resource}/${parsed.id}`, query: { ...query } })).take(), { idField, id: parsed.id });
  const tz = mapping.timezone ? timezoneOf(mapping.timezone, found, deps) : undefined;
  return handOff(detailReplyText(record.build(found), tz));
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
  const text = plainText(actual);
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

async function runLookup(mapping: LookupMapping, record: CompiledRecord, call: LegacyCall, deps: EngineDeps): Promise<HandOff<string>> {
  noSegments(call);
  const { resource, idField } = mapping.source;
  // The first exclusive key to appear in the query string wins (legacy rule 1).
  for (const [param, raw] of call.query) {
    const key = mapping.exclusive.find((k) => k.param === param);
    if (!key) continue;
    const value = checkLookupValue(key, raw);
    if (key.via === 'detail') {
      try {
        const found = asV1Record((await deps.v1Get({ path: `/${resource}/${value}`, query: {} })).take(), { idField, id: value });
        return handOff(detailReplyText(record.build(found), undefined));
      } catch (err) {
        if (err instanceof GatewayError && err.code === 'LGW_UPSTREAM_ERROR' && err.status === 404) {
          throw new GatewayError('LGW_NOT_FOUND', mapping.notFound);
        }
        throw err;
      }
    }
    return findByFilters(mapping, record, [[key, value]], deps);
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
  return findByFilters(mapping, record, present, deps);
}

async function findByFilters(
  mapping: LookupMapping,
  record: CompiledRecord,
  keys: Array<[LookupKey, string]>,
  deps: EngineDeps,
): Promise<HandOff<string>> {
  const { resource, pageSize, maxPages } = mapping.source;
  const query: Record<string, string> = { ...mapping.source.query };
  for (const [key, value] of keys) query[key.filter!] = value;
  // Reads on until a record passes the gateway's own check: a filter v1 ignores cannot pick the wrong one.
  for (let page = 0; page < maxPages; page++) {
    const list = asV1List(
      (await deps.v1Get({ path: `/${resource}`, query: { ...query, offset: String(page * pageSize), limit: String(pageSize) } })).take(),
    );
    const found = list.data.find((r) => keys.every(([key, value]) => matches(key, r, value)));
    if (found) return handOff(detailReplyText(record.build(found), undefined));
    if (!list.has_more || list.data.length === 0) break;
  }
  throw new GatewayError('LGW_NOT_FOUND', mapping.notFound);
}

async function runStatic(mapping: StaticMapping, record: CompiledRecord, call: LegacyCall, deps: EngineDeps): Promise<HandOff<string>> {
  noSegments(call);
  const records = deps.staticRecords(mapping.source.setting);
  if (!records) throw new GatewayError('LGW_NOT_CONFIGURED', mapping.unavailable);
  return handOff(allRecordsReplyText(records.map((r) => record.build(r))));
}
