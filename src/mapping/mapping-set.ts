// Validates the whole set of mapping files at start-up (parsed data in, typed mappings out): the record files
// with their views, then the method files, each resolved to the fields of the record view it names.
// Pure: reading the files is the loader's job. A bad set is refused with the file, the path inside it
// and the reason, so the gateway never starts with a half-understood mapping.
import { expectation } from '../shared/issue-text.js';
import { fileIssues } from './file-issues.js';
import { recordFileSchema, recordName, type FieldSpec, type RecordFile } from './record-schema.js';
import { resolveRecordViews } from './record-views.js';
import { methodFileSchema, type Mapping, type MethodFile } from './schema.js';

export interface MappingSource {
  /** Where the data came from, for error messages (a file name, `records/<record>.yaml` for a record). */
  file: string;
  data: unknown;
}

export interface RecordSource extends MappingSource {
  /** The record's name, as method files name it: its file name without the extension. */
  name: string;
}

export interface MappingSources {
  /** mappings/records/*: each legacy record described once. */
  records: readonly RecordSource[];
  /** mappings/*: one file per legacy read method. */
  methods: readonly MappingSource[];
}

export type MappingProblem = { file: string; path: string; reason: string };

/** A problem as one phrase: `staff.yaml: paging.max: reason` (`(top level)` when it is about the whole file). */
export const problemPhrase = (p: MappingProblem): string => `${p.file}: ${p.path || '(top level)'}: ${p.reason}`;

export class MappingSetError extends Error {
  override name = 'MappingSetError';
  constructor(readonly problems: MappingProblem[]) {
    super(`invalid mappings:\n${problems.map((p) => `  ${problemPhrase(p)}`).join('\n')}`);
  }
}

export type MappingSet = ReadonlyMap<string, Mapping>;

interface KnownRecord {
  nulls: RecordFile['nulls'];
  /** Every view the file declares, resolved or not (so a broken view is not also called unknown). */
  declared: string[];
  /** The views that resolved. */
  views: ReadonlyMap<string, readonly FieldSpec[]>;
}

/** Record name -> its views; `undefined` for a record whose file is itself invalid (already reported). */
type RecordIndex = Map<string, KnownRecord | undefined>;

function issuesOf(file: string, issues: Parameters<typeof fileIssues>[0], data: unknown): MappingProblem[] {
  return fileIssues(issues, data).map((issue) => ({ file, ...issue }));
}

function indexRecords(sources: readonly RecordSource[], problems: MappingProblem[]): RecordIndex {
  const index: RecordIndex = new Map();
  const fileOf = new Map<string, string>();
  for (const source of sources) {
    const earlier = fileOf.get(source.name);
    if (earlier) {
      problems.push({ file: source.file, path: '', reason: `record "${source.name}" is also described by ${earlier}` });
      continue;
    }
    fileOf.set(source.name, source.file);
    if (!recordName.safeParse(source.name).success) {
      problems.push({ file: source.file, path: '', reason: 'a record file name must be lower-case letters, digits, - and _' });
      continue;
    }
    const parsed = recordFileSchema.safeParse(source.data, { error: expectation });
    if (!parsed.success) {
      problems.push(...issuesOf(source.file, parsed.error.issues, source.data));
      index.set(source.name, undefined);
      continue;
    }
    const resolved = resolveRecordViews(parsed.data);
    problems.push(...resolved.problems.map((p) => ({ file: source.file, ...p })));
    index.set(source.name, { nulls: parsed.data.nulls, declared: Object.keys(parsed.data.views), views: resolved.views });
  }
  return index;
}

/** The method's record view as the engine reads it; undefined (and a problem, unless already reported) if none. */
function resolveRecord(method: MethodFile, file: string, records: RecordIndex, problems: MappingProblem[]): Mapping['record'] | undefined {
  if (!records.has(method.record)) {
    const known = [...records.keys()].sort().join(', ') || 'none';
    problems.push({ file, path: 'record', reason: `unknown record "${method.record}" (records: ${known})` });
    return undefined;
  }
  const record = records.get(method.record);
  if (!record) return undefined;
  const fields = record.views.get(method.view);
  // Each method gets its own copy: methods sharing a record never share a spec object.
  if (fields) return { name: method.record, view: method.view, nulls: record.nulls, fields: structuredClone([...fields]) };
  if (!record.declared.includes(method.view)) {
    const reason = `record "${method.record}" has no view "${method.view}" (its views: ${record.declared.join(', ')})`;
    problems.push({ file, path: 'view', reason });
  }
  return undefined;
}

/** The method file with its record resolved; the rest of the file is kept as it is. */
function withRecord(method: MethodFile, record: Mapping['record']): Mapping {
  const { record: _name, view: _view, ...rest } = method;
  return { ...rest, record };
}

export function validateMappingSet(sources: MappingSources): MappingSet {
  const problems: MappingProblem[] = [];
  const records = indexRecords(sources.records, problems);
  const byMethod = new Map<string, Mapping>();
  const fileOf = new Map<string, string>();
  for (const source of sources.methods) {
    const parsed = methodFileSchema.safeParse(source.data, { error: expectation });
    if (!parsed.success) {
      problems.push(...issuesOf(source.file, parsed.error.issues, source.data));
      continue;
    }
    const method = parsed.data;
    const earlier = fileOf.get(method.method);
    if (earlier) {
      problems.push({ file: source.file, path: 'method', reason: `method "${method.method}" is also mapped by ${earlier}` });
      continue;
    }
    fileOf.set(method.method, source.file);
    const record = resolveRecord(method, source.file, records, problems);
    if (record) byMethod.set(method.method, withRecord(method, record));
  }
  if (sources.methods.length === 0) problems.push({ file: '(mappings directory)', path: '', reason: 'no mapping files found' });
  if (problems.length > 0) throw new MappingSetError(problems);
  return byMethod;
}
