// Reads a mappings directory (one file per legacy method, *.yaml, *.yml or *.json, and records/ with each legacy
// record once) and validates it: the read methods and their records as one set (src/mapping), the payment flow's
// file on its own (src/payment). The only file I/O of the mappings; it runs once at start-up, never per request.
import { createHash, type Hash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import {
  MappingSetError,
  validateMappingSet,
  type MappingProblem,
  type MappingSet,
  type MappingSource,
  type RecordSource,
} from '../../mapping/mapping-set.js';
import { fileIssues } from '../../mapping/file-issues.js';
import { paymentMappingSchema, type PaymentMapping } from '../../payment/payment-mapping.js';
import { expectation } from '../../shared/issue-text.js';

export interface MappingDirectory {
  reads: MappingSet;
  /** mappings/payment.yaml; undefined when the directory has none. */
  payment: PaymentMapping | undefined;
  /** A short SHA-256 (12 hex digits) of every file read, names and bytes: two replicas with the same digest
   * serve the same set (`legacy_gateway_mappings_info`). */
  digest: string;
}

/** The records' folder inside a mappings directory. */
const RECORDS = 'records';
const MAPPING_FILE = /\.(ya?ml|json)$/i;

const isPaymentFile = (data: unknown): boolean =>
  typeof data === 'object' && data !== null && (data as { kind?: unknown }).kind === 'payment';

/** The mapping files of one folder, sorted; a missing records/ folder holds none. */
function mappingFileNames(dir: string, shownAs: string, mayBeMissing: boolean): string[] {
  try {
    return readdirSync(dir).filter((n) => MAPPING_FILE.test(n)).sort();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && mayBeMissing) return [];
    throw new MappingSetError([{ file: shownAs, path: '', reason: code === 'ENOENT' ? 'directory not found' : 'directory cannot be read' }]);
  }
}

/** One file's parsed data, or the problem that stops it being read; its name and bytes go into `digest`. */
function readMappingFile(filePath: string, shownAs: string, digest: Hash): { data: unknown } | { problem: MappingProblem } {
  const json = shownAs.toLowerCase().endsWith('.json');
  try {
    const bytes = readFileSync(filePath);
    digest.update(`${shownAs}\0${bytes.length}\0`).update(bytes);
    const text = bytes.toString('utf8');
    return { data: json ? JSON.parse(text) : parseYaml(text, { uniqueKeys: true }) };
  } catch (err) {
    const reason = `not readable as ${json ? 'JSON' : 'YAML'}: ${(err as Error).message.split('\n')[0]}`;
    return { problem: { file: shownAs, path: '', reason } };
  }
}

function readRecords(dir: string, problems: MappingProblem[], digest: Hash): RecordSource[] {
  const records: RecordSource[] = [];
  for (const name of mappingFileNames(path.join(dir, RECORDS), `${RECORDS}/`, true)) {
    const file = `${RECORDS}/${name}`;
    const read = readMappingFile(path.join(dir, RECORDS, name), file, digest);
    if ('problem' in read) problems.push(read.problem);
    else records.push({ file, name: name.replace(MAPPING_FILE, ''), data: read.data });
  }
  return records;
}

function readPayment(name: string, data: unknown, earlier: PaymentMapping | undefined, problems: MappingProblem[]): PaymentMapping | undefined {
  const parsed = paymentMappingSchema.safeParse(data, { error: expectation });
  if (!parsed.success) {
    problems.push(...fileIssues(parsed.error.issues, data).map((issue) => ({ file: name, ...issue })));
    return earlier;
  }
  if (earlier) {
    problems.push({ file: name, path: 'kind', reason: 'a second payment mapping' });
    return earlier;
  }
  return parsed.data;
}

/** Blocks while it reads the directory: at start, and at a reload (SIGHUP), never per request. */
export function loadMappingDirectorySync(dir: string): MappingDirectory {
  const names = mappingFileNames(dir, dir, false);
  const problems: MappingProblem[] = [];
  const digest = createHash('sha256');
  const records = readRecords(dir, problems, digest);
  const methods: MappingSource[] = [];
  let payment: PaymentMapping | undefined;
  for (const name of names) {
    const read = readMappingFile(path.join(dir, name), name, digest);
    if ('problem' in read) problems.push(read.problem);
    else if (isPaymentFile(read.data)) payment = readPayment(name, read.data, payment, problems);
    else methods.push({ file: name, data: read.data });
  }
  if (problems.length > 0) throw new MappingSetError(problems);
  return { reads: validateMappingSet({ records, methods }), payment, digest: digest.digest('hex').slice(0, 12) };
}

export async function loadMappingDirectory(dir: string): Promise<MappingDirectory> {
  return loadMappingDirectorySync(dir);
}

/** The read-method mappings only (coverage, tests). */
export async function loadMappingFiles(dir: string): Promise<MappingSet> {
  return (await loadMappingDirectory(dir)).reads;
}
