// A gateway as an operator runs it: `node dist/cli.js serve` in a process of its own, with only the
// environment a test gives it, listening on a free loopback port. Its log lines are kept; it is stopped
// by a signal (SIGTERM drains, SIGKILL is a crash). `until` waits for a condition a test cannot await as
// an event (a process's view of another server), bounded in time.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(root, 'dist/cli.js');

/** Every process started here that may still run: killed when the test file's process exits, so a test that
 * failed (or timed out) before stopping its gateway leaves none behind. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

function spawnServe(env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, [cli, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}

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
  const child = spawnServe({ PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', HOST: '127.0.0.1', PORT: '0', UPSTREAM_URL: upstreamUrl, ...env });
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
  const child = spawnServe({ PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', HOST: '127.0.0.1', PORT: '0', UPSTREAM_URL: upstreamUrl, ...env });
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

/** The sum of a metric's samples (every label) from the gateway's /metrics (METRICS_PORT must be set). */
export async function metricSum(gateway: GatewayProcess, name: string): Promise<number> {
  const text = await (await fetch(gateway.metricsUrl!)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))
    .reduce((sum, l) => sum + Number(l.split(' ').at(-1)), 0);
}

/** The test's fake v1, as a hung-up payment needs it: how many payment POSTs it received, and a way to
 * let it answer the POSTs it holds. */
export interface HeldPayments {
  posts(): number;
  hold(): void;
  release(): void;
}

/**
 * A payment whose caller gives up (closes its connection) once v1 has its POST, held; then v1 answers it.
 * Resolves once the gateway has answered it (its payments metric moved): its reply never reached a caller.
 */
export async function payAndHangUp(gateway: GatewayProcess, fields: Record<string, string>, headers: Record<string, string>, v1: HeldPayments): Promise<void> {
  v1.hold();
  const before = v1.posts();
  const logged = () => gateway.lines.filter((l) => l.includes('"url":"/api/payment"')).length;
  const loggedBefore = logged();
  const body = new URLSearchParams(fields).toString();
  const req = http.request(`${gateway.url}/api/payment`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) },
  });
  req.on('error', () => undefined);
  req.end(body);
  await until('the payment POST at v1', () => v1.posts() === before + 1);
  const answeredBefore = await metricSum(gateway, 'legacy_gateway_payments_total');
  req.destroy();
  // The gateway notices the closed connection before v1 answers: its log line for the call is written then.
  await until('the gateway saw the caller leave', () => logged() > loggedBefore);
  v1.release();
  await until('the first payment answered', async () => (await metricSum(gateway, 'legacy_gateway_payments_total')) > answeredBefore);
}
