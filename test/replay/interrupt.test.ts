// An interrupted replay (SIGINT/SIGTERM): against a loopback target that holds every reply until the test
// releases it, so the calls in flight at the signal are known exactly. The runner stops sending, finishes
// the calls in flight and hands them over in file order; the command writes reports marked interrupted,
// exits 130, and a second signal removes the partial files and quits. Signals come from an injected
// emitter (never real ones), the second signal's exit is injected; every wait is on an event.
import { EventEmitter } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { runReplayCommand, type CommandIo } from '../../src/replay/run/run-command.js';
import { replayGateway } from '../../src/commands/replay-gateway.js';
import type { ReportEntry } from '../../src/replay/report/entry.js';
import { runReplay, type ReplayRunOptions } from '../../src/replay/run/runner.js';
import { replayRunOptions } from './run-options.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'replay-interrupt-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Anything the test may wait for (a request reaching the target, a line written) emits 'change'. */
const activity = new EventEmitter();
activity.setMaxListeners(0);

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => activity.once('change', resolve));
}

interface HeldTarget {
  url: string;
  /** Paths received, in arrival order. */
  received: string[];
  /** Answers the held call to this path. */
  release(pathname: string): void;
  releaseAll(): void;
  /** From now on a new call is answered at once: a runner that kept sending would run on to the end, not hang. */
  answerNewCalls(): void;
}

let servers: Server[] = [];
afterEach(async () => {
  for (const s of servers) s.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  servers = [];
});

/** Answers `/api/held/N` with the recorded reply (`n` = "N"), except N = 6, which differs; only when released. */
async function heldTarget(): Promise<HeldTarget> {
  const received: string[] = [];
  const held = new Map<string, ServerResponse>();
  let answerAtOnce = false;
  const answer = (pathname: string): void => {
    const res = held.get(pathname);
    if (!res) throw new Error(`no held call to ${pathname}`);
    held.delete(pathname);
    const n = pathname.split('/').pop();
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ status: 'success', response: { n: n === '6' ? 'six' : n } }));
  };
  const server = createServer((req, res) => {
    const pathname = req.url ?? '';
    req.resume();
    req.on('end', () => {
      received.push(pathname);
      held.set(pathname, res);
      if (answerAtOnce) answer(pathname);
      activity.emit('change');
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    release: answer,
    releaseAll: () => {
      for (const pathname of [...held.keys()]) answer(pathname);
    },
    answerNewCalls: () => {
      answerAtOnce = true;
    },
  };
}

const ENTRIES = 40;

function recording(name: string, entries = ENTRIES): string {
  const file = path.join(dir, name);
  const lines = Array.from({ length: entries }, (_, i) =>
    JSON.stringify({
      request: { method: 'GET', url: `/api/held/${i}`, headers: {} },
      response: { status: 200, body: { status: 'success', response: { n: String(i) } } },
    }),
  );
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

const heldPaths = (from: number, to: number): string[] => Array.from({ length: to - from }, (_, i) => `/api/held/${from + i}`);

const runOptions = (file: string, targetUrl: string, o: Partial<ReplayRunOptions> = {}): ReplayRunOptions =>
  replayRunOptions(file, targetUrl, { timeoutMs: 10_000, ...o });

describe('runReplay with an abort signal', () => {
  it('stops sending at the signal, finishes the calls in flight and hands them over in file order', async () => {
    const target = await heldTarget();
    const file = recording('runner-abort.jsonl');
    const controller = new AbortController();
    const emitted: ReportEntry[] = [];
    const run = runReplay(runOptions(file, target.url, { signal: controller.signal }), {
      entry: (e) => {
        emitted.push(e);
        activity.emit('change');
      },
    });
    await until(() => target.received.length === 4);
    // Replies come back out of order: the last call first.
    target.release('/api/held/3');
    await until(() => target.received.length === 5);
    controller.abort();
    target.answerNewCalls();
    for (const p of ['/api/held/1', '/api/held/4', '/api/held/0', '/api/held/2']) target.release(p);
    const result = await run;

    expect(result.interrupted).toBe(true);
    expect(result.entriesInFile).toBe(ENTRIES);
    expect(target.received).toEqual(heldPaths(0, 5));
    expect(emitted.map((e) => e.index)).toEqual([0, 1, 2, 3, 4]);
    expect(emitted.every((e) => e.outcome === 'identical')).toBe(true);
    expect(result.summary).toMatchObject({ total: 5, identical: 5, different: 0, errors: 0, skipped: 0 });
  });

  it('stops during the first pass: nothing is sent, the file count is unknown', async () => {
    const target = await heldTarget();
    const file = recording('runner-scan.jsonl');
    const emitted: ReportEntry[] = [];
    const result = await runReplay(runOptions(file, target.url, { signal: AbortSignal.abort() }), { entry: (e) => void emitted.push(e) });
    expect(result).toMatchObject({ interrupted: true, entriesInFile: undefined, summary: { total: 0 } });
    expect(emitted).toEqual([]);
    expect(target.received).toEqual([]);
  });

  it('ends a --rate wait at once: the next call is not sent', async () => {
    const target = await heldTarget();
    const file = recording('runner-rate.jsonl', 3);
    const controller = new AbortController();
    // 0.01/s: the second call would start 100 s after the first, far beyond the test's timeout.
    const run = runReplay(runOptions(file, target.url, { signal: controller.signal, ratePerSecond: 0.01 }));
    await until(() => target.received.length === 1);
    controller.abort();
    target.answerNewCalls();
    target.release('/api/held/0');
    const result = await run;
    expect(result).toMatchObject({ interrupted: true, entriesInFile: 3, summary: { total: 1, identical: 1 } });
    expect(target.received).toEqual(['/api/held/0']);
  });

  it('is not interrupted when the signal comes after the last call was sent', async () => {
    const target = await heldTarget();
    const file = recording('runner-late.jsonl', 4);
    const controller = new AbortController();
    const run = runReplay(runOptions(file, target.url, { signal: controller.signal }));
    await until(() => target.received.length === 4);
    controller.abort();
    target.releaseAll();
    const result = await run;
    expect(result).toMatchObject({ interrupted: false, entriesInFile: 4, summary: { total: 4, identical: 4 } });
  });
});

interface CommandRun {
  done: Promise<number>;
  out: { stdout: string; stderr: string };
  signals: EventEmitter;
  exits: number[];
}

function startCommand(file: string, raw: Record<string, unknown>, signals = new EventEmitter()): CommandRun {
  const out = { stdout: '', stderr: '' };
  const exits: number[] = [];
  const io: CommandIo = {
    stdout: {
      write: (t: string) => {
        out.stdout += t;
        activity.emit('change');
      },
    },
    stderr: {
      write: (t: string) => {
        out.stderr += t;
        activity.emit('change');
      },
    },
    env: {},
    signals,
    exit: (code) => void exits.push(code),
  };
  return { done: runReplayCommand(file, { concurrency: '4', apiKey: 'replay-key-0001', ...raw }, io, replayGateway), out, signals, exits };
}

const listeners = (signals: EventEmitter): number => signals.listenerCount('SIGINT') + signals.listenerCount('SIGTERM');
const partials = (where: string): string[] => readdirSync(where).filter((f) => f.includes('.partial'));

interface JsonReport {
  summary: { total: number; identical: number; different: number; errors: number; skipped: number };
  interrupted: boolean;
  entriesInFile?: number;
  entries: Array<{ index: number; url: string; outcome: string }>;
}

describe('replay command: SIGINT / SIGTERM', () => {
  it('on the first signal finishes the calls in flight, reports the entries done as interrupted and exits 130', async () => {
    const target = await heldTarget();
    const file = recording('command.jsonl');
    const out = path.join(dir, 'command-out');
    mkdirSync(out);
    const json = path.join(out, 'report.json');
    const html = path.join(out, 'report.html');
    const run = startCommand(file, { target: target.url, json, html });

    // Four entries done and emitted, four more in flight (held), the fifth call waiting for a slot.
    await until(() => target.received.length === 4);
    expect(listeners(run.signals)).toBe(2);
    for (const p of heldPaths(0, 4)) target.release(p);
    await until(() => target.received.length === 8 && run.out.stderr.includes('replay: 4/40 entries (10%)'));

    run.signals.emit('SIGINT');
    target.answerNewCalls();
    expect(run.out.stderr).toContain(
      'interrupted: finishing the calls in flight, then writing the reports of the entries done (press Ctrl-C again to quit at once)\n',
    );
    // The calls in flight at the signal are answered only now, and still reported.
    for (const p of heldPaths(4, 8)) target.release(p);
    const code = await run.done;

    expect(code).toBe(130);
    expect(run.exits).toEqual([]);
    expect(target.received).toEqual(heldPaths(0, 8));
    const report = JSON.parse(readFileSync(json, 'utf8')) as JsonReport;
    expect(report).toMatchObject({ interrupted: true, entriesInFile: 40 });
    expect(report.summary).toMatchObject({ total: 8, identical: 7, different: 1, errors: 0, skipped: 0 });
    expect(report.entries.map((e) => e.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(report.entries[6]).toMatchObject({ url: '/api/held/6', outcome: 'different' });
    expect(readFileSync(html, 'utf8')).toContain('Interrupted: 8 of 40 entries replayed.');
    expect(partials(out)).toEqual([]);
    expect(readdirSync(out).sort()).toEqual(['report.html', 'report.json']);

    expect(run.out.stdout).toMatch(/^all\s+8\s+7\s+1\s+0\s+0$/m);
    expect(run.out.stdout).toContain('interrupted after 8 of 40 entries: the reports cover those 8\n');
    expect(run.out.stdout).not.toMatch(/differ or failed/);
    expect(run.out.stdout).toContain(`JSON report: ${json}\n`);
    expect(run.out.stderr).toContain('replay: 8/40 entries done in');
    expect(listeners(run.signals)).toBe(0);
  });

  it('with --propose-mappings, proposes and writes nothing when interrupted', async () => {
    const target = await heldTarget();
    const file = recording('command-propose.jsonl');
    const out = path.join(dir, 'propose-out');
    mkdirSync(out);
    const json = path.join(out, 'report.json');
    const run = startCommand(file, { target: target.url, json, proposeMappings: path.join(out, 'proposed') });
    await until(() => target.received.length === 4);
    run.signals.emit('SIGINT');
    target.answerNewCalls();
    target.releaseAll();
    expect(await run.done).toBe(130);
    expect(JSON.parse(readFileSync(json, 'utf8'))).toMatchObject({ interrupted: true, proposals: [], unexplained: [] });
    expect(readdirSync(out)).toEqual(['report.json']);
    expect(run.out.stdout).toContain('\nmapping proposal: not made, the run was interrupted (nothing written)\n');
  });

  it('on a second signal removes the partial report files and exits 130 at once', async () => {
    const target = await heldTarget();
    const file = recording('command-twice.jsonl');
    const out = path.join(dir, 'twice-out');
    mkdirSync(out);
    const json = path.join(out, 'report.json');
    const run = startCommand(file, { target: target.url, json, html: path.join(out, 'report.html') });
    await until(() => target.received.length === 4);
    for (const p of heldPaths(0, 4)) target.release(p);
    await until(() => target.received.length === 8 && run.out.stderr.includes('replay: 4/40 entries (10%)'));
    expect(partials(out)).toEqual(['report.json.entries.partial']);

    run.signals.emit('SIGINT');
    target.answerNewCalls();
    expect(run.exits).toEqual([]);
    run.signals.emit('SIGTERM');
    expect(run.exits).toEqual([130]);
    expect(partials(out)).toEqual([]);
    expect(run.out.stderr).toContain('interrupted again: partial report files removed, quitting (exit 130)\n');

    // The injected exit returns: the command then writes nothing more and returns 130.
    target.releaseAll();
    expect(await run.done).toBe(130);
    expect(readdirSync(out)).toEqual([]);
    expect(run.out.stdout).toBe('');
    expect(listeners(run.signals)).toBe(0);
  });

  it('on a signal during the first pass sends nothing and reports no entries, exit 130', async () => {
    const target = await heldTarget();
    const file = recording('command-scan.jsonl');
    const json = path.join(dir, 'scan.json');
    // The signal arrives as soon as the command listens, before the first pass has read the file.
    const signals = new EventEmitter();
    signals.on('newListener', (name: string) => {
      if (name === 'SIGTERM') queueMicrotask(() => signals.emit('SIGINT'));
    });
    const run = startCommand(file, { target: target.url, json }, signals);
    expect(await run.done).toBe(130);
    expect(target.received).toEqual([]);
    const report = JSON.parse(readFileSync(json, 'utf8')) as JsonReport;
    expect(report).toMatchObject({ interrupted: true, summary: { total: 0 }, entries: [] });
    expect(report.entriesInFile).toBeUndefined();
    expect(run.out.stdout).toContain('interrupted while the recording was still being checked, before any call: the reports cover no entries\n');
    expect(listeners(signals)).toBe(0);
  });

  it('a complete run: "interrupted": false, the usual verdict, no listener left', async () => {
    const target = await heldTarget();
    const file = recording('command-complete.jsonl', 4);
    const json = path.join(dir, 'complete.json');
    const run = startCommand(file, { target: target.url, json });
    await until(() => target.received.length === 4);
    target.releaseAll();
    expect(await run.done).toBe(0);
    const text = readFileSync(json, 'utf8');
    expect(text).toMatch(/^\{"summary":\{.*\},"interrupted":false,"file":/);
    expect((JSON.parse(text) as JsonReport).interrupted).toBe(false);
    expect(run.out.stdout).toContain('0 of 4 entries differ or failed (allowed: 0): exit 0\n');
    expect(run.out.stdout).not.toContain('interrupted');
    expect(listeners(run.signals)).toBe(0);
  });

  it('removes its listeners and the JSON spool when the run fails', async () => {
    const file = path.join(dir, 'broken.jsonl');
    writeFileSync(file, '{"request":{"method":"GET","url":"/api/held/0"},"response":{"status":200,"body":""}}\n{"request":\n');
    const json = path.join(dir, 'broken-out', 'report.json');
    const run = startCommand(file, { target: 'http://127.0.0.1:9', json });
    expect(await run.done).toBe(2);
    expect(run.out.stderr).toMatch(/broken\.jsonl: line 2/);
    expect(existsSync(`${json}.entries.partial`)).toBe(false);
    expect(listeners(run.signals)).toBe(0);
  });
});
