// Paces the replay: at most `concurrency` calls in flight and, with a rate, at most `ratePerSecond` call
// starts per second (evenly spaced), so a replay is fast but stays under the upstream budget.
// The clock and the timer are handed in (tests drive them); it must never start a call itself.
import { setTimeout as sleepFor } from 'node:timers/promises';

export interface PacerOptions {
  concurrency: number;
  ratePerSecond?: number | undefined;
  now?: () => number;
  sleep?: (ms: number) => Promise<unknown>;
}

export interface Pacer {
  /** Resolves when a call may start; call the returned function when it has finished. */
  acquire(): Promise<() => void>;
  readonly active: number;
}

export function createPacer(options: PacerOptions): Pacer {
  const concurrency = Math.max(1, Math.floor(options.concurrency));
  const now = options.now ?? (() => performance.now());
  const sleep = options.sleep ?? ((ms: number) => sleepFor(ms));
  const spacing = options.ratePerSecond ? 1000 / options.ratePerSecond : 0;
  let active = 0;
  let nextStart = -Infinity;
  const waiting: Array<() => void> = [];

  return {
    get active() {
      return active;
    },
    async acquire() {
      if (active < concurrency) active++;
      // A released slot is handed over directly, so `active` stays counted for the waiter.
      else await new Promise<void>((resolve) => waiting.push(resolve));
      if (spacing > 0) {
        const t = now();
        const start = Math.max(t, nextStart);
        nextStart = start + spacing;
        if (start > t) await sleep(start - t);
      }
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const next = waiting.shift();
        if (next) next();
        else active--;
      };
    },
  };
}
