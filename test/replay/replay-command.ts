// `legacy-gateway replay` as the replay tests run it: the command in this process, its stdout and stderr
// captured, its exit code returned. Each test file passes the options and environment it is about.
import { runReplayCommand } from '../../src/replay/run/run-command.js';
import { replayGateway } from '../../src/commands/replay-gateway.js';

export interface ReplayRun {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runReplayCaptured(file: string, options: Record<string, unknown>, env: NodeJS.ProcessEnv = {}): Promise<ReplayRun> {
  let stdout = '';
  let stderr = '';
  const io = { stdout: { write: (t: string) => (stdout += t) }, stderr: { write: (t: string) => (stderr += t) }, env };
  const code = await runReplayCommand(file, options, io, replayGateway);
  return { code, stdout, stderr };
}
