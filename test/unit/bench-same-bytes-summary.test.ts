// The bench summary's same-bytes figures (bench/summary-checks.ts): the gateway's CPU per request over each
// baseline's, beside its target, on the bench's Node and, when its rows ran, on Node 26.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Measured } from '../../bench/measure.js';
import { printSameBytesRatios } from '../../bench/summary-checks.js';
import * as names from '../../bench/target-names.js';

const row = (target: string, cpuUsPerRequest: number, rps: number): Measured => ({
  target,
  keys: 'new per request',
  rps,
  p50: 1,
  p99: 2,
  rssMb: 100,
  cpuUsPerRequest,
  errors: 0,
});

/** The lines printed for these rows. */
function printed(measured: Measured[], node26?: string): string[] {
  const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
  printSameBytesRatios((target) => measured.find((m) => m.target === target), node26);
  return log.mock.calls.map(([line]) => String(line));
}

/** The figure of the line whose name is `name`, under the heading line that contains `under`. */
function figureOf(lines: string[], under: string, name: string): string | undefined {
  const from = lines.findIndex((line) => line.includes(under));
  return lines
    .slice(from + 1)
    .find((line) => line.trimStart().startsWith(`${name} `))
    ?.slice(63)
    .trim();
}

const baselines = [10, 100, 1000].flatMap((n) => [row(names.handwritten(n), 100, 1000), row(names.nginxLua(n), 50, 2000)]);

describe('the same-bytes figures of the bench summary', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('divides the gateway CPU per request by the baseline one and holds it to its target, req/s beside', () => {
    const lines = printed([...baselines, row(names.translatedUncached(10), 90, 1200), row(names.translatedUncached(100), 120, 900)]);
    const node = `the gateway on Node ${process.version}:`;
    expect(figureOf(lines, node, 'CPU gateway / hand-written node:http 10')).toBe('0.90x  (<= 1x: met)  (CPU 90 vs 100 us/req; req/s 1.20x)');
    expect(figureOf(lines, node, 'CPU gateway / nginx+Lua 10')).toBe('1.80x  (<= 2x: met)  (CPU 90 vs 50 us/req; req/s 0.60x)');
    expect(figureOf(lines, node, 'CPU gateway / hand-written node:http 100')).toBe('1.20x  (<= 1x: MISSED)  (CPU 120 vs 100 us/req; req/s 0.90x)');
    expect(figureOf(lines, node, 'CPU gateway / nginx+Lua 100')).toBe('2.40x  (<= 1x: MISSED)  (CPU 120 vs 50 us/req; req/s 0.45x)');
    expect(figureOf(lines, node, 'CPU gateway / nginx+Lua 1000')).toBe('n/a  (not run)  (CPU n/a vs 50 us/req; req/s n/a)');
    expect(lines.some((line) => line.includes('Node 26'))).toBe(false);
  });

  it('holds the gateway on Node 26 to the same targets against the same baselines, when its rows ran', () => {
    // The second Node's version as the bench reads it, never the one running this test (CI runs it on Node 26 too).
    const second = `v${Number(process.versions.node.split('.')[0]) + 1}.0.0`;
    const lines = printed([...baselines, row(names.translatedUncached(1000), 150, 100), row(names.onNode26(names.translatedUncached(1000)), 80, 130)], second);
    const own = `the gateway on Node ${process.version}:`;
    const node26 = `the gateway on Node ${second}:`;
    expect(lines.indexOf(`  ${own}`)).toBeLessThan(lines.indexOf(`  ${node26}`));
    expect(figureOf(lines, own, 'CPU gateway / hand-written node:http 1000')).toBe('1.50x  (<= 1x: MISSED)  (CPU 150 vs 100 us/req; req/s 0.10x)');
    expect(figureOf(lines, node26, 'CPU gateway / hand-written node:http 1000')).toBe('0.80x  (<= 1x: met)  (CPU 80 vs 100 us/req; req/s 0.13x)');
    expect(figureOf(lines, node26, 'CPU gateway / nginx+Lua 1000')).toBe('1.60x  (<= 1x: MISSED)  (CPU 80 vs 50 us/req; req/s 0.07x)');
  });
});
