// Starts a real gateway on a loopback port for a test, with its log lines captured in memory.
import { Writable } from 'node:stream';
import { loadConfig } from '../../src/gateway/config.js';
import { createLogger } from '../../src/gateway/logging.js';
import { startServing } from '../../src/commands/serving.js';
import type { RunningGateway } from '../../src/gateway/start.js';
import { fetchReply, type Reply } from './fetch-reply.js';

export interface TestGateway extends RunningGateway {
  /** Every log line written so far, raw. */
  logs: string[];
}

/** `now`: the gateway's clock (ms since the epoch), for a test that must not wait for time to pass. */
export async function startTestGateway(env: Record<string, string | undefined> = {}, options: { now?: () => number } = {}): Promise<TestGateway> {
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'debug', ...env });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logs.push(...chunk.toString('utf8').split('\n').filter((l) => l !== ''));
      done();
    },
  });
  const logger = createLogger(config.logLevel, sink);
  const gateway = await startServing({ config, logger, ...(options.now ? { now: options.now } : {}) });
  return Object.assign(gateway, { logs });
}

/** GET and read the reply as text (exact bytes matter) and as parsed JSON. */
export function get(base: string, path: string, headers: Record<string, string> = {}): Promise<Reply> {
  return fetchReply(`${base}${path}`, { headers });
}
