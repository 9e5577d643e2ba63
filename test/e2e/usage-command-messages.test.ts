// `legacy-gateway usage` against a real metrics listener (startMetricsServer) over a usage tracker whose shared
// store is in the test's hands: the server's reason is printed with a 503, and a report with no calls while
// the gateway has counted some that are not written yet says when they will be (the flush interval).
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { runUsage, type UsageIo } from '../../src/commands/usage.js';
import { startMetricsServer, type MetricsServer } from '../../src/gateway/metrics/metrics-server.js';
import { createUsageTracker, type IntegrationUsage, type SharedUsageStore, type UsageTracker } from '../../src/gateway/state/usage/usage-tracker.js';

const SECRET = 'usage-command-messages-secret-0123456789';

/** A shared store that holds nothing yet, or cannot be read. */
function store(readable: boolean): SharedUsageStore {
  return {
    isUp: () => readable,
    apply: () => Promise.resolve(),
    read: (): Promise<IntegrationUsage[]> => (readable ? Promise.resolve([]) : Promise.reject(new Error('Redis gave no answer'))),
  };
}

const opened: Array<MetricsServer | UsageTracker> = [];
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close();
  process.exitCode = 0;
});

async function listener(usage: UsageTracker): Promise<MetricsServer> {
  const server = await startMetricsServer({ registry: new Registry(), host: '127.0.0.1', port: 0, usage });
  opened.push(usage, server);
  return server;
}

async function usageCommand(url: string): Promise<{ out: string; err: string; code: number }> {
  const out: string[] = [];
  const err: string[] = [];
  const io: UsageIo = { out: (t) => out.push(t), err: (t) => err.push(t), fetch: (...args) => fetch(...args), readStdin: () => Promise.resolve('') };
  process.exitCode = 0;
  await runUsage({ url }, {}, io);
  return { out: out.join(''), err: err.join(''), code: Number(process.exitCode ?? 0) };
}

describe('legacy-gateway usage: what it says when there is nothing to show', () => {
  it("a 503 is printed with the gateway's reason", async () => {
    const server = await listener(createUsageTracker({ secret: SECRET, shared: store(false) }));
    expect(await usageCommand(server.url)).toEqual({
      out: '',
      err: `legacy-gateway usage: cannot fetch ${server.url}/usage: HTTP 503: usage unavailable: the shared counts (Redis) cannot be read now\n`,
      code: 1,
    });
  });

  it('no calls in the shared counts while this gateway has counted some: they are written every 5 seconds', async () => {
    const usage = createUsageTracker({ secret: SECRET, shared: store(true) });
    const server = await listener(usage);
    usage.record({ apiKey: 'k-1', method: 'clients', userAgent: 'crm/1' });
    usage.record({ apiKey: 'k-1', method: 'payment', userAgent: 'crm/1' });
    expect(await usageCommand(server.url)).toEqual({
      out: 'no legacy calls in the shared counts yet: this gateway has counted 2 that it writes to Redis every 5 seconds; ask again in 5 seconds\n',
      err: '',
      code: 0,
    });
    const report = (await (await fetch(`${server.url}/usage`)).json()) as Record<string, unknown>;
    expect(report).toEqual({ integrations: [], shared: true, flushEveryMs: 5000, unflushed: 2 });
  });

  it('nothing counted anywhere: no legacy calls counted', async () => {
    const server = await listener(createUsageTracker({ secret: SECRET, shared: store(true) }));
    expect(await usageCommand(server.url)).toEqual({ out: 'no legacy calls counted\n', err: '', code: 0 });
  });
});
