// The v1 records behind one legacy call, and which of them each recorded legacy record was written from.
// The records are read by running the call's own mapping through the engine with a port that keeps every
// record v1 sends: the v1 resource, path, paging, filters and pages come from the mapping, exactly as the
// gateway asks for them, and no method is known here by name.
// Pure: the only way out is the injected V1Get port.
import type { V1Record } from '../../mapping/legacy-record.js';
import { runMappingText, type CompiledMapping, type LegacyCall } from '../../mapping/run.js';
import type { V1Get } from '../../mapping/v1-reply.js';
import { handOff } from '../../shared/hand-off.js';
import { v1IdFieldOf, type RecordedRecord } from './entry-evidence.js';

export interface CallRecords {
  /** Every record v1 sent for the call, in the order it sent them. */
  records: V1Record[];
  /** Why v1 could not be read for the call (the first failure), when it could not. */
  error?: string;
}

function isRecord(value: unknown): value is V1Record {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A list page's records, or the one record of a detail read. */
function recordsOfReply(body: unknown): V1Record[] {
  if (!isRecord(body)) return [];
  const data = body.data;
  if (Array.isArray(data)) return data.filter(isRecord);
  return [body];
}

export async function v1RecordsBehind(compiled: CompiledMapping, call: LegacyCall, v1Get: V1Get): Promise<CallRecords> {
  const records: V1Record[] = [];
  let error: string | undefined;
  const keeping: V1Get = async (v1Call) => {
    try {
      const body = (await v1Get(v1Call)).take();
      records.push(...recordsOfReply(body));
      return handOff(body);
    } catch (err) {
      error ??= (err as Error).message;
      throw err;
    }
  };
  try {
    await runMappingText(compiled, call, { v1Get: keeping, accountTimezone: undefined, staticRecords: () => undefined });
  } catch {
    // What the engine makes of the call (a lookup that finds nothing, a reply it refuses) does not matter
    // here: only the records v1 sent do, and a failed read is kept in `error`.
  }
  return error === undefined ? { records } : { records, error };
}

/** An id as whole-number text (`42`, `"042"` -> `42`), as the engine compares ids; other text as it is. */
function idKey(value: unknown): string | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? String(value) : undefined;
  if (typeof value !== 'string') return undefined;
  return /^\d+$/.test(value) ? value.replace(/^0+(?=\d)/, '') : value;
}

/**
 * The v1 record each recorded record was written from: by id when the view carries the id; the one record of
 * a detail read otherwise; undefined where none can be told.
 */
export function pairRecords(compiled: CompiledMapping, recorded: readonly RecordedRecord[], v1: readonly V1Record[]): Array<V1Record | undefined> {
  const idField = v1IdFieldOf(compiled.mapping);
  if (recorded.some((r) => r.id !== undefined)) {
    const byId = new Map<string, V1Record>();
    for (const record of v1) {
      const key = idKey(record[idField]);
      if (key !== undefined && !byId.has(key)) byId.set(key, record);
    }
    return recorded.map((r) => {
      const key = idKey(r.id);
      return key === undefined ? undefined : byId.get(key);
    });
  }
  if (recorded.length === 1 && v1.length === 1) return [v1[0]];
  return recorded.map(() => undefined);
}
