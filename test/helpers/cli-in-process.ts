// `legacy-gateway ARGS` run in the test's own process: the command line the binary parses
// (src/commands/program.ts), the same command modules, with what it writes to stdout and stderr, its exit code
// and the environment it reads held to the call. For a test about a command's output and exit code: a node
// start per call costs more than the command itself. What only the binary shows (signals, a closed pipe, the
// exit of the process, its start-up lines) is tested by spawning `node dist/cli.js`.
// Calls run one at a time: they share the process's stdout, stderr, exit code and environment.
import { runCommandLine } from '../../src/commands/program.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

let queue: Promise<unknown> = Promise.resolve();

/** Runs the command with `env` as the whole environment (nothing inherited from the shell that runs the suite). */
export function runCli(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  const run = queue.then(() => runAlone(args, env));
  queue = run.catch(() => undefined);
  return run;
}

async function runAlone(args: string[], env: Record<string, string>): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const { write: writeOut } = process.stdout;
  const { write: writeErr } = process.stderr;
  const savedEnv = process.env;
  const savedCode = process.exitCode;
  const capture = (into: string[]) =>
    ((chunk: string | Uint8Array, ...rest: unknown[]): boolean => {
      into.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      const done = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
      done?.();
      return true;
    }) as typeof process.stdout.write;
  process.stdout.write = capture(out);
  process.stderr.write = capture(err);
  process.env = { PATH: savedEnv.PATH ?? '', ...env };
  process.exitCode = undefined;
  try {
    await runCommandLine([process.execPath, 'legacy-gateway', ...args]);
    return { code: Number(process.exitCode ?? 0), stdout: out.join(''), stderr: err.join('') };
  } finally {
    process.stdout.write = writeOut;
    process.stderr.write = writeErr;
    process.env = savedEnv;
    process.exitCode = savedCode;
  }
}
