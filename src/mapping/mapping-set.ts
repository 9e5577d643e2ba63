// Validates the whole set of mapping files at start-up (parsed data in, typed mappings out).
// Pure: reading the files is the loader's job. A bad set is refused with the file, the path inside it
// and the reason, so the gateway never starts with a half-understood mapping.
import { mappingSchema, type Mapping } from './schema.js';

export interface MappingSource {
  /** Where the data came from, for error messages (a file name). */
  file: string;
  data: unknown;
}

export class MappingSetError extends Error {
  override name = 'MappingSetError';
  constructor(readonly problems: Array<{ file: string; path: string; reason: string }>) {
    super(
      `invalid mappings:\n${problems.map((p) => `  ${p.file}: ${p.path || '(top level)'}: ${p.reason}`).join('\n')}`,
    );
  }
}

export type MappingSet = ReadonlyMap<string, Mapping>;

export function validateMappingSet(sources: readonly MappingSource[]): MappingSet {
  const problems: MappingSetError['problems'] = [];
  const byMethod = new Map<string, Mapping>();
  const fileOf = new Map<string, string>();
  for (const source of sources) {
    const parsed = mappingSchema.safeParse(source.data);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        problems.push({ file: source.file, path: issue.path.join('.'), reason: issue.message });
      }
      continue;
    }
    const mapping = parsed.data;
    const seen = new Set<string>();
    mapping.record.fields.forEach((f, i) => {
      if (seen.has(f.name)) problems.push({ file: source.file, path: `record.fields.${i}.name`, reason: `duplicate field "${f.name}"` });
      seen.add(f.name);
    });
    const earlier = fileOf.get(mapping.method);
    if (earlier) {
      problems.push({ file: source.file, path: 'method', reason: `method "${mapping.method}" is also mapped by ${earlier}` });
      continue;
    }
    fileOf.set(mapping.method, source.file);
    byMethod.set(mapping.method, mapping);
  }
  if (sources.length === 0) problems.push({ file: '(mappings directory)', path: '', reason: 'no mapping files found' });
  if (problems.length > 0) throw new MappingSetError(problems);
  return byMethod;
}
