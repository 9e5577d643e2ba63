// Searches v1 records for the recorded values of one legacy field, under every spelling the mapping engine
// writes: each v1 field of the records, in each of the engine's formats (`text`: numbers as strings,
// booleans as 1/0; `money`: two decimals; `hhmm`: HH:MM), written by the engine itself (toLegacyRecord), so
// a match is exactly what the gateway would send after the edit. A value v1 holds only in another spelling
// the engine cannot write (a date with a time, `45.500`) is noted apart, for the operator.
// Pure: must never do I/O.
import { toLegacyRecord, type V1Record } from '../../mapping/legacy-record.js';
import { valueFormat, type FieldSpec } from '../../mapping/record-schema.js';
import type { NullPolicy, ValueFormat } from '../../mapping/legacy-value.js';
import type { JsonValue } from '../../shared/json-exact.js';
import { sameValueSpelledDifferently } from '../../json-diff/value-spelling.js';

/** One recorded value of the field and the v1 record its legacy record was written from. */
export interface Observation {
  entry: number;
  recorded: JsonValue;
  v1: V1Record;
}

/** A v1 field, in one format, and how many recorded values it writes exactly. */
export interface Candidate {
  field: string;
  format: ValueFormat;
  agreeing: number;
  /** Of those, the values that are not null (a null agrees with any field v1 lacks: it proves little). */
  agreeingNotNull: number;
}

export interface FieldSearch {
  /** Observations searched. */
  of: number;
  /** Values the field's mapping as it is writes exactly. */
  currentAgreeing: number;
  /** The best format of every v1 field that writes at least one value, best first. */
  candidates: Candidate[];
  /** v1 fields holding every value, some only in a spelling no format writes. */
  spelledOtherwise: string[];
}

/** v1's record type marker: never a legacy value. */
const NOT_A_SOURCE = new Set(['object']);
/** What a mapping may name as a v1 field (record-schema.ts): anything else cannot be proposed. */
const V1_FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** What the engine writes for the field from this v1 record, the field read as `spec` says. */
export function legacyValueOf(spec: FieldSpec, v1: V1Record, nulls: NullPolicy): string | null {
  return toLegacyRecord(v1, [spec], nulls)[spec.name] ?? null;
}

/** The spec reading `field` in `format`, everything else (default, nulls) kept. */
export function readingFrom(spec: FieldSpec, field: string, format: ValueFormat): FieldSpec {
  const { derive: _derive, missing: _missing, ...rest } = spec;
  return { ...rest, from: field, format };
}

/** Formats in the order a tie is settled: the field's own first, then the plainest. */
function formatsFor(spec: FieldSpec): ValueFormat[] {
  return [...new Set([spec.format ?? 'text', ...valueFormat.options])];
}

function scoreOf(spec: FieldSpec, field: string, format: ValueFormat, observations: readonly Observation[], nulls: NullPolicy): Candidate {
  const reading = readingFrom(spec, field, format);
  let agreeing = 0;
  let agreeingNotNull = 0;
  for (const o of observations) {
    if (legacyValueOf(reading, o.v1, nulls) !== o.recorded) continue;
    agreeing++;
    if (o.recorded !== null) agreeingNotNull++;
  }
  return { field, format, agreeing, agreeingNotNull };
}

/** Whether every value is in `field`, exactly or in another spelling of the same date, time or decimal. */
function holdsEverySpelling(spec: FieldSpec, field: string, observations: readonly Observation[], nulls: NullPolicy): boolean {
  const reading = readingFrom(spec, field, 'text');
  return observations.every((o) => {
    const written = legacyValueOf(reading, o.v1, nulls);
    if (written === o.recorded) return true;
    return typeof written === 'string' && typeof o.recorded === 'string' && sameValueSpelledDifferently(o.recorded, written);
  });
}

export function searchField(spec: FieldSpec, observations: readonly Observation[], nulls: NullPolicy): FieldSearch {
  const fields = new Set<string>();
  for (const o of observations) for (const key of Object.keys(o.v1)) if (!NOT_A_SOURCE.has(key) && V1_FIELD_NAME.test(key)) fields.add(key);
  const candidates: Candidate[] = [];
  const spelledOtherwise: string[] = [];
  for (const field of fields) {
    let best: Candidate | undefined;
    for (const format of formatsFor(spec)) {
      const score = scoreOf(spec, field, format, observations, nulls);
      if (best === undefined || score.agreeing > best.agreeing) best = score;
    }
    if (best !== undefined && best.agreeingNotNull > 0) candidates.push(best);
    if ((best?.agreeing ?? 0) < observations.length && holdsEverySpelling(spec, field, observations, nulls)) spelledOtherwise.push(field);
  }
  candidates.sort((a, b) => b.agreeing - a.agreeing || b.agreeingNotNull - a.agreeingNotNull);
  const currentAgreeing = observations.filter((o) => legacyValueOf(spec, o.v1, nulls) === o.recorded).length;
  return { of: observations.length, currentAgreeing, candidates, spelledOtherwise };
}
