// A 100k-entry synthetic JSONL recording replayed against the gateway + embedded sandbox running in this
// process: memory stays flat (the reader streams, the runner holds a bounded window, the JSON report is
// spooled). The heap of the replay is sampled at every 5,000th entry through the progress sink; the peak
// after the first 20% may not exceed the early peak by more than a margin far below what holding the
// entries would cost (100k parsed entries of ~1 KB are several hundred MB of heap).
// The gateway runs on a worker thread (from dist/, which the suite's global setup builds) so the two
// cores of a CI machine are both used and the heap figures are the replay's alone; without dist/ it runs
// on this thread, slower but the same test.
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/gateway/config.js';
import { createJsonReportWriter } from '../../src/replay/report/files.js';
import { EMPTY_RULE_SET } from '../../src/replay/rules/rules-file.js';
import { runReplay, type ReplayRunResult } from '../../src/replay/run/runner.js';
import { SANDBOX_KEYS } from '../../src/sandbox/index.js';
import { createLogger } from '../../src/gateway/logging.js';
import { startServing } from '../../src/commands/serving.js';
import { collectGarbage } from '../helpers/collect-garbage.js';

const DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist');

const WORKER_CODE = `
const { parentPort, workerData } = require('node:worker_threads');
const { Writable } = require('node:stream');
(async () => {
  const { startServing } = await import(workerData.start);
  const { loadConfig } = await import(workerData.config);
  const { createLogger } = await import(workerData.logging);
  const silent = new Writable({ write: (_c, _e, done) => done() });
  const gateway = await startServing({ config: loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent' }), logger: createLogger('silent', silent) });
  parentPort.postMessage({ url: gateway.url });
  parentPort.once('message', () => gateway.close().then(() => parentPort.postMessage({ closed: true })));
})().catch((err) => parentPort.postMessage({ error: String(err && err.stack || err) }));
`;

interface Gateway {
  url: string;
  where: string;
  close(): Promise<void>;
}

async function startGatewayForTest(): Promise<Gateway> {
  const start = path.join(DIST, 'commands/serving.js');
  if (existsSync(start)) {
    const worker = new Worker(WORKER_CODE, {
      eval: true,
      workerData: {
        start: pathToFileURL(start).href,
        config: pathToFileURL(path.join(DIST, 'gateway/config.js')).href,
        logging: pathToFileURL(path.join(DIST, 'gateway/logging.js')).href,
      },
    });
    const [message] = (await once(worker, 'message')) as [{ url?: string; error?: string }];
    if (message.error !== undefined || message.url === undefined) throw new Error(`gateway worker: ${message.error}`);
    return {
      url: message.url,
      where: 'worker thread',
      close: async () => {
        worker.postMessage('close');
        await once(worker, 'message');
        await worker.terminate();
      },
    };
  }
  const silent = new Writable({ write: (_c, _e, done) => done() });
  const gateway = await startServing({
    config: loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent' }),
    logger: createLogger('silent', silent),
  });
  return { url: gateway.url, where: 'this thread', close: () => gateway.close() };
}

const ENTRIES = 100_000;
const PLANTED_EVERY = 1000;
const MB = 1024 * 1024;

describe('replaying 100k entries', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'replay-100k-'));
  const file = path.join(dir, 'traffic.jsonl');
  let gateway: Gateway;
  let planted = 0;

  beforeAll(async () => {
    gateway = await startGatewayForTest();
    // Small legacy calls, each distinct URL repeated many times (as real traffic is); their replies are
    // read from the gateway once, so the recording is what the gateway answers, plus planted changes.
    const candidates = [
      ...Array.from({ length: 40 }, (_, i) => `/api/staff/${i + 1}`),
      ...Array.from({ length: 60 }, (_, i) => `/api/client?id=${i + 1}`),
      ...Array.from({ length: 40 }, (_, i) => `/api/service/${i + 1}`),
      ...Array.from({ length: 60 }, (_, i) => `/api/session/${i + 1}`),
      ...Array.from({ length: 40 }, (_, i) => `/api/practitioner/${i + 1}`),
    ];
    const fetched = await Promise.all(
      candidates.map(async (url) => {
        const res = await fetch(gateway.url + url, { headers: { 'x-api-key': SANDBOX_KEYS.primary } });
        return { url, status: res.status, body: await res.text() };
      }),
    );
    // Records that exist: their replies are cached by the gateway, as in steady traffic. (A 404 is not
    // cached and costs a sandbox call each time, which would measure the sandbox, not the replay.)
    const found = fetched.filter((f) => f.status === 200);
    const urls = found.map((f) => f.url);
    const replies = found.map((f) => ({ status: f.status, body: f.body }));
    const out = createWriteStream(file);
    for (let i = 0; i < ENTRIES; i++) {
      const k = i % urls.length;
      const reply = replies[k] as { status: number; body: string };
      let body = reply.body;
      if (i % PLANTED_EVERY === 0 && body.includes('"success"')) {
        body = body.replace('"success"', '"succes"');
        planted++;
      }
      const line = `{"request":{"method":"GET","url":"https://old.example.com${urls[k]}","headers":{"accept":"application/json","x-api-key":"recorded-key-${i % 7}"}},"response":{"status":${reply.status},"headers":{"content-type":"application/json"},"body":${JSON.stringify(body)}}}\n`;
      if (!out.write(line)) await once(out, 'drain');
    }
    out.end();
    await once(out, 'close');
  }, 60_000);

  afterAll(async () => {
    await gateway?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps memory flat and gets every entry right', async () => {
    const samples: Array<{ done: number; heapUsed: number; rss: number }> = [];
    // A full GC before each sample, so the figure is the live heap, not V8's lazy collection schedule.
    const gc = collectGarbage();
    const report = await createJsonReportWriter(path.join(dir, 'report.json'));
    const started = performance.now();
    const result: ReplayRunResult = await runReplay(
      {
        file,
        format: 'jsonl',
        targetUrl: gateway.url,
        apiKey: SANDBOX_KEYS.primary,
        safety: { includeWrites: false, allowProductionWrites: false, targetIsSandboxOrLoopback: true, allPaths: false },
        rules: EMPTY_RULE_SET,
        checkOrder: true,
        concurrency: 16,
        ratePerSecond: undefined,
        timeoutMs: 30_000,
        hourlyBudget: 1000,
      },
      {
        entry: (e) => report.add(e),
        progress: (p) => {
          if (p.done % 5000 === 0) {
            gc();
            const m = process.memoryUsage();
            samples.push({ done: p.done, heapUsed: m.heapUsed, rss: m.rss });
          }
        },
      },
    );
    await report.finish(result.summary, { file, target: gateway.url, rules: [], interrupted: false });
    const seconds = (performance.now() - started) / 1000;

    expect(planted).toBeGreaterThan(50);
    expect(result.summary).toMatchObject({ total: ENTRIES, different: planted, errors: 0, skipped: 0 });
    expect(result.summary.identical).toBe(ENTRIES - planted);
    const early = Math.max(...samples.filter((s) => s.done <= ENTRIES * 0.2).map((s) => s.heapUsed));
    const late = Math.max(...samples.filter((s) => s.done > ENTRIES * 0.2).map((s) => s.heapUsed));
    const peakRss = process.resourceUsage().maxRSS * 1024;
    const figures = {
      gateway: gateway.where,
      fileMB: +(statSync(file).size / MB).toFixed(1),
      seconds: +seconds.toFixed(1),
      heapEarlyMB: +(early / MB).toFixed(1),
      heapLateMB: +(late / MB).toFixed(1),
      rssLastMB: +((samples.at(-1)?.rss ?? 0) / MB).toFixed(1),
      peakRssMB: +(peakRss / MB).toFixed(1),
    };
    console.log(`100k replay: ${JSON.stringify(figures)}`);
    expect(late - early).toBeLessThan(16 * MB);
    // The JSON report holds every entry, though the run never held them.
    const reportText = readFileSync(path.join(dir, 'report.json'), 'utf8');
    expect(reportText.split('\n').length).toBe(ENTRIES + 3);
    expect(reportText).not.toContain('recorded-key-');
  }, 120_000);
});
