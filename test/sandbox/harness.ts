// Starts a sandbox on a loopback ephemeral port for one test file and talks to it over real HTTP.
import { afterAll, beforeAll } from 'vitest';
import { SANDBOX_KEYS, startSandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { fetchReply, type Reply } from '../helpers/fetch-reply.js';

export const PRIMARY = { 'X-API-KEY': SANDBOX_KEYS.primary };
export const SECONDARY = { 'X-API-KEY': SANDBOX_KEYS.secondary };

export type RunningTestSandbox = Awaited<ReturnType<typeof startSandbox>>;

export type { Reply };

export function call(base: string, path: string, init: RequestInit = {}): Promise<Reply> {
  return fetchReply(`${base}${path}`, init);
}

export function postJson(base: string, path: string, body: unknown, headers: Record<string, string> = PRIMARY): Promise<Reply> {
  return call(base, path, {
    method: 'POST',
    headers: { ...headers, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** The v1 error body, serialised as the sandbox must send it. */
export function errorText(code: string, message: string): string {
  return JSON.stringify({ error: { code, message } });
}

/** One sandbox per test file (started before, closed after); `sandbox()` returns it. */
export function useSandbox(options: SandboxOptions = {}): () => RunningTestSandbox {
  let running: RunningTestSandbox | undefined;
  beforeAll(async () => {
    running = await startSandbox({ ...options, port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await running?.close();
  });
  return () => {
    if (running === undefined) throw new Error('sandbox not started');
    return running;
  };
}
