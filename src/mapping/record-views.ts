// Resolves a record's named views into the ordered field lists a method's reply carries. Pure. A view that
// names an unknown field, repeats a field or runs a range backwards is reported with its path, never guessed at.
import { RANGE_MARK, type FieldOverride, type FieldSpec, type RecordFile, type ViewEntry } from './record-schema.js';

export interface RecordProblem {
  /** The path inside the record file, e.g. `views.team.3`. */
  path: string;
  reason: string;
}

export interface ResolvedRecordViews {
  /** Only the views that resolved without a problem. */
  views: ReadonlyMap<string, readonly FieldSpec[]>;
  problems: RecordProblem[];
}

interface ViewResult {
  fields: FieldSpec[];
  problems: RecordProblem[];
}

type EntryResult = { ok: true; fields: FieldSpec[] } | { ok: false; problem: RecordProblem };

function duplicateFields(fields: readonly FieldSpec[]): RecordProblem[] {
  const seen = new Set<string>();
  const problems: RecordProblem[] = [];
  fields.forEach((f, i) => {
    if (seen.has(f.name)) problems.push({ path: `fields.${i}.name`, reason: `duplicate field "${f.name}"` });
    seen.add(f.name);
  });
  return problems;
}

/** The record's spec with this view's overrides laid over it (only what the override states). */
function overridden(base: FieldSpec, override: FieldOverride): FieldSpec {
  const merged: FieldSpec = { ...base };
  for (const [key, value] of Object.entries(override)) {
    if (value !== undefined) Object.assign(merged, { [key]: value });
  }
  return merged;
}

function resolveEntry(entry: ViewEntry, fields: readonly FieldSpec[], path: string): EntryResult {
  const indexOf = (name: string): number => fields.findIndex((f) => f.name === name);
  if (typeof entry !== 'string') {
    const at = indexOf(entry.name);
    if (at < 0) return { ok: false, problem: { path: `${path}.name`, reason: `unknown field "${entry.name}"` } };
    const spec = overridden(fields[at]!, entry);
    if (spec.derive && spec.from) {
      return { ok: false, problem: { path, reason: 'a field is either derived or read `from` one v1 field, not both' } };
    }
    return { ok: true, fields: [spec] };
  }
  const cut = entry.indexOf(RANGE_MARK);
  if (cut < 0) {
    const at = indexOf(entry);
    return at < 0 ? { ok: false, problem: { path, reason: `unknown field "${entry}"` } } : { ok: true, fields: [fields[at]!] };
  }
  const first = entry.slice(0, cut).trim();
  const last = entry.slice(cut + RANGE_MARK.length).trim();
  const [from, to] = [indexOf(first), indexOf(last)];
  if (from < 0 || to < 0) return { ok: false, problem: { path, reason: `unknown field "${from < 0 ? first : last}"` } };
  if (from > to) return { ok: false, problem: { path, reason: `the range runs backwards: "${first}" comes after "${last}" in the record` } };
  return { ok: true, fields: fields.slice(from, to + 1) };
}

function resolveView(view: RecordFile['views'][string], fields: readonly FieldSpec[], path: string): ViewResult {
  if (view === 'all') return { fields: [...fields], problems: [] };
  const out: FieldSpec[] = [];
  const problems: RecordProblem[] = [];
  view.forEach((entry, i) => {
    const result = resolveEntry(entry, fields, `${path}.${i}`);
    if (!result.ok) {
      problems.push(result.problem);
      return;
    }
    for (const f of result.fields) {
      if (out.some((o) => o.name === f.name)) problems.push({ path: `${path}.${i}`, reason: `field "${f.name}" is already in this view` });
      else out.push(f);
    }
  });
  return { fields: out, problems };
}

/** Checks the record's own field list, then resolves every view against it. */
export function resolveRecordViews(record: RecordFile): ResolvedRecordViews {
  const problems = duplicateFields(record.fields);
  const views = new Map<string, readonly FieldSpec[]>();
  if (problems.length > 0) return { views, problems };
  for (const [name, view] of Object.entries(record.views)) {
    const resolved = resolveView(view, record.fields, `views.${name}`);
    if (resolved.problems.length > 0) problems.push(...resolved.problems);
    else views.set(name, resolved.fields);
  }
  return { views, problems };
}
