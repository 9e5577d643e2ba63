// A real redis-server for a test (Debian's package; .ci/run installs it): started on a free loopback
// port with its own folder and pid file, persistence off, and stopped by its pid. It can be stopped and
// started again on the same address, as an outage and a recovery look to the gateway.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';

const BINARY = ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find((p) => existsSync(p));

export interface TestRedis {
  /** redis://127.0.0.1:PORT */
  url: string;
  port: number;
  /** Stops the server (SIGTERM to its pid) and waits for it to exit; its data is gone (no persistence). */
  stop(): Promise<void>;
  /** Starts it again on the same port. */
  start(): Promise<void>;
  /** Stops it for good and removes its folder. */
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function launch(port: number, dir: string, extra: readonly string[]): Promise<ChildProcess> {
  if (!BINARY) throw new Error('redis-server is not installed (Debian: apt-get install redis-server; .ci/run installs it)');
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--pidfile', path.join(dir, 'redis.pid'), '--daemonize', 'no', ...extra];
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

/** Starts a redis-server; `extra` are more command-line settings (e.g. ['--maxmemory-policy', 'allkeys-lru']). */
export async function startTestRedis(extra: readonly string[] = []): Promise<TestRedis> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lgw-redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined = await launch(port, dir, extra);
  const stop = async (): Promise<void> => {
    if (!child) return;
    const running = child;
    child = undefined;
    const pidFile = path.join(dir, 'redis.pid');
    const pid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').trim()) : running.pid;
    const exited = once(running, 'exit');
    if (pid !== undefined) process.kill(pid, 'SIGTERM');
    await exited;
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop,
    async start() {
      if (!child) child = await launch(port, dir, extra);
    },
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
