// What `replay --propose-mappings` concludes about one legacy field of one record: an edit of its mapping
// backed by the v1 records behind the replayed calls, or no consistent source (unexplained), with the values
// seen. The JSON report's `proposals` and `unexplained` arrays are these, as they are.
// Pure data: no I/O. Values shown here come from redacted report entries only, never from a recording.
import type { JsonValue } from '../../shared/json-exact.js';
import type { ValueFormat } from '../../mapping/legacy-value.js';

/** Read the legacy field from another v1 field (and, when `format` is given, write it in that format). */
export interface RenameEdit {
  kind: 'rename';
  /** What the field reads now: its v1 field, or the `{field}` template of a derived field. */
  from: string;
  /** The v1 field that holds the recorded values. */
  to: string;
  /** Present when the format changes too. */
  format?: ValueFormat;
  /** Places in method files that named the old v1 field and follow the rename (sort keys, lookup matches):
   * `meetourteam.yaml: sort.1.field`. Only when the old field is absent from every v1 record read. */
  alsoIn?: string[];
}

/** The same v1 field, written in another format (`01:00:00` -> `01:00`: hhmm). */
export interface FormatEdit {
  kind: 'format';
  field: string;
  from: ValueFormat;
  to: ValueFormat;
}

/** v1 has no such field in any record read, and the legacy field held one value on every record. */
export interface DefaultEdit {
  kind: 'default';
  value: string;
  /** The default the field had, when it had one. */
  previous?: string | null;
}

export type ProposedEdit = RenameEdit | FormatEdit | DefaultEdit;

export interface ProposalEvidence {
  /** Records whose recorded value the edit writes exactly. */
  agreeing: number;
  /** Records examined: every record of every entry where the field differed, with its v1 record read. */
  of: number;
  /** Indexes of the entries those records came from. */
  entries: number[];
}

export interface Proposal {
  /** The record file's name (`practitioner` for mappings/records/practitioner.yaml). */
  record: string;
  legacyField: string;
  edit: ProposedEdit;
  evidence: ProposalEvidence;
  /** Every legacy method whose reply carries the field: the edit applies to all of them. */
  methods: string[];
}

/** One difference of the field, as the report entry shows it (redacted). */
export interface SeenValue {
  entry: number;
  recorded?: JsonValue;
  gateway?: JsonValue;
}

export interface Unexplained {
  record: string;
  legacyField: string;
  methods: string[];
  /** The field's differences, in file order (the first MAX_SEEN_VALUES). */
  values: SeenValue[];
  /** Why no edit is proposed: no v1 field holds the values, a share only, a tie, another spelling... */
  reason: string;
}

/** Differences kept per unexplained field: enough to see the pattern; the JSON report's entries hold all. */
export const MAX_SEEN_VALUES = 20;

export interface ProposalOutcome {
  proposals: Proposal[];
  unexplained: Unexplained[];
}
