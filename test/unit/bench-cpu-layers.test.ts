// The bench's CPU profile by layer (bench/cpu-layers.ts), over a profile written by hand: each sample goes to
// the layer of the first frame from the leaf up that has one, a native write to whoever wrote, Node's plumbing
// to its caller; idle samples and the start (before the handler's first request) are left out.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { layerShares } from '../../bench/cpu-layers.js';

const DIST = 'file:///srv/gateway/dist';

/** Frames from the root down, each `functionName url`; '' for a native one. */
type Stack = Array<[string, string]>;

/** A .cpuprofile whose samples are the given stacks, in order. */
function profileOf(stacks: Stack[]): string {
  const nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children: number[] }> = [
    { id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1 }, children: [] },
  ];
  const samples: number[] = [];
  for (const stack of stacks) {
    let at = nodes[0]!;
    for (const [functionName, url] of stack) {
      let child = at.children.map((id) => nodes[id - 1]!).find((n) => n.callFrame.functionName === functionName && n.callFrame.url === url);
      if (!child) {
        child = { id: nodes.length + 1, callFrame: { functionName, url, lineNumber: 0 }, children: [] };
        nodes.push(child);
        at.children.push(child.id);
      }
      at = child;
    }
    samples.push(at.id);
  }
  return JSON.stringify({ nodes, samples, startTime: 0, endTime: samples.length, timeDeltas: samples.map(() => 1) });
}

const handler: Stack = [['parserOnIncoming', 'node:_http_server'], ['gateway', `${DIST}/gateway/edge/router.js`]];

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function sharesOf(stacks: Stack[]): ReturnType<typeof layerShares> {
  dir = mkdtempSync(path.join(os.tmpdir(), 'lgw-layers-'));
  const file = path.join(dir, 'gateway.cpuprofile');
  writeFileSync(file, profileOf(stacks));
  return layerShares(file);
}

const percentOf = (result: ReturnType<typeof layerShares>, layer: string): number => result.shares.find((s) => s.layer === layer)!.percent;

describe('the CPU by layer', () => {
  it('gives each sample the layer of the first frame from the leaf up that has one, leaving idle and the start out', () => {
    const result = sharesOf([
      [['compileSourceTextModule', 'node:internal/modules/esm/utils']],
      [['(idle)', '']],
      handler,
      [...handler, ['write', `${DIST}/gateway/request-line.js`], ['write', 'file:///srv/gateway/node_modules/sonic-boom/index.js'], ['writeSync', 'node:fs'], ['writeString', '']],
      [['onStreamRead', 'node:internal/stream_base_commons'], ['execute', 'file:///srv/gateway/node_modules/undici/lib/dispatcher/client-h1.js'], ['wasm-function[20]', 'wasm://wasm/00034eea']],
      [['processTicksAndRejections', 'node:internal/process/task_queues'], ['runList', `${DIST}/mapping/run.js`], ['parse', '']],
      [['processTicksAndRejections', 'node:internal/process/task_queues'], ['writeJsonReply', `${DIST}/gateway/edge/write-json.js`], ['end', 'node:_http_outgoing'], ['uncork', 'node:internal/streams/writable'], ['writev', '']],
      [['processTicksAndRejections', 'node:internal/process/task_queues'], ['writeH1', 'file:///srv/gateway/node_modules/undici/lib/dispatcher/client-h1.js'], ['Socket._write', 'node:net'], ['writeLatin1String', '']],
      [['(garbage collector)', '']],
      [['processTicksAndRejections', 'node:internal/process/task_queues'], ['runMicrotasks', '']],
    ]);
    expect(result.startSamples).toBe(1);
    expect(result.busySamples).toBe(8);
    const eighth = 100 / 8;
    expect(percentOf(result, 'edge and steps')).toBe(eighth);
    expect(percentOf(result, 'write system call: the log line')).toBe(eighth);
    expect(percentOf(result, 'upstream client')).toBe(eighth);
    expect(percentOf(result, 'translation')).toBe(eighth);
    expect(percentOf(result, 'write system call: the reply')).toBe(eighth);
    expect(percentOf(result, 'write system call: the v1 request')).toBe(eighth);
    expect(percentOf(result, 'garbage collection')).toBe(eighth);
    expect(percentOf(result, 'node internals / event loop')).toBe(eighth);
    expect(result.shares.reduce((sum, s) => sum + s.percent, 0)).toBe(100);
    expect(result.other).toEqual([]);
  });

  it('names the frames left in "other"', () => {
    const result = sharesOf([handler, [['(program)', '']], [['(program)', '']], [...handler, ['Command', 'file:///srv/gateway/node_modules/commander/lib/command.js']]]);
    expect(result.busySamples).toBe(4);
    expect(percentOf(result, 'other')).toBe(75);
    expect(result.other).toEqual([
      { frame: '(program)', percent: 50 },
      { frame: 'Command node_modules/commander/lib/command.js', percent: 25 },
    ]);
  });
});
