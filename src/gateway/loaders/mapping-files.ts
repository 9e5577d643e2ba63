// Reads every mapping file (*.yaml, *.yml, *.json) of a directory and validates them: the read methods
// as one set (src/mapping), the payment flow's file on its own (src/payment). The only file I/O of the
// mappings; it runs once at start-up, never per request.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { MappingSetError, validateMappingSet, type MappingSet, type MappingSource } from '../../mapping/mapping-set.js';
import { paymentMappingSchema, type PaymentMapping } from '../../payment/payment-mapping.js';

export interface MappingDirectory {
  reads: MappingSet;
  /** mappings/payment.yaml; undefined when the directory has none. */
  payment: PaymentMapping | undefined;
}

const isPaymentFile = (data: unknown): boolean =>
  typeof data === 'object' && data !== null && (data as { kind?: unknown }).kind === 'payment';

export async function loadMappingDirectory(dir: string): Promise<MappingDirectory> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => /\.(ya?ml|json)$/i.test(n)).sort();
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'directory not found' : 'directory cannot be read';
    throw new MappingSetError([{ file: dir, path: '', reason }]);
  }
  const sources: MappingSource[] = [];
  const problems: MappingSetError['problems'] = [];
  let payment: PaymentMapping | undefined;
  for (const name of names) {
    let data: unknown;
    try {
      const text = await readFile(path.join(dir, name), 'utf8');
      data = name.endsWith('.json') ? JSON.parse(text) : parseYaml(text, { uniqueKeys: true });
    } catch (err) {
      problems.push({ file: name, path: '', reason: `not readable as ${name.endsWith('.json') ? 'JSON' : 'YAML'}: ${(err as Error).message.split('\n')[0]}` });
      continue;
    }
    if (!isPaymentFile(data)) {
      sources.push({ file: name, data });
      continue;
    }
    const parsed = paymentMappingSchema.safeParse(data);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) problems.push({ file: name, path: issue.path.join('.'), reason: issue.message });
    } else if (payment) {
      problems.push({ file: name, path: 'kind', reason: 'a second payment mapping' });
    } else {
      payment = parsed.data;
    }
  }
  if (problems.length > 0) throw new MappingSetError(problems);
  return { reads: validateMappingSet(sources), payment };
}

/** The read-method mappings only (coverage, tests). */
export async function loadMappingFiles(dir: string): Promise<MappingSet> {
  return (await loadMappingDirectory(dir)).reads;
}
