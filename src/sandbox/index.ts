// The embedded v1 sandbox: a small, faithful v1 service with deterministic demo data, used by the gateway
// when no UPSTREAM_URL is set and trusted by the test suite. This file only re-exports the public API;
// nothing outside src/sandbox should import the other modules directly.
import type { Express } from 'express';
import { buildSandbox, type SandboxOptions } from './app.js';
import type { SandboxState } from './state.js';

export type { SandboxOptions } from './app.js';
export { SANDBOX_KEYS, SECONDARY_KEY_RESOURCES } from './keys.js';
export { SANDBOX_TEST_TOKENS } from './test-tokens.js';
export { startSandbox, type RunningSandbox } from './server.js';
export type { AccountGate, RecordedRequest, SandboxState } from './state.js';
export type * from './records.js';

/** The sandbox app and its state, for callers that run their own server. */
export function createSandboxApp(options?: SandboxOptions): { app: Express; state: SandboxState } {
  const { app, state } = buildSandbox(options);
  return { app, state };
}
