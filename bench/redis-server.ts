// The bench's own redis-server (Debian's binary), for the rows that run the gateway with REDIS_URL: a free
// loopback port, persistence off (`--save '' --appendonly no`), its own folder and pid file, killed by its
// spawn deadline whatever happens and otherwise stopped by its pid. Its per-command call counts (INFO
// commandstats) show what the gateway asked of it during a measured run.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { freePort, peakRssMb } from './processes.js';

const BINARIES = ['/usr/bin/redis-server', '/usr/local/bin/redis-server'];

export interface BenchRedis {
  /** redis://127.0.0.1:PORT */
  url: string;
  version: string;
  /** Calls per Redis command name so far (INFO commandstats), the bench's own INFO and FLUSHALL excluded. */
  commandCalls(): Promise<Map<string, number>>;
  /** Empties it (FLUSHALL), so that every gateway run starts from the same state. */
  flush(): Promise<void>;
  peakRssMb(): number | undefined;
  stop(): Promise<void>;
}

/** Where redis-server is installed, or undefined. */
export const redisServerBinary = (): string | undefined => BINARIES.find((p) => existsSync(p));

/** One command over a fresh connection; its reply as text (a simple or bulk string: all the bench needs). */
async function command(port: number, args: string[]): Promise<string> {
  const socket = net.connect(port, '127.0.0.1');
  socket.write(`*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`);
  let received = Buffer.alloc(0);
  try {
    for await (const chunk of socket) {
      received = Buffer.concat([received, chunk as Buffer]);
      const end = received.indexOf('\r\n');
      if (end < 0) continue;
      const first = received.subarray(0, end).toString();
      if (first.startsWith('+')) return first.slice(1);
      if (!first.startsWith('$')) throw new Error(`redis-server answered ${args[0]} with ${first}`);
      const length = Number(first.slice(1));
      if (received.length >= end + 2 + length) return received.subarray(end + 2, end + 2 + length).toString();
    }
    throw new Error('redis-server closed the connection before its reply');
  } finally {
    socket.destroy();
  }
}

export async function startBenchRedis(binary: string, lifetimeS: number): Promise<BenchRedis> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lgw-bench-redis-'));
  const port = await freePort();
  const pidFile = path.join(dir, 'redis.pid');
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--pidfile', pidFile, '--daemonize', 'no'];
  const child: ChildProcess = spawn(binary, args, { stdio: ['ignore', 'pipe', 'inherit'], timeout: (lifetimeS + 5) * 1000 });
  const exited = once(child, 'exit').catch(() => undefined);
  const lines = createInterface({ input: child.stdout! });
  try {
    await new Promise<void>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`redis-server exited (${String(code)}) before it was ready`));
      child.once('exit', onExit);
      lines.on('line', (line) => {
        if (!line.includes('Ready to accept connections')) return;
        child.off('exit', onExit);
        resolve();
      });
    });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  lines.on('line', () => undefined); // keep draining its log
  const info = async (section: string) => command(port, ['INFO', section]);
  const version = /^redis_version:(\S+)/m.exec(await info('server'))?.[1] ?? 'unknown';
  return {
    url: `redis://127.0.0.1:${port}`,
    version,
    async commandCalls() {
      const calls = new Map<string, number>();
      for (const m of (await info('commandstats')).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
        if (m[1] !== 'info' && m[1] !== 'flushall') calls.set(m[1]!, Number(m[2]));
      }
      return calls;
    },
    async flush() {
      await command(port, ['FLUSHALL']);
    },
    peakRssMb: () => peakRssMb(child.pid),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const pid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').trim()) : child.pid;
        if (pid !== undefined && pid > 0) process.kill(pid, 'SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
