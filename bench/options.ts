// The bench's command-line options (`npm run bench -- --duration 6 --rounds 3`), read once, with their
// defaults. docs/benchmarks.md lists them.

function value(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : undefined;
}

function number(name: string, fallback: number): number {
  const text = value(name);
  const n = Number(text ?? fallback);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name}: a number of 0 or more, not ${text}`);
  return n;
}

function sizes(name: string, fallback: number[]): number[] {
  const text = value(name);
  if (text === undefined) return fallback;
  const list = text.split(',').map(Number);
  if (list.some((n) => !Number.isInteger(n) || n < 1)) throw new Error(`${name}: whole numbers separated by commas, not ${text}`);
  return list;
}

/** `--node26 <path>`, `--node26 off`, or by default the Node 26 of the npm registry (`npx -y node@26`). */
export type Node26Choice = { kind: 'npx' } | { kind: 'path'; path: string } | { kind: 'off' };

function node26(): Node26Choice {
  const text = value('--node26');
  if (text === undefined) return { kind: 'npx' };
  return text === 'off' ? { kind: 'off' } : { kind: 'path', path: text };
}

export interface BenchOptions {
  /** Seconds of each measured run. */
  durationS: number;
  /** How many times every target runs (order alternating); its best run is kept. */
  rounds: number;
  /** Seconds of load before each measured run, not counted. */
  warmupS: number;
  connections: number;
  /** Also run the gateway under --cpu-prof and print its top frames. */
  profile: boolean;
  /** Team sizes of the cold team-listing rows (practitioners in the fake v1). */
  rosterSizes: number[];
  node26: Node26Choice;
  /** Only the targets whose name matches (ratios whose sides were not run print n/a). */
  only: RegExp | undefined;
}

export function readOptions(): BenchOptions {
  const only = value('--only');
  return {
    durationS: number('--duration', 4),
    rounds: Math.max(1, number('--rounds', 2)),
    warmupS: number('--warmup', 2),
    connections: Math.max(1, number('--connections', 50)),
    profile: process.argv.includes('--profile'),
    rosterSizes: sizes('--roster-sizes', [200, 2000, 10_000]),
    node26: node26(),
    only: only === undefined ? undefined : new RegExp(only),
  };
}
