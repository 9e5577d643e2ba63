// Starting and stopping the bench's server processes: each runs on loopback, is killed by Node after
// its lifetime whatever happens (spawn `timeout`), and reports its peak resident memory (VmHWM, Linux).
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';
import net from 'node:net';
import { createInterface } from 'node:readline';

export interface BenchProcess {
  name: string;
  port: number;
  url: string;
  child: ChildProcess;
  /** Peak resident set size so far, in MB (undefined where /proc is not available). */
  peakRssMb(): number | undefined;
  /** CPU time (user + system) used so far, in seconds (undefined where /proc is not available). */
  cpuSeconds(): number | undefined;
  /** Where a target is served by more than one process (nginx and the gateway behind it): each one's CPU seconds. */
  cpuParts?(): Record<string, number | undefined>;
  stop(): Promise<void>;
}

export function peakRssMb(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1];
    return kb === undefined ? undefined : Number(kb) / 1024;
  } catch {
    return undefined;
  }
}

/** Clock ticks per second of /proc/<pid>/stat times: 100 on every Linux the bench runs on (USER_HZ). */
const USER_HZ = 100;

export function cpuSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    // Fields after the parenthesised command name: state is field 3, utime 14 and stime 15.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / USER_HZ;
  } catch {
    return undefined;
  }
}

function wrap(name: string, child: ChildProcess, port: number): BenchProcess {
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  return {
    name,
    port,
    url: `http://127.0.0.1:${port}`,
    child,
    peakRssMb: () => peakRssMb(child.pid),
    cpuSeconds: () => cpuSeconds(child.pid),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** A bench child server (dist/bench/*.js) that prints `READY <port>`. */
export async function startChild(name: string, script: string, args: string[], lifetimeS: number): Promise<BenchProcess> {
  const child = spawn(process.execPath, [script, ...args, '--lifetime', String(lifetimeS)], {
    stdio: ['ignore', 'pipe', 'inherit'],
    timeout: (lifetimeS + 5) * 1000,
  });
  const lines = createInterface({ input: child.stdout! });
  const port = await new Promise<number>((resolve, reject) => {
    lines.once('line', (line) => {
      const m = /^READY (\d+)$/.exec(line);
      if (m) resolve(Number(m[1]));
      else reject(new Error(`${name}: unexpected first line ${line}`));
    });
    child.once('exit', (code) => reject(new Error(`${name} exited with ${String(code)} before it was ready`)));
  });
  return wrap(name, child, port);
}

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** How to start one gateway process: which Node, with which flags and environment. */
export interface GatewayLaunch {
  cli: string;
  env: Record<string, string>;
  nodeArgs: string[];
  lifetimeS: number;
  /** The Node binary; the bench's own by default. */
  node?: string;
}

/** The real gateway: `node [nodeArgs] dist/cli.js serve`, logs to /dev/null, ready when /healthz answers. */
export async function startGateway(name: string, launch: GatewayLaunch): Promise<BenchProcess> {
  const { cli, env, nodeArgs, lifetimeS } = launch;
  const port = await freePort();
  const child = spawn(launch.node ?? process.execPath, [...nodeArgs, cli, 'serve'], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port), HOST: '127.0.0.1', ...env },
    stdio: ['ignore', openSync('/dev/null', 'w'), 'inherit'],
    timeout: (lifetimeS + 5) * 1000,
  });
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode} at start`);
    const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok, () => false);
    if (ok) break;
    if (Date.now() - started > 15_000) throw new Error(`${name} did not start within 15 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return wrap(name, child, port);
}
