// The CLI's commands: their help, output and refusals run in the test's process (test/helpers/cli-in-process.ts:
// the command line the binary parses); `serve` started, serving and stopped by SIGTERM as a user runs it,
// `node dist/cli.js serve` (dist/ is built by the suite's global setup).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SANDBOX_KEYS, startSandbox } from '../../src/sandbox/index.js';
import { runCli } from '../helpers/cli-in-process.js';
// The command's modules load with the file, not within a test's time (the command line loads them when run).
import '../../src/commands/coverage.js';
import '../../src/commands/check.js';
import '../../src/commands/serve.js';

/** Resolves with what the command wrote, or rejects with it and its exit code (as execFile does). */
async function run(_node: string, [, ...args]: string[], options: { env?: Record<string, string | undefined> } = {}): Promise<{ stdout: string; stderr: string }> {
  const env = Object.fromEntries(Object.entries(options.env ?? process.env).filter((e): e is [string, string] => e[1] !== undefined));
  const done = await runCli(args, env);
  if (done.code !== 0) throw Object.assign(new Error(`exit ${done.code}`), done);
  return done;
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(root, 'dist/cli.js');

describe('legacy-gateway CLI', () => {
  it.each(['serve', 'sandbox', 'coverage', 'check'])('%s --help describes the command', async (command) => {
    const { stdout } = await run(process.execPath, [cli, command, '--help']);
    expect(stdout).toContain(`Usage: legacy-gateway ${command}`);
  });

  it('coverage prints the matrix, generated from the mappings', async () => {
    const { stdout } = await run(process.execPath, [cli, 'coverage']);
    expect(stdout).toContain('/api/client  <-  /api/v1/clients');
    expect(stdout).toMatch(/ {2}hide costs +renamed +hide_costs/);
    expect(stdout).toMatch(/ {2}minTime +defaulted +"08:00:00"/);
    expect(stdout).toMatch(/ {2}service_cost +copied +service_cost as money/);
    expect(stdout).toMatch(/^13 methods, \d+ legacy fields: copied \d+, renamed \d+, derived 0, defaulted \d+, missing \d+; guesses \d+$/m);
  });

  it('coverage marks every field of a record that is a guess as a whole, and counts the guesses per method', async () => {
    const { stdout } = await run(process.execPath, [cli, 'coverage']);
    const services = stdout.split('\n\n').find((block) => block.startsWith('/api/services  <-'));
    expect(services).toBeDefined();
    const [head, why, ...fields] = services!.split('\n');
    expect(head).toMatch(/^\/api\/services {2}<- {2}\/api\/v1\/services {3}\((\d+) fields: .*; guesses \1\)$/);
    expect(why).toBe("  the whole service record is a guess: v1's service record is not documented; field names are taken to be the legacy ones");
    expect(fields.length).toBeGreaterThan(0);
    for (const line of fields) expect(line).toMatch(/ {3}\[guess: whole record\]$/);
    expect(stdout).toMatch(/^ {2}service_cost +copied +service_cost as money {3}\[guess: whole record\]$/m);
    expect(stdout).toMatch(/^\/api\/clients {2}<- {2}\/api\/v1\/clients {3}\(16 fields: .*; guesses 0\)$/m);
  });

  it('coverage --json lists every legacy field of every method', async () => {
    const { stdout } = await run(process.execPath, [cli, 'coverage', '--json']);
    const out = JSON.parse(stdout) as { methods: Array<{ method: string }>; fields: Array<{ method: string; field: string; source: string }> };
    expect(out.methods).toHaveLength(13);
    expect(out.fields.filter((f) => f.method === 'clients').map((f) => f.field)).toEqual([
      'id', 'users_id', 'client_settings_id', 'avail_id', 'first_name', 'last_name', 'address1', 'address2', 'city', 'state', 'zipcode', 'country', 'p_phone', 's_phone', 'text_phone', 'email',
    ]);
    expect(out.fields.find((f) => f.method === 'meetourteam' && f.field === 'pract_id')).toMatchObject({ source: 'renamed' });
  });

  it('coverage --json carries per field whether it is a guess and why, and per method its record guess and count', async () => {
    const { stdout } = await run(process.execPath, [cli, 'coverage', '--json']);
    type Field = { method: string; field: string; source: string; guess: boolean; reason?: { field?: string; record?: string } };
    const out = JSON.parse(stdout) as { methods: Array<{ method: string; record: string; recordGuess?: string; guesses: number }>; fields: Field[] };
    const recordWhy = "v1's service record is not documented; field names are taken to be the legacy ones";
    const services = out.fields.filter((f) => f.method === 'services');
    expect(services.length).toBeGreaterThan(0);
    for (const f of services) expect(f).toMatchObject({ guess: true, reason: { record: recordWhy } });
    expect(services.find((f) => f.field === 'service_cost')).toEqual({
      method: 'services', field: 'service_cost', source: 'copied', detail: 'service_cost', format: 'money', guess: true, reason: { record: recordWhy },
    });
    expect(out.methods.find((m) => m.method === 'services')).toMatchObject({ record: 'service', recordGuess: recordWhy, guesses: services.length });
    expect(out.fields.find((f) => f.method === 'clients' && f.field === 'id')).toEqual({ method: 'clients', field: 'id', source: 'copied', detail: 'id', format: 'text', guess: false });
    expect(out.methods.find((m) => m.method === 'clients')).not.toHaveProperty('recordGuess');
    expect(out.fields.filter((f) => f.guess && f.reason === undefined)).toEqual([]);
  });

  it('serve refuses to start on a bad mapping, naming the file, the path and the reason', async () => {
    const err = await run(process.execPath, [cli, 'serve'], { env: { ...process.env, MAPPINGS_DIR: path.join(root, 'test/fixtures/bad-mappings'), PORT: '0' } }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 2 });
    expect((err as { stderr: string }).stderr).toContain('cannot start: invalid mappings:\n  staff.yaml: paging.max: must be a whole number from 1 to 1000, got 5000');
  });

  it('serve refuses a bad setting, naming the variable but not its value', async () => {
    const err = await run(process.execPath, [cli, 'serve'], { env: { ...process.env, UPSTREAM_URL: 'ftp://secret-host', UPSTREAM_TIMEOUT_MS: 'soon' } }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 2 });
    const stderr = (err as { stderr: string }).stderr;
    expect(stderr).toContain('UPSTREAM_URL must be an http:// or https:// URL\n');
    expect(stderr).toContain('UPSTREAM_TIMEOUT_MS must be a whole number of milliseconds from 1 to 86400000, got "soon"');
    expect(stderr).not.toContain('secret-host');
  });

  it('serve starts on the sandbox with a loud warning, serves, and stops on SIGTERM', async () => {
    const child = spawn(process.execPath, [cli, 'serve'], { env: { ...process.env, PORT: '0', UPSTREAM_URL: '', UPSTREAM_API_KEY: '' } });
    const lines: string[] = [];
    const listening = new Promise<number>((resolve, reject) => {
      child.stdout.on('data', (c: Buffer) => {
        for (const line of c.toString().split('\n').filter(Boolean)) {
          lines.push(line);
          const parsed = JSON.parse(line) as { msg: string; port?: number };
          if (parsed.msg === 'legacy-gateway listening') resolve(parsed.port!);
        }
      });
      child.once('exit', () => reject(new Error(`exited early: ${lines.join('\n')}`)));
    });
    const port = await listening;
    expect(lines.some((l) => l.includes('EMBEDDED V1 SANDBOX'))).toBe(true);
    const reply = await fetch(`http://127.0.0.1:${port}/api/clients/0/3`);
    const body = (await reply.json()) as { status: string; total: string; response: Array<Record<string, unknown>> };
    expect(body.status).toBe('success');
    expect(body.response).toHaveLength(3);
    for (const record of body.response) for (const v of Object.values(record)) expect(v === null || typeof v === 'string').toBe(true);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('check passes against the embedded sandbox', async () => {
    const { stdout } = await run(process.execPath, [cli, 'check'], { env: { ...process.env, UPSTREAM_URL: '', UPSTREAM_API_KEY: '' } });
    expect(stdout).toContain('ok    upstream reachable');
    expect(stdout).toMatch(/ok {4}read staff +HTTP 200 in \d+ ms/);
    expect(stdout).not.toContain('FAIL');
  });

  it('check names each resource a key may not read, exits 1, and never prints the key', async () => {
    const sandbox = await startSandbox({ port: 0 });
    try {
      const err = await run(process.execPath, [cli, 'check', '--json'], { env: { ...process.env, UPSTREAM_URL: sandbox.url, UPSTREAM_API_KEY: SANDBOX_KEYS.secondary } }).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 1 });
      const out = JSON.parse((err as { stdout: string }).stdout) as { ok: boolean; checks: Array<{ check: string; ok: boolean; detail: string }> };
      expect(out.ok).toBe(false);
      expect(out.checks.find((c) => c.check === 'read clients')).toMatchObject({ ok: true });
      expect(out.checks.find((c) => c.check === 'read staff')).toMatchObject({ ok: false, detail: expect.stringMatching(/^403 resource_not_allowed: /) });
      expect((err as { stdout: string }).stdout).not.toContain(SANDBOX_KEYS.secondary);
    } finally {
      await sandbox.close();
    }
  });
});
