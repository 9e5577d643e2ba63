// The rule that turns the evidence about one legacy field into a proposed mapping edit, or into an
// unexplained field. The rule for partial agreement, stated once (docs/replay.md says the same):
//
//   A field is judged on every record of every entry where it differed, each paired with the v1 record it was
//   written from (records whose v1 record could not be read are not counted). An edit is proposed only when
//   it writes EVERY one of those recorded values exactly (n of m with n = m), at least one of them not null:
//   - the field's own v1 source in another format          -> `format`
//   - else exactly one other v1 field (in its best format)   -> `rename` (two or more: a tie, unexplained)
//   - else, when v1 has the field in none of the records and the legacy field held one and the same text on
//     at least MIN_DEFAULT_RECORDS records                   -> `default`
//   Anything less (the best v1 field writes n < m values, a tie, values v1 holds only in a spelling no format
//   writes) is listed as unexplained with the values seen and why. A field whose mapping already writes every
//   recorded value from the v1 records read is neither: its difference comes from elsewhere (the order of a
//   listing, a record that changed since).
//
// Full agreement is what makes the promise hold: replayed again with the proposed mappings, the field is
// identical on every record it was judged on. Pure: must never do I/O.
import type { FieldSpec } from '../../mapping/record-schema.js';
import type { NullPolicy } from '../../mapping/legacy-value.js';
import type { Proposal, ProposedEdit, SeenValue, Unexplained } from './proposal.js';
import { legacyValueOf, searchField, type Candidate, type FieldSearch, type Observation } from './value-search.js';

/** A default is a constant: one record holding a value says nothing about the others. */
export const MIN_DEFAULT_RECORDS = 2;

/** Everything known about one legacy field of one record, gathered across the run. */
export interface FieldEvidence {
  record: string;
  legacyField: string;
  /** The field as the methods read it now. */
  spec: FieldSpec;
  /** The record's null policy. */
  nulls: NullPolicy;
  /** Recorded values paired with their v1 records. */
  observations: Observation[];
  /** Recorded values whose v1 record could not be read or told apart. */
  unpaired: number;
  /** The field's differences as the redacted entries show them (capped). */
  seen: SeenValue[];
  methods: string[];
  /** The method's view does not write the field at all (`missing` differences). */
  outsideView: boolean;
}

export type FieldVerdict =
  | { kind: 'proposal'; proposal: Proposal; /** The old v1 field, absent from every record read: method files naming it follow. */ retiredV1Field?: string }
  | { kind: 'unexplained'; unexplained: Unexplained }
  | { kind: 'explained' };

const quote = (name: string): string => `\`${name}\``;

function unexplained(evidence: FieldEvidence, reason: string): FieldVerdict {
  const { record, legacyField, methods, seen } = evidence;
  return { kind: 'unexplained', unexplained: { record, legacyField, methods, values: seen, reason } };
}

function proposal(evidence: FieldEvidence, edit: ProposedEdit, retiredV1Field?: string): FieldVerdict {
  const entries = [...new Set(evidence.observations.map((o) => o.entry))].sort((a, b) => a - b);
  const of = evidence.observations.length;
  const made: Proposal = { record: evidence.record, legacyField: evidence.legacyField, edit, evidence: { agreeing: of, of, entries }, methods: evidence.methods };
  return retiredV1Field === undefined ? { kind: 'proposal', proposal: made } : { kind: 'proposal', proposal: made, retiredV1Field };
}

/** What the field reads now, as the report names it: its v1 field, or its template. */
function currentSource(spec: FieldSpec): string {
  return spec.derive ? spec.derive.template : (spec.from ?? spec.name);
}

function renameTo(evidence: FieldEvidence, candidate: Candidate): FieldVerdict {
  const { spec, observations } = evidence;
  const edit: ProposedEdit = { kind: 'rename', from: currentSource(spec), to: candidate.field };
  if (candidate.format !== (spec.format ?? 'text')) edit.format = candidate.format;
  const old = spec.derive ? undefined : (spec.from ?? spec.name);
  const retired = old !== undefined && observations.every((o) => !Object.hasOwn(o.v1, old));
  return proposal(evidence, edit, retired ? old : undefined);
}

/** One text on every record, v1 holding the field in none of them, and the default written as it is. */
function defaultVerdict(evidence: FieldEvidence): FieldVerdict | undefined {
  const { spec, observations, nulls } = evidence;
  if (spec.derive || observations.length < MIN_DEFAULT_RECORDS) return undefined;
  const value = observations[0]?.recorded;
  if (typeof value !== 'string' || !observations.every((o) => o.recorded === value)) return undefined;
  const source = spec.from ?? spec.name;
  if (observations.some((o) => Object.hasOwn(o.v1, source))) return undefined;
  if (legacyValueOf({ ...spec, default: value }, {}, nulls) !== value) return undefined;
  const edit: ProposedEdit = spec.default === undefined ? { kind: 'default', value } : { kind: 'default', value, previous: spec.default };
  return proposal(evidence, edit);
}

function whyUnexplained(search: FieldSearch): string {
  const parts: string[] = [];
  const best = search.candidates[0];
  if (best) parts.push(`best v1 field ${quote(best.field)} (${best.format}) writes ${best.agreeing} of ${search.of} recorded values`);
  if (search.spelledOtherwise.length > 0) {
    parts.push(`${search.spelledOtherwise.map(quote).join(', ')} holds them, some only in a spelling no mapping format writes`);
  }
  return parts.length > 0 ? parts.join('; ') : `no v1 field holds the recorded values (${search.of} examined)`;
}

export function decideField(evidence: FieldEvidence): FieldVerdict {
  if (evidence.outsideView) return unexplained(evidence, 'the view of these methods does not write this field');
  const m = evidence.observations.length;
  if (m === 0) return unexplained(evidence, `no v1 record behind its calls could be read (${evidence.unpaired} records)`);
  const search = searchField(evidence.spec, evidence.observations, evidence.nulls);
  if (search.currentAgreeing === m) return { kind: 'explained' };
  const full = search.candidates.filter((c) => c.agreeing === m);
  const own = evidence.spec.derive ? undefined : (evidence.spec.from ?? evidence.spec.name);
  const ownInFormat = full.find((c) => c.field === own);
  if (ownInFormat) {
    return proposal(evidence, { kind: 'format', field: ownInFormat.field, from: evidence.spec.format ?? 'text', to: ownInFormat.format });
  }
  if (full.length === 1) return renameTo(evidence, full[0] as Candidate);
  if (full.length > 1) {
    return unexplained(evidence, `a tie: ${full.map((c) => quote(c.field)).join(', ')} each hold every recorded value (${m})`);
  }
  return defaultVerdict(evidence) ?? unexplained(evidence, whyUnexplained(search));
}
