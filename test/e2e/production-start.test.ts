// Starting the gateway as an operator does (`node dist/cli.js serve`, `npm start`): a production start
// never serves demo data, every bad setting stops start-up with one line naming it, a busy port exits
// non-zero in every mode, RECORD_FILE's folder is created (or the start refused), SIGTERM sent to
// `npm start` drains and stops the gateway, and sandbox mode says so in every reply and in /readyz. A start
// refused before anything is opened (a setting, no upstream in production) runs its command line in the test's
// process (test/helpers/cli-in-process.ts); one refused after a part of it was opened (a busy port, RECORD_FILE)
// runs the binary, whose process must then end by itself.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { runCli } from '../helpers/cli-in-process.js';
// The command's modules load with the file, not within a test's time (the command line loads them when run).
import '../../src/commands/serve.js';
import { fetchReply } from '../helpers/fetch-reply.js';
import { startTestGateway } from '../helpers/gateway.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(root, 'dist/cli.js');
const scratch = mkdtempSync(path.join(os.tmpdir(), 'lgw-start-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const BASE_ENV = { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info' };

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `serve` in the test's process, for a start refused before anything is opened. */
const refusedAtOnce = (env: Record<string, string>): Promise<Outcome> => runCli(['serve'], { ...BASE_ENV, ...env });

/** Processes a test started; any still running when the file ends is killed. */
const started: ChildProcess[] = [];
afterAll(() => {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** Runs `serve` expecting its process to stop by itself (a refused start); one that does not ends the test by
 * the suite's timeout, however long the machine takes to start it. */
function serveOnce(env: Record<string, string>): Promise<Outcome> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [cli, 'serve'], { env: { ...BASE_ENV, ...env } }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? null) : 0, stdout, stderr });
    });
    started.push(child);
  });
}

/** Starts a process that logs JSON lines, and resolves with the port once it logs that it listens. */
async function untilListening(child: ChildProcess): Promise<{ port: number; lines: string[] }> {
  const lines: string[] = [];
  const reader = createInterface({ input: child.stdout! });
  return new Promise((resolve, reject) => {
    reader.on('line', (line) => {
      lines.push(line);
      if (line.includes('"msg":"legacy-gateway listening"')) resolve({ port: (JSON.parse(line) as { port: number }).port, lines });
    });
    child.once('exit', (code) => reject(new Error(`exited with ${String(code)} before listening: ${lines.join('\n')}`)));
  });
}

function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

describe('a production start never serves demo data', () => {
  it.each([
    [{ NODE_ENV: 'production', PORT: '0' }, 'legacy-gateway: cannot start: UPSTREAM_URL: not set, and NODE_ENV is production: set UPSTREAM_URL to the service, or SANDBOX=1 to serve the embedded sandbox\'s demo data\n'],
    [{ HOST: '0.0.0.0', PORT: '0' }, 'legacy-gateway: cannot start: UPSTREAM_URL: not set, and HOST 0.0.0.0 is beyond loopback: set UPSTREAM_URL to the service, or SANDBOX=1 to serve the embedded sandbox\'s demo data\n'],
  ])('refuses %o without UPSTREAM_URL, in one line naming it', async (env, line) => {
    const out = await refusedAtOnce(env);
    expect(out).toEqual({ code: 2, stdout: '', stderr: line });
  });

  it('serves the sandbox when asked for explicitly (SANDBOX=1), saying so in every reply and in /readyz', async () => {
    const child = spawn(process.execPath, [cli, 'serve'], { env: { ...BASE_ENV, NODE_ENV: 'production', SANDBOX: '1', PORT: '0' }, stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const { port, lines } = await untilListening(child);
      expect(lines.some((l) => l.includes('EMBEDDED V1 SANDBOX'))).toBe(true);
      const base = `http://127.0.0.1:${port}`;
      for (const call of ['/api/clients/0/1', '/api/v1/clients?limit=1', '/api/clients/x', '/healthz']) {
        expect((await fetchReply(`${base}${call}`)).headers.get('x-legacy-gateway-sandbox')).toBe('demo data from the embedded v1 sandbox, not the real service');
      }
      const ready = await fetchReply(`${base}/readyz`);
      expect(ready.status).toBe(200);
      expect(ready.text).toBe('{"status":"ready","mappings":13,"upstream":"reachable","sandbox":"demo data from the embedded v1 sandbox, not the real service"}');
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  });

  it('says nothing of a sandbox when serving UPSTREAM_URL', async () => {
    const sandbox = await startSandbox({ port: 0 });
    const gateway = await startTestGateway({ UPSTREAM_URL: sandbox.url, UPSTREAM_API_KEY: 'sandbox-primary-key' });
    try {
      const reply = await fetchReply(`${gateway.url}/api/clients/0/1`);
      expect(reply.headers.get('x-legacy-gateway-sandbox')).toBeNull();
      expect(JSON.parse((await fetchReply(`${gateway.url}/readyz`)).text)).toEqual({ status: 'ready', mappings: 13, upstream: 'reachable' });
    } finally {
      await gateway.close();
      await sandbox.close();
    }
  });
});

describe('start-up errors are one line', () => {
  it.each([
    // UPSTREAM_URL may carry credentials: its value is never repeated; the others' are.
    ['UPSTREAM_URL', 'not-a-url', 'must be an http:// or https:// URL'],
    ['UPSTREAM_URL', 'http://user:pw@example.com', 'must not carry a query string, fragment or credentials'],
    ['UPSTREAM_URL', 'https://v1.example.com/api/v1', "must be the service's base URL, without /api/v1 (the gateway adds it)"],
    ['UPSTREAM_URL', 'https://v1.example.com//evil.example', 'must not have a path that begins with //'],
    ['PORT', 'eighty', 'must be a whole number from 0 to 65535, got "eighty"'],
    ['PORT', '65536', 'must be a whole number from 0 to 65535, got "65536"'],
    ['UPSTREAM_TIMEOUT_MS', '0', 'must be a whole number of milliseconds from 1 to 86400000, got "0"'],
    ['LOG_LEVEL', 'loud', 'must be one of fatal, error, warn, info, debug, trace, silent; got "loud"'],
    ['CACHE_MIN_USES', '0', 'must be a whole number from 1 to 100, got "0"'],
    ['SANDBOX', 'maybe', 'must be 1 or true (on), 0 or false (off); got "maybe"'],
  ])('%s=%s stops start-up naming the variable and what is allowed', async (name, value, reason) => {
    const out = await refusedAtOnce({ [name]: value });
    expect(out).toEqual({ code: 2, stdout: '', stderr: `legacy-gateway: ${name} ${reason}\n` });
  });

  it('a port already in use exits 1 with one line, with UPSTREAM_URL and in sandbox mode alike', async () => {
    const busy = net.createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = String((busy.address() as net.AddressInfo).port);
    try {
      for (const env of [{ UPSTREAM_URL: 'http://127.0.0.1:9' }, {}] as Array<Record<string, string>>) {
        const out = await serveOnce({ ...env, PORT: port });
        expect(out.code).toBe(1);
        expect(out.stderr).toBe(`legacy-gateway: cannot listen on 127.0.0.1:${port} (EADDRINUSE)\n`);
      }
    } finally {
      busy.close();
    }
  });

  it('creates the folder of RECORD_FILE, and records into it', async () => {
    const file = path.join(scratch, 'new', 'folder', 'calls.jsonl');
    const child = spawn(process.execPath, [cli, 'serve'], { env: { ...BASE_ENV, PORT: '0', RECORD_FILE: file }, stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const { port } = await untilListening(child);
      expect((await fetchReply(`http://127.0.0.1:${port}/api/staff/2`)).status).toBe(200);
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(1);
    const { request } = JSON.parse(lines[0]!) as { request: { method: string; url: string } };
    expect(request.method).toBe('GET');
    expect(request.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/staff\/2$/);
  });

  it('refuses a RECORD_FILE that cannot be written, in one line', async () => {
    const blocker = path.join(scratch, 'a-file');
    writeFileSync(blocker, '');
    const out = await serveOnce({ UPSTREAM_URL: 'http://127.0.0.1:9', PORT: '0', RECORD_FILE: path.join(blocker, 'calls.jsonl') });
    expect(out).toEqual({ code: 2, stdout: '', stderr: `legacy-gateway: cannot start: RECORD_FILE: cannot write ${path.join(blocker, 'calls.jsonl')} (EEXIST)\n` });
  });
});

describe('signals reach the gateway', () => {
  it('SIGTERM sent to `npm start` drains and stops the gateway itself', async () => {
    const npm = spawn('npm', ['start', '--silent'], { cwd: root, env: { ...BASE_ENV, PORT: '0' }, stdio: ['ignore', 'pipe', 'inherit'] });
    const { port, lines } = await untilListening(npm);
    expect((await fetchReply(`http://127.0.0.1:${port}/api/staff/2`)).status).toBe(200);
    npm.kill('SIGTERM');
    const [code] = (await once(npm, 'close')) as [number | null];
    expect(code).toBe(0);
    expect(lines.some((l) => l.includes('"msg":"stopped"'))).toBe(true);
    expect(await refused(port)).toBe(true);
  });
});
