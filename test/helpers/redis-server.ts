// A real redis-server for a test (Debian's package; .ci/run installs it): started on a free loopback
// port with its own folder and pid file, and stopped by its pid. By default it keeps an append-only file
// (fsync on every write), as a Redis trusted with payment claims must; `persistence: 'none'` starts one
// that forgets everything when it stops. It can be stopped and started again on the same address, as an
// outage and a recovery look to the gateway.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './free-port.js';
import { createInterface } from 'node:readline';

const BINARY = ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find((p) => existsSync(p));

export interface TestRedis {
  /** redis://127.0.0.1:PORT */
  url: string;
  port: number;
  /** Stops the server (SIGTERM to its pid) and waits for it to exit; with `persistence: 'none'` its data is gone. */
  stop(): Promise<void>;
  /** SIGKILL to its pid: a crash. */
  kill(): Promise<void>;
  /** SIGSTOP / SIGCONT: a server that holds its connections and answers nothing (a stalled replica). */
  pause(): void;
  resume(): void;
  /** Starts it again on the same port. */
  start(): Promise<void>;
  /** Stops it for good and removes its folder. */
  close(): Promise<void>;
}


export interface TestRedisOptions {
  /** 'aof' (default): an append-only file, fsync on every write; 'none': nothing kept across a restart. */
  persistence?: 'aof' | 'none';
  /** More command-line settings (e.g. ['--maxmemory-policy', 'allkeys-lru'], ['--replicaof', ...]). */
  extra?: readonly string[];
}

async function launch(port: number, dir: string, options: TestRedisOptions): Promise<ChildProcess> {
  if (!BINARY) throw new Error('redis-server is not installed (Debian: apt-get install redis-server; .ci/run installs it)');
  const persistence = options.persistence === 'none' ? ['--appendonly', 'no'] : ['--appendonly', 'yes', '--appendfsync', 'always'];
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...persistence, '--dir', dir, '--pidfile', path.join(dir, 'redis.pid'), '--daemonize', 'no', ...(options.extra ?? [])];
  const child = spawn(BINARY, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  await new Promise<void>((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`redis-server exited (${String(code)}) before it was ready`));
    child.once('exit', onExit);
    lines.on('line', (line) => {
      if (!line.includes('Ready to accept connections')) return;
      child.off('exit', onExit);
      resolve();
    });
  });
  lines.on('line', () => undefined); // keep draining its log
  return child;
}

/** Starts a redis-server (an array: more command-line settings, kept for the callers that pass only those). */
export async function startTestRedis(options: TestRedisOptions | readonly string[] = {}): Promise<TestRedis> {
  const settings: TestRedisOptions = Array.isArray(options) ? { extra: options as readonly string[] } : (options as TestRedisOptions);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lgw-redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined = await launch(port, dir, settings);
  const signal = async (name: NodeJS.Signals): Promise<void> => {
    if (!child) return;
    const running = child;
    child = undefined;
    const pidFile = path.join(dir, 'redis.pid');
    const pid = name === 'SIGTERM' && existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').trim()) : running.pid;
    const exited = once(running, 'exit');
    if (pid !== undefined) process.kill(pid, name);
    await exited;
  };
  const stop = () => signal('SIGTERM');
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop,
    kill: () => signal('SIGKILL'),
    pause: () => void (child?.pid !== undefined && process.kill(child.pid, 'SIGSTOP')),
    resume: () => void (child?.pid !== undefined && process.kill(child.pid, 'SIGCONT')),
    async start() {
      if (!child) child = await launch(port, dir, settings);
    },
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
