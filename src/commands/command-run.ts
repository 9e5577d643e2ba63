// What the commands that report to an operator (usage, brownout, notices, retire-check, migration-guide,
// payments) share: their usage error and how it ends a run (one line on stderr, `legacy-gateway NAME: ...`,
// and its exit code: 1 a problem found, 2 a usage or input error; docs/cli.md: exit codes), the I/O they are
// handed (the process's, or a test's), and the files they read as the gateway reads them, a file the gateway
// would refuse being a usage error with the gateway's own words.
import { loadMappingDirectory, type MappingDirectory } from '../gateway/loaders/mapping-files.js';
import { StaticFileError } from '../gateway/loaders/static-records.js';
import { MappingSetError, problemPhrase } from '../mapping/mapping-set.js';

export type Environment = Readonly<Record<string, string | undefined>>;

export class UsageError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2,
  ) {
    super(message);
  }
}

/** What a command writes to and reads from: the process's own, or a test's. */
export interface CommandIo {
  out: (text: string) => void;
  err: (text: string) => void;
  fetch: typeof fetch;
  /** The moment the command judges at. */
  now: () => number;
}

export const processIo: CommandIo = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  fetch: (...args) => fetch(...args),
  now: () => Date.now(),
};

/** Runs a command's work: a number it returns is the exit code; a UsageError is its line on stderr and its
 * exit code; anything else is a fault, thrown on. */
export async function runReporting(command: string, io: Pick<CommandIo, 'err'>, work: () => Promise<number | void>): Promise<void> {
  try {
    const code = await work();
    if (code !== undefined) process.exitCode = code;
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.err(`legacy-gateway ${command}: ${err.message}\n`);
    process.exitCode = err.exitCode;
  }
}

/** Mappings that cannot be loaded, in one line: `the mappings in DIR cannot be loaded: a.yaml: path: reason; ...`. */
export function mappingsRefusal(dir: string, err: MappingSetError): string {
  return `the mappings in ${dir} cannot be loaded: ${err.problems.map(problemPhrase).join('; ')}`;
}

/** A mappings directory as the gateway loads it; one it would refuse is a usage error (exit 2). */
export async function loadCommandMappings(dir: string): Promise<MappingDirectory> {
  try {
    return await loadMappingDirectory(dir);
  } catch (err) {
    if (!(err instanceof MappingSetError)) throw err;
    throw new UsageError(mappingsRefusal(dir, err), 2);
  }
}

/** The legacy read methods a mappings directory serves (what a brownout window may name). */
export async function readMethodsOf(dir: string): Promise<ReadonlySet<string>> {
  return new Set((await loadCommandMappings(dir)).reads.keys());
}

/** An operator's file read as the gateway reads it (INTEGRATIONS_FILE, BROWNOUTS_FILE); one it would refuse is a
 * usage error (exit 2) with the gateway's own line, after `flag` when the command names the file by one. */
export function asTheGatewayReadsIt<T>(read: () => T, flag?: string): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof StaticFileError) throw new UsageError(flag === undefined ? err.message : `${flag}: ${err.message}`, 2);
    throw err;
  }
}
