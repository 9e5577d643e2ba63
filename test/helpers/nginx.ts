// A real nginx for a test (Debian's package; .ci/run installs it): the generated server block is included
// from an `http {}` written around it, in a folder of its own that is its prefix (pid file, error and access
// logs, temporary files), started in the foreground on a free loopback port and stopped by its pid. It never
// reads /etc/nginx and never touches an nginx the machine itself runs (Debian's may be listening on port 80).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const NGINX_BINARY = ['/usr/sbin/nginx', '/usr/bin/nginx', '/usr/local/sbin/nginx'].find((p) => existsSync(p));

export interface TestNginx {
  /** http://127.0.0.1:PORT */
  url: string;
  port: number;
  dir: string;
  /** The error log so far. */
  errorLog(): string;
  /** Stops nginx (SIGTERM, then SIGKILL after 5 s) by its pid, and removes its folder. */
  close(): Promise<void>;
}

export { freePort } from './free-port.js';

function requireBinary(): string {
  if (!NGINX_BINARY) throw new Error('nginx is not installed (Debian: apt-get install nginx; .ci/run installs it)');
  return NGINX_BINARY;
}

/** The main configuration around the generated block: everything nginx writes stays inside `dir`. */
function mainConfig(dir: string): string {
  const at = (name: string) => path.join(dir, name);
  return [
    'worker_processes 1;',
    `pid ${at('nginx.pid')};`,
    `error_log ${at('error.log')} info;`,
    'events { worker_connections 512; }',
    'http {',
    `    access_log ${at('access.log')};`,
    `    client_body_temp_path ${at('client_body')};`,
    `    proxy_temp_path ${at('proxy')};`,
    `    fastcgi_temp_path ${at('fastcgi')};`,
    `    uwsgi_temp_path ${at('uwsgi')};`,
    `    scgi_temp_path ${at('scgi')};`,
    `    include ${at('front.conf')};`,
    '}',
    '',
  ].join('\n');
}

function prepare(generated: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lgw-nginx-'));
  // Workers may run as another user (nobody, when the tests run as root): they must reach the folder.
  chmodSync(dir, 0o755);
  writeFileSync(path.join(dir, 'front.conf'), generated);
  writeFileSync(path.join(dir, 'nginx.conf'), mainConfig(dir));
  return dir;
}

const args = (dir: string): string[] => ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-e', path.join(dir, 'error.log')];

/** `nginx -t` on the generated block: its exit code and what it printed. */
export function checkNginxConfig(generated: string): { code: number; output: string } {
  const dir = prepare(generated);
  try {
    const run = spawnSync(requireBinary(), [...args(dir), '-t'], { encoding: 'utf8' });
    return { code: run.status ?? -1, output: `${run.stdout}${run.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function waitForListener(port: number, child: ChildProcess, dir: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`nginx exited (${child.exitCode}): ${readFileSync(path.join(dir, 'error.log'), 'utf8')}`);
    const up = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (up) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('nginx did not listen within 10 s');
}

/** Starts nginx with `generated` (a config for the http context listening on `port`, from freePort()). */
export async function startTestNginx(generated: string, port: number): Promise<TestNginx> {
  const dir = prepare(generated);
  const child = spawn(requireBinary(), [...args(dir), '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr!.resume();
  await waitForListener(port, child, dir);
  const pidFile = path.join(dir, 'nginx.pid');
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    dir,
    errorLog: () => readFileSync(path.join(dir, 'error.log'), 'utf8'),
    async close() {
      if (child.exitCode === null) {
        const exited = once(child, 'exit');
        const pid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').trim()) : child.pid;
        if (pid !== undefined) process.kill(pid, 'SIGTERM');
        const timer = setTimeout(() => child.pid !== undefined && process.kill(child.pid, 'SIGKILL'), 5_000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
