// The CLI as a process whose reader goes away (`legacy-gateway openapi | head -1`): it exits quietly, with
// the command's own code (0, or check's 1), and never prints a stack trace. The reading end of its stdout is
// closed before it writes anything, so every write it makes fails with EPIPE (dist/ built by the global setup).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(root, 'dist/cli.js');

/** Runs the CLI with its stdout's reading end closed at once; its exit code and its stderr. */
function runWithClosedReader(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [cli, ...args], {
    env: { PATH: process.env.PATH ?? '', UPSTREAM_URL: '', UPSTREAM_API_KEY: '', MAPPINGS_DIR: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.destroy();
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stderr })));
}

/** A real pipeline through head(1), as an operator types it: the exit code of the CLI and its stderr. */
function runThroughHead(command: string, env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn('bash', ['-c', `node ${JSON.stringify(cli)} ${command} | head -1; exit "\${PIPESTATUS[0]}"`], {
    env: { PATH: process.env.PATH ?? '', UPSTREAM_URL: '', UPSTREAM_API_KEY: '', MAPPINGS_DIR: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

describe('the CLI on a closed pipe (EPIPE)', () => {
  it('openapi exits 0 quietly', async () => {
    expect(await runWithClosedReader(['openapi'])).toEqual({ code: 0, stderr: '' });
    expect(await runWithClosedReader(['openapi', '--yaml'])).toEqual({ code: 0, stderr: '' });
  });

  it('check exits quietly with its own code: 0 (--skip-upstream), 1 (a failed check)', async () => {
    expect(await runWithClosedReader(['check', '--skip-upstream'], { UPSTREAM_URL: 'http://127.0.0.1:9' })).toEqual({ code: 0, stderr: '' });
    expect(await runWithClosedReader(['check'], { UPSTREAM_URL: 'http://127.0.0.1:9' })).toEqual({ code: 1, stderr: '' });
    expect(await runWithClosedReader(['check', '--json'], { UPSTREAM_URL: 'http://127.0.0.1:9', UPSTREAM_API_KEY: 'k' })).toEqual({ code: 1, stderr: '' });
  });

  it('`openapi | head -1` and `check | head -1`: the first line, no stack trace', async () => {
    const openapi = await runThroughHead('openapi --yaml');
    expect(openapi).toEqual({ code: 0, stdout: 'openapi: 3.1.0\n', stderr: '' });
    const check = await runThroughHead('check', { UPSTREAM_URL: 'http://127.0.0.1:9' });
    expect(check.code).toBe(1);
    expect(check.stdout).toMatch(/^ok {4}mappings +13 read methods/);
    expect(check.stderr).toBe('');
  });
});
