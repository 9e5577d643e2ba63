// The bench's own nginx (Debian's binary), for the rows that put nginx in front: a plain proxy to the fake
// v1 written here, and the front the `routes` command generates, in front of a gateway and the fake v1.
// Both are included from the same main configuration (one worker, the same events, logs and temporary
// folders), so that two of its rows differ by what is proxied, not by nginx's tuning. Each nginx runs in a
// folder of its own that is its prefix (pid file, error log, temporary files; it never reads /etc/nginx),
// on a free loopback port, in the foreground: killed by its spawn deadline whatever happens, and otherwise
// stopped by the pid in its pid file.
import { execFile, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { cpuSeconds, peakRssMb, type BenchProcess } from './processes.js';

const BINARIES = ['/usr/sbin/nginx', '/usr/bin/nginx', '/usr/local/sbin/nginx'];

/** Where nginx is installed, or undefined. */
export const nginxBinary = (): string | undefined => BINARIES.find((p) => existsSync(p));

/** `nginx -v`: its version (`1.22.1`), or `unknown`. */
export function nginxVersion(binary: string): string {
  const run = spawnSync(binary, ['-v'], { encoding: 'utf8' });
  return /nginx\/(\S+)/.exec(`${run.stdout}${run.stderr}`)?.[1] ?? 'unknown';
}

/** Upstream keep-alive connections per worker: the generated front's figure (src/gateway/front-proxy/nginx.ts). */
const KEEPALIVE = 128;

/**
 * The main configuration both nginx rows share; `httpBody` goes in its `http` context. The access log is
 * on, written to /dev/null as the gateway's log lines are: the line is built, the disk is left out of it.
 */
function mainConfig(dir: string, httpBody: string[], mainLines: string[] = []): string {
  const at = (name: string) => path.join(dir, name);
  return [
    ...mainLines,
    'worker_processes 1;',
    `pid ${at('nginx.pid')};`,
    `error_log ${at('error.log')} warn;`,
    'events { worker_connections 1024; }',
    'http {',
    '    access_log /dev/null;',
    `    client_body_temp_path ${at('client_body')};`,
    `    proxy_temp_path ${at('proxy')};`,
    `    fastcgi_temp_path ${at('fastcgi')};`,
    `    uwsgi_temp_path ${at('uwsgi')};`,
    `    scgi_temp_path ${at('scgi')};`,
    ...httpBody.map((l) => (l === '' ? '' : `    ${l}`)),
    '}',
    '',
  ].join('\n');
}

/** The fake v1 as nginx's keep-alive pool `bench_v1`: every nginx row reads v1 through it. */
export function v1UpstreamBlock(upstream: string): string[] {
  return ['upstream bench_v1 {', `    server ${new URL(upstream).host};`, `    keepalive ${KEEPALIVE};`, '}'];
}

/** The `http` body of the plain proxy: every request to the fake v1, streamed, over a keep-alive pool. */
export function plainProxyConfig(port: number, upstream: string): string[] {
  return [
    ...v1UpstreamBlock(upstream),
    'server {',
    `    listen 127.0.0.1:${port};`,
    '    location / {',
    '        proxy_pass http://bench_v1;',
    '        proxy_http_version 1.1;',
    '        proxy_set_header Connection "";',
    '        proxy_buffering off;',
    '    }',
    '}',
  ];
}

const execFileAsync = promisify(execFile);

/**
 * `node dist/cli.js routes --format nginx` for a front on 127.0.0.1:`port` before `gateway` and `upstream`,
 * with no UPSTREAM_TIMEOUT_MS or MAPPINGS_DIR in its environment (as the bench starts the gateway). Written
 * to `front.conf` in the nginx folder, and included from the `http` context.
 */
export async function generatedFront(cli: string, port: number, gateway: string, upstream: string): Promise<string> {
  const args = [cli, 'routes', '--format', 'nginx', '--listen', `127.0.0.1:${port}`, '--gateway', gateway, '--upstream', upstream];
  const { stdout } = await execFileAsync(process.execPath, args, { env: { PATH: process.env.PATH ?? '' }, maxBuffer: 4 << 20 });
  return stdout;
}

/** nginx's master and its workers (children of the master, read from /proc). */
function processTree(master: number | undefined): number[] {
  if (master === undefined) return [];
  try {
    const children = readFileSync(`/proc/${master}/task/${master}/children`, 'utf8').trim();
    return [master, ...children.split(/\s+/).filter((p) => p !== '').map(Number)];
  } catch {
    return [master];
  }
}

async function waitForListener(name: string, port: number, exited: () => boolean, errorLog: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (exited()) throw new Error(`${name}: nginx exited at start: ${errorLog().trim()}`);
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
  throw new Error(`${name}: nginx did not listen on ${port} within 10 s`);
}

export interface BenchNginx extends BenchProcess {
  /** The error log so far. */
  errorLog(): string;
}

/**
 * nginx with `httpBody` (listening on 127.0.0.1:`port`, from freePort()) and, when given, `include` written
 * to front.conf and included after it. Its peak RSS and CPU time are those of its master and worker
 * together. `stop()` sends SIGTERM to the pid in its pid file (SIGKILL to the master and workers after 5 s)
 * and removes its folder.
 */
export async function startBenchNginx(
  name: string,
  binary: string,
  port: number,
  http: { body?: string[]; include?: string; /** Lines before the main configuration (load_module). */ main?: string[] },
  lifetimeS: number,
): Promise<BenchNginx> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lgw-bench-nginx-'));
  // Workers run as nobody when nginx starts as root: they must reach the folder.
  chmodSync(dir, 0o755);
  const body = [...(http.body ?? [])];
  if (http.include !== undefined) {
    writeFileSync(path.join(dir, 'front.conf'), http.include);
    body.push(`include ${path.join(dir, 'front.conf')};`);
  }
  writeFileSync(path.join(dir, 'nginx.conf'), mainConfig(dir, body, http.main));
  const errorLogFile = path.join(dir, 'error.log');
  const pidFile = path.join(dir, 'nginx.pid');
  const errorLog = () => (existsSync(errorLogFile) ? readFileSync(errorLogFile, 'utf8') : '');
  const child = spawn(binary, ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-e', errorLogFile, '-g', 'daemon off;'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: (lifetimeS + 5) * 1000,
  });
  child.stderr!.resume();
  const exited = once(child, 'exit').catch(() => undefined);
  const isDone = () => child.exitCode !== null || child.signalCode !== null;
  try {
    await waitForListener(name, port, isDone, errorLog);
  } catch (err) {
    if (!isDone()) child.kill('SIGKILL');
    await exited;
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  // The workers, read once the listener answers (nginx forks them before it accepts).
  const tree = processTree(child.pid);
  const sum = (values: Array<number | undefined>) => (values.some((v) => v === undefined) ? undefined : values.reduce<number>((a, v) => a + v!, 0));
  return {
    name,
    port,
    url: `http://127.0.0.1:${port}`,
    child,
    errorLog,
    peakRssMb: () => sum(tree.map(peakRssMb)),
    cpuSeconds: () => sum(tree.map(cpuSeconds)),
    async stop() {
      if (!isDone()) {
        const pid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').trim()) : child.pid;
        if (pid !== undefined && pid > 0) process.kill(pid, 'SIGTERM');
        const timer = setTimeout(() => {
          for (const p of processTree(child.pid).reverse()) {
            try {
              process.kill(p, 'SIGKILL');
            } catch {
              // already gone
            }
          }
        }, 5_000);
        await exited;
        clearTimeout(timer);
      }
      const problems = errorLog().split('\n').filter((l) => /\[(error|crit|alert|emerg)\]/.test(l));
      if (problems.length > 0) process.stderr.write(`  ${name}: ${problems.length} error log lines, the first: ${problems[0]}\n`);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
