// The CLI's exit codes, the same for every command (README: Exit codes): 0 fine, 1 a problem found,
// 2 a usage or input error; and --version. Each code once as a user runs the binary (`node dist/cli.js ...`:
// the process's own exit code); every case in the test's process (test/helpers/cli-in-process.ts), which runs
// the same command line.
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli-in-process.js';
// The command's modules load with the file, not within a test's time (the command line loads them when run).
import '../../src/commands/coverage.js';
import '../../src/commands/openapi.js';
import '../../src/replay/run/run-command.js';
import '../../src/commands/replay-gateway.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(root, 'dist/cli.js');
const COMMANDS = ['serve', 'sandbox', 'coverage', 'openapi', 'check', 'retire-check', 'brownout', 'replay'] as const;

/** The binary, in a process of its own. */
async function binaryRun(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return promisify(execFile)(process.execPath, [cli, ...args], { env: { ...process.env, UPSTREAM_URL: '', MAPPINGS_DIR: '', ...env } }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }),
  );
}

/** The same command line in the test's process. */
const cliRun = (args: string[], env: Record<string, string> = {}) => runCli(args, { UPSTREAM_URL: '', MAPPINGS_DIR: '', ...env });

describe('the binary exits with the code its command set', () => {
  it('0: --version', async () => {
    expect((await binaryRun(['--version'])).code).toBe(0);
  });

  it('2: an unknown command, its complaint on stderr', async () => {
    const { code, stderr } = await binaryRun(['nope']);
    expect(code).toBe(2);
    expect(stderr).toContain("error: unknown command 'nope'");
  });
});

describe('legacy-gateway --version', () => {
  const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };

  it.each(['--version', '-V'])("%s prints package.json's version and exits 0", async (flag) => {
    expect(await cliRun([flag])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it('is listed in the help', async () => {
    const { code, stdout } = await cliRun(['--help']);
    expect(code).toBe(0);
    expect(stdout).toContain('-V, --version');
    expect(stdout).toContain('Exit codes: 0 fine, 1 a problem found');
  });
});

describe('exit code 2: usage and input errors', () => {
  it('an unknown command', async () => {
    const { code, stderr } = await cliRun(['nope']);
    expect(code).toBe(2);
    expect(stderr).toContain("error: unknown command 'nope'");
  });

  it('no command at all', async () => {
    expect((await cliRun([])).code).toBe(2);
  });

  it('an unknown option of the program', async () => {
    const { code, stderr } = await cliRun(['--bogus']);
    expect(code).toBe(2);
    expect(stderr).toContain("error: unknown option '--bogus'");
  });

  it.each(COMMANDS)('an unknown option of %s', async (command) => {
    const args = command === 'replay' ? [command, 'traffic.har', '--bogus'] : [command, '--bogus'];
    const { code, stderr } = await cliRun(args);
    expect(code).toBe(2);
    expect(stderr).toContain("error: unknown option '--bogus'");
  });

  it.each([
    [['sandbox', '--port', 'x'], 'a port number from 0 to 65535'],
    [['sandbox', '--rate-limit', '0'], 'a whole number of 1 or more'],
    [['replay', 'traffic.har', '--format', 'xml'], 'Allowed choices are har, jsonl'],
    [['replay'], "missing required argument 'file'"],
  ])('a bad option value or a missing argument: %j', async (args, message) => {
    const { code, stderr } = await cliRun(args);
    expect(code).toBe(2);
    expect(stderr).toContain(message);
  });

  it.each(['coverage', 'openapi'])('%s --mappings /nonexistent', async (command) => {
    const { code, stdout, stderr } = await cliRun([command, '--mappings', '/nonexistent']);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain('/nonexistent: (top level): directory not found');
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it.each(['coverage', 'openapi'])('%s with invalid mappings (from MAPPINGS_DIR)', async (command) => {
    const { code, stderr } = await cliRun([command], { MAPPINGS_DIR: path.join(root, 'test/fixtures/bad-mappings') });
    expect(code).toBe(2);
    expect(stderr).toContain('staff.yaml: paging.max: must be a whole number from 1 to 1000, got 5000');
  });

  it('a mapping file whose kind is none the gateway knows: the kinds, the payment among them, and what the file says', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'lgw-kinds-'));
    cpSync(path.join(root, 'mappings'), dir, { recursive: true });
    writeFileSync(path.join(dir, 'payment.yaml'), readFileSync(path.join(dir, 'payment.yaml'), 'utf8').replace(/^kind: payment$/m, 'kind: payments'));
    try {
      const { code, stdout, stderr } = await cliRun(['coverage', '--mappings', dir]);
      expect({ code, stdout, stderr }).toEqual({
        code: 2,
        stdout: '',
        stderr: 'legacy-gateway coverage: invalid mappings:\n  payment.yaml: kind: must be one of list, sorted-list, detail, lookup, static, payment; got "payments"\n',
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('replay with a recording that does not exist', async () => {
    const { code, stderr } = await cliRun(['replay', path.join(root, 'no-such-recording.har')]);
    expect(code).toBe(2);
    expect(stderr).toContain('legacy-gateway replay:');
  });

  it('--help of every command exits 0', async () => {
    for (const command of COMMANDS) expect((await cliRun([command, '--help'])).code, command).toBe(0);
  });
});

describe('exit code 1: a problem found', () => {
  // The binary: exit code 1 of the process itself.
  it('sandbox on a port in use: one line naming the address, no stack trace', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const { port } = busy.address() as AddressInfo;
    try {
      const { code, stdout, stderr } = await binaryRun(['sandbox', '--port', String(port)]);
      expect(code).toBe(1);
      expect(stdout).toBe('');
      expect(stderr).toBe(`legacy-gateway sandbox: cannot listen on 127.0.0.1:${port} (EADDRINUSE)\n`);
    } finally {
      busy.close();
    }
  });
});
