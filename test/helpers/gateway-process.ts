// A gateway as an operator runs it: `node dist/cli.js serve` in a process of its own, with only the
// environment a test gives it, listening on a free loopback port. Its log lines are kept; it is stopped
// by a signal (SIGTERM drains, SIGKILL is a crash). `until` waits for a condition a test cannot await as
// an event (a process's view of another server), bounded in time.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(root, 'dist/cli.js');

export interface GatewayProcess {
  url: string;
  /** http://127.0.0.1:PORT/metrics when METRICS_PORT is set. */
  metricsUrl: string | undefined;
  child: ChildProcess;
  /** Every line it wrote, stdout and stderr. */
  lines: string[];
  /** SIGTERM (a drain), or SIGKILL (the process dies), and wait for it to exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts `serve` against `upstreamUrl`; rejects with its output when it exits before listening. */
export async function startGatewayProcess(upstreamUrl: string, env: Record<string, string> = {}): Promise<GatewayProcess> {
  const child = spawn(process.execPath, [cli, 'serve'], {
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', HOST: '127.0.0.1', PORT: '0', UPSTREAM_URL: upstreamUrl, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  createInterface({ input: child.stderr! }).on('line', (line) => lines.push(line));
  const { port, metricsPort } = await new Promise<{ port: number; metricsPort?: number }>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      lines.push(line);
      if (line.includes('"msg":"legacy-gateway listening"')) resolve(JSON.parse(line) as { port: number; metricsPort?: number });
    });
    child.once('exit', (code) => reject(new Error(`exited with ${String(code)} before listening:\n${lines.join('\n')}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    metricsUrl: metricsPort === undefined ? undefined : `http://127.0.0.1:${metricsPort}/metrics`,
    child,
    lines,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill(signal);
      await exited;
    },
  };
}

/** Runs `serve` to its exit (a start that is refused): its exit code and what it wrote. */
export async function runGatewayProcess(upstreamUrl: string, env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [cli, 'serve'], {
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', HOST: '127.0.0.1', PORT: '0', UPSTREAM_URL: upstreamUrl, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const chunks: Buffer[] = [];
  child.stdout!.on('data', (c: Buffer) => chunks.push(c));
  child.stderr!.on('data', (c: Buffer) => chunks.push(c));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, output: Buffer.concat(chunks).toString('utf8') };
}

/** Waits until `condition` holds, checking every 50 ms, for at most `ms`. */
export async function until(what: string, condition: () => Promise<boolean> | boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
