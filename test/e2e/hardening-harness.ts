// Shared by the hardening e2e tests: a real gateway on loopback with a fake cache clock, its log lines in
// memory, and helpers to wait for events (requests reaching the gateway or the upstream) instead of sleeping.
import type http from 'node:http';
import { Writable } from 'node:stream';
import { loadConfig } from '../../src/gateway/config.js';
import { createLogger } from '../../src/gateway/logging.js';
import { startServing } from '../../src/commands/serving.js';
import type { RunningGateway } from '../../src/gateway/start.js';

export interface HardenedGateway extends RunningGateway {
  logs: string[];
  /** Moves the cache's clock forward (it otherwise follows real time). */
  advance(ms: number): void;
}

export async function startHardenedGateway(env: Record<string, string | undefined>): Promise<HardenedGateway> {
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logs.push(...chunk.toString('utf8').split('\n').filter((l) => l !== ''));
      done();
    },
  });
  // Real time plus whatever the test skipped ahead: TTLs still expire on their own under load.
  let skipped = 0;
  const gateway = await startServing({ config, logger: createLogger(config.logLevel, sink), now: () => Date.now() + skipped });
  return Object.assign(gateway, {
    logs,
    advance: (ms: number) => {
      skipped += ms;
    },
  });
}

/** Resolves once the server has received `n` more requests (counted by a listener, so none is missed). */
export function requestsReceived(server: http.Server, n: number): Promise<void> {
  return new Promise((resolve) => {
    let seen = 0;
    const onRequest = () => {
      if (++seen < n) return;
      server.off('request', onRequest);
      resolve();
    };
    server.on('request', onRequest);
  });
}

/** A GET with fetch, keeping status, headers and text. */
export async function fetchText(url: string, init: RequestInit = {}) {
  const res = await fetch(url, init);
  return { status: res.status, headers: res.headers, text: await res.text() };
}
