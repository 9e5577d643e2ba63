// A real PostgreSQL for a test (Debian's package `postgresql`; .ci/run installs it): initdb into a fresh
// folder, started on a free loopback port with its unix socket inside that folder, and stopped by the pid
// in its postmaster.pid. It can be stopped (an outage), killed (a crash: every one of its processes gets
// SIGKILL, nothing is flushed) and started again on the same port and data, as a restart or a failover
// looks to the gateway. fsync stays on: a claim committed before a crash must be found after it.
// PostgreSQL refuses to run as root: as root, initdb and postgres run as the `postgres` system user the
// package creates (the spawn sets their user), and the folder is handed to it.
// A primary may be given server settings (synchronous_standby_names...), and a streaming standby made from
// it (pg_basebackup, then started in recovery under an application_name), which can be promoted.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './free-port.js';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';

/** The newest installed version's binaries (/usr/lib/postgresql/<version>/bin). */
function binaries(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(path.join(root, v, 'bin', 'postgres')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : path.join(root, versions[0], 'bin');
}

const BIN = binaries();
/** The superuser initdb creates, and the user the URL names. */
const USER = 'gateway';
const DATABASE = 'postgres';
const asRoot = process.getuid?.() === 0;

export interface TestPostgres {
  /** postgres://gateway@127.0.0.1:PORT/postgres (trust authentication: any password is ignored). */
  url: string;
  port: number;
  /** Stops the server (a fast shutdown: SIGINT to its pid) and waits for it to exit; its data stays. */
  stop(): Promise<void>;
  /** A crash: SIGKILL to the postmaster and every process it started, and waits for all of them to be gone. */
  kill(): Promise<void>;
  /** Starts it again on the same port and data (after a kill, PostgreSQL recovers from its WAL). */
  start(): Promise<void>;
  /** SIGSTOP / SIGCONT to the postmaster and every process it started: a server that holds its connections
   * and answers nothing (a stalled machine). */
  pause(): void;
  resume(): void;
  /** Stops it for good and removes its folder. */
  close(): Promise<void>;
}

export interface TestStandby extends TestPostgres {
  /** The application_name it streams under (what synchronous_standby_names names). */
  name: string;
  /** Ends recovery (pg_ctl promote, waiting for it): it takes writes from then on. */
  promote(): Promise<void>;
}


/** A PostgreSQL binary's path. */
function binary(name: string): string {
  if (!BIN) throw new Error('PostgreSQL is not installed (Debian: apt-get install postgresql; .ci/run installs it)');
  return path.join(BIN, name);
}

/** How a PostgreSQL program is run: in its folder, as the postgres user when this process is root (set by
 * the spawn itself rather than by runuser, so that the pid spawned is the postmaster's own). */
function runAs(dir: string): { cwd: string; uid?: number; gid?: number } {
  return asRoot ? { cwd: dir, ...systemUser('postgres') } : { cwd: dir };
}

async function initdb(dir: string): Promise<void> {
  // --no-sync: only initdb's own files skip fsync (a lost test folder is remade); the server keeps fsync on.
  const args = ['-D', path.join(dir, 'data'), '-U', USER, '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync'];
  await promisify(execFile)(binary('initdb'), args, runAs(dir));
}

async function launch(port: number, dir: string, settings: Readonly<Record<string, string>> = {}): Promise<ChildProcess> {
  const args = [
    '-D', path.join(dir, 'data'), '-p', String(port), '-h', '127.0.0.1', '-k', dir,
    '-c', 'fsync=on', '-c', 'full_page_writes=off', '-c', 'shared_buffers=16MB', '-c', 'max_connections=40',
    ...Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
  ];
  // Its log goes to stderr; 'ready to accept connections' is the event waited for.
  const child = spawn(binary('postgres'), args, { ...runAs(dir), stdio: ['ignore', 'ignore', 'pipe'] });
  const lines = createInterface({ input: child.stderr! });
  const log: string[] = [];
  await new Promise<void>((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`postgres exited (${String(code)}) before it was ready:\n${log.join('\n')}`));
    child.once('exit', onExit);
    lines.on('line', (line) => {
      log.push(line);
      // A standby says 'ready to accept read-only connections'.
      if (!/database system is ready to accept (read-only )?connections/.test(line)) return;
      child.off('exit', onExit);
      resolve();
    });
  });
  lines.on('line', () => undefined); // keep draining its log
  return child;
}

/** The postmaster's pid, from the first line of its postmaster.pid. */
function postmasterPid(dir: string): number | undefined {
  const file = path.join(dir, 'data', 'postmaster.pid');
  if (!existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, 'utf8').split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** The processes whose parent is `pid` (the backends and helpers a postmaster forked). */
function childrenOf(pid: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The fields after the command name, which is in parentheses and may hold spaces: state, ppid, ...
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) found.push(Number(entry));
    } catch {
      // It exited while the list was read.
    }
  }
  return found;
}

/** Gone, or a zombie nobody reaps (a container's pid 1 may not): either way it holds nothing any more. */
function isGone(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

/** Waits for processes this one did not start (no exit event reaches it): a bounded poll of /proc. */
async function untilGone(pids: readonly number[]): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (pids.every(isGone)) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`processes ${pids.join(', ')} did not exit within 5 s`);
}

/** A system user's ids, from /etc/passwd. */
function systemUser(name: string): { uid: number; gid: number } {
  const line = readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith(`${name}:`));
  if (!line) throw new Error(`no ${name} user: PostgreSQL refuses to run as root, and Debian's postgresql package creates that user`);
  const fields = line.split(':');
  return { uid: Number(fields[2]), gid: Number(fields[3]) };
}

/** A folder for a server's data, owned by the postgres user when this process is root. */
function makeFolder(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lgw-postgres-'));
  if (asRoot) {
    const { uid, gid } = systemUser('postgres');
    chownSync(dir, uid, gid);
  }
  return dir;
}

/** The server in `dir` on `port`, already started as `first`: stopped, killed, started again, closed. */
function served(dir: string, port: number, first: ChildProcess, settings: Readonly<Record<string, string>>): TestPostgres {
  let child: ChildProcess | undefined = first;
  /** The processes a pause stopped, the postmaster first. */
  let paused: number[] = [];
  const wake = (): void => {
    for (const pid of [...paused].reverse()) {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        // Gone meanwhile: nothing to wake.
      }
    }
    paused = [];
  };
  const halt = async (signal: 'SIGINT' | 'SIGKILL'): Promise<void> => {
    // A paused server handles no signal but SIGKILL: woken first, so that a stop is a stop.
    if (signal === 'SIGINT') wake();
    paused = [];
    if (!child) return;
    const running = child;
    child = undefined;
    const exited = running.exitCode === null && running.signalCode === null ? once(running, 'exit') : Promise.resolve();
    const pid = postmasterPid(dir) ?? running.pid;
    if (pid === undefined) return;
    if (signal === 'SIGINT') {
      // SIGINT is PostgreSQL's fast shutdown: clients are disconnected (SIGTERM would wait for every one).
      process.kill(pid, 'SIGINT');
      await exited;
      return;
    }
    // Frozen first, so that it forks nothing between the list of its children and their end.
    process.kill(pid, 'SIGSTOP');
    const children = childrenOf(pid);
    for (const c of children) process.kill(c, 'SIGKILL');
    process.kill(pid, 'SIGKILL');
    await exited;
    await untilGone([pid, ...children]);
  };
  return {
    url: `postgres://${USER}@127.0.0.1:${port}/${DATABASE}`,
    port,
    pause() {
      const pid = child === undefined ? undefined : postmasterPid(dir);
      if (pid === undefined || paused.length > 0) return;
      // The postmaster first, so that it forks nothing between the list of its children and their stop.
      process.kill(pid, 'SIGSTOP');
      paused = [pid, ...childrenOf(pid)];
      for (const c of paused.slice(1)) process.kill(c, 'SIGSTOP');
    },
    resume: wake,
    stop: () => halt('SIGINT'),
    kill: () => halt('SIGKILL'),
    async start() {
      if (!child) child = await launch(port, dir, settings);
    },
    async close() {
      await halt('SIGINT');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Starts a fresh PostgreSQL in its own folder, with `settings` (-c name=value) on top of the test ones. */
export async function startTestPostgres(settings: Readonly<Record<string, string>> = {}): Promise<TestPostgres> {
  const dir = makeFolder();
  await initdb(dir);
  const port = await freePort();
  return served(dir, port, await launch(port, dir, settings), settings);
}

/** A streaming standby of `primary`: a base backup of it (initdb's rules let its user replicate from
 * loopback), started in recovery and streaming under `name`. Whether it is synchronous is the primary's
 * synchronous_standby_names. */
export async function startTestStandby(primary: TestPostgres, name: string): Promise<TestStandby> {
  const dir = makeFolder();
  const data = path.join(dir, 'data');
  await promisify(execFile)(binary('pg_basebackup'), ['-h', '127.0.0.1', '-p', String(primary.port), '-U', USER, '-D', data, '-R', '-X', 'stream', '--no-sync'], runAs(dir));
  const port = await freePort();
  // One argument each, with no shell: the value is taken as written, spaces included.
  const settings = { primary_conninfo: `host=127.0.0.1 port=${primary.port} user=${USER} application_name=${name}` };
  const server = served(dir, port, await launch(port, dir, settings), settings);
  return {
    ...server,
    name,
    async promote() {
      await promisify(execFile)(binary('pg_ctl'), ['promote', '-w', '-D', data], runAs(dir));
    },
  };
}
