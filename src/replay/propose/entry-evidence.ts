// Reads, from one `different` entry, what the mapping proposal needs and nothing more: the legacy call (to
// ask v1 for the records behind it), the record fields of the method's view that differ, and for every
// record of the recorded reply its v1 id and its recorded values of those fields (a field is judged on every
// record of an entry where it differs, so an edit cannot break the records that were already right).
// Pure: must never do I/O. The recorded values stay in memory for the search; what reaches a report comes
// from the redacted entry's differences.
import type { ReplayDifference } from '../report/replay-difference.js';
import type { MappingSet } from '../../mapping/mapping-set.js';
import type { LegacyCall } from '../../mapping/run.js';
import type { Mapping } from '../../mapping/schema.js';
import { isJsonObject, jsonTypeOf, numberSpelling, type JsonObject, type JsonValue, type NumberLiteral } from '../../shared/json-exact.js';
import { parseLegacyPath, splitTarget } from '../../shared/request-target.js';
import type { ReportEntry } from '../report/entry.js';
import { recordedPathAndQuery } from '../run/request-builder.js';
import type { SeenValue } from './proposal.js';

/** One record of a recorded reply. */
export interface RecordedRecord {
  /** The v1 id it was written from, as text; undefined when the method's view carries no id. */
  id: string | undefined;
  /** Its recorded values of the fields examined in this entry (recorded, not redacted: never shown). */
  values: ReadonlyMap<string, JsonValue>;
}

export interface EntryEvidence {
  index: number;
  /** The legacy method, as the mapping set names it. */
  method: string;
  call: LegacyCall;
  /** Every record of the recorded reply, in order. */
  records: RecordedRecord[];
  /** Fields of the method's view that differ somewhere in this entry. */
  fields: string[];
  /** Recorded fields the method's view does not write (`missing` differences). */
  outsideView: string[];
  /** The differences of those fields, as the redacted entry shows them. */
  seen: SeenDifference[];
}

/** A difference of one field, as the redacted entry shows it, and the recorded record it is about. */
export interface SeenDifference extends SeenValue {
  field: string;
  /** The record's position in the recorded reply (0 for a single record). */
  position: number;
}

/** Kinds that say a field's value is not what v1 gave through the mapping. */
const VALUE_KINDS = new Set(['value', 'format', 'type']);

/** The record field a difference is about: `$.response[3].first_name`, `$.response["hide costs"]`. */
const RECORD_FIELD_PATH = /^\$\.response(?:\[(\d+)\])?(?:\.([A-Za-z_$][A-Za-z0-9_$-]*)|\[("(?:[^"\\]|\\.)*")\])$/;

/** The record's position and the field a difference's path names; undefined for any other path. */
export function recordFieldOf(path: string): { position: number; field: string } | undefined {
  const m = RECORD_FIELD_PATH.exec(path);
  if (!m) return undefined;
  return { position: m[1] === undefined ? 0 : Number(m[1]), field: m[2] ?? (JSON.parse(m[3] as string) as string) };
}

/** The legacy call the gateway read from the recorded URL: its segments and query, `api_key` left out. */
export function legacyCallOf(url: string): { method: string; call: LegacyCall } | undefined {
  const { path, search } = splitTarget(recordedPathAndQuery(url));
  const legacy = parseLegacyPath(path);
  if (!legacy) return undefined;
  const query = search === '' ? [] : [...new URLSearchParams(search)].filter(([name]) => name !== 'api_key');
  return { method: legacy.method, call: { segments: legacy.segments, query } };
}

/** The v1 field holding a record's id: the mapping's `idField`, else `id`. */
export function v1IdFieldOf(mapping: Mapping): string {
  return mapping.kind !== 'static' && 'idField' in mapping.source ? mapping.source.idField : 'id';
}

/** The legacy field of the method's view written from the v1 id, if the view carries one. */
export function idFieldOf(mapping: Mapping): string | undefined {
  const idField = v1IdFieldOf(mapping);
  return mapping.record.fields.find((f) => !f.derive && (f.from ?? f.name) === idField)?.name;
}

/** An id as text: a string as it is, a number as spelled. */
export function idText(value: JsonValue | undefined): string | undefined {
  if (value === undefined) return undefined;
  const type = jsonTypeOf(value);
  if (type === 'string') return value as string;
  if (type === 'number') return numberSpelling(value as number | NumberLiteral);
  return undefined;
}

function recordsOf(reply: JsonValue): JsonObject[] | undefined {
  if (!isJsonObject(reply)) return undefined;
  const response = reply.response;
  if (response === undefined) return undefined;
  if (Array.isArray(response)) return response.every(isJsonObject) ? (response as JsonObject[]) : undefined;
  return isJsonObject(response) ? [response] : undefined;
}

interface FieldsOfEntry {
  fields: string[];
  outsideView: string[];
  seen: SeenDifference[];
}

function fieldsOfEntry(index: number, diffs: readonly ReplayDifference[], inView: ReadonlySet<string>): FieldsOfEntry {
  const fields = new Set<string>();
  const outsideView = new Set<string>();
  const seen: SeenDifference[] = [];
  for (const d of diffs) {
    // A difference an earlier replayed write made says nothing about where the gateway reads a field.
    if (d.cause !== undefined) continue;
    const at = recordFieldOf(d.path);
    if (at === undefined) continue;
    const { field, position } = at;
    if (VALUE_KINDS.has(d.kind) && inView.has(field)) fields.add(field);
    else if (d.kind === 'missing' && !inView.has(field)) outsideView.add(field);
    else continue;
    const value: SeenDifference = { field, position, entry: index };
    if (d.expected !== undefined) value.recorded = d.expected;
    if (d.actual !== undefined) value.gateway = d.actual;
    seen.push(value);
  }
  return { fields: [...fields], outsideView: [...outsideView], seen };
}

/**
 * The evidence of one redacted `different` entry and its recorded JSON reply; undefined when the entry says
 * nothing about v1 field sources (not a mapped read of v1, a status that differs, no record field differs).
 */
export function entryEvidence(entry: ReportEntry, recordedJson: JsonValue, mappings: MappingSet): EntryEvidence | undefined {
  if (entry.outcome !== 'different' || entry.method !== 'GET' || entry.status === undefined) return undefined;
  if (entry.status.expected !== entry.status.actual || entry.status.expected < 200 || entry.status.expected > 299) return undefined;
  const legacy = legacyCallOf(entry.url);
  const mapping = legacy && mappings.get(legacy.method);
  if (!legacy || !mapping || mapping.kind === 'static') return undefined;
  const records = recordsOf(recordedJson);
  if (!records) return undefined;
  const inView = new Set(mapping.record.fields.map((f) => f.name));
  const found = fieldsOfEntry(entry.index, entry.diffs, inView);
  if (found.fields.length === 0 && found.outsideView.length === 0) return undefined;
  const idField = idFieldOf(mapping);
  return {
    index: entry.index,
    method: legacy.method,
    call: legacy.call,
    records: records.map((r) => ({
      id: idField === undefined ? undefined : idText(r[idField]),
      values: new Map(found.fields.filter((f) => Object.hasOwn(r, f)).map((f) => [f, r[f] as JsonValue])),
    })),
    ...found,
  };
}
