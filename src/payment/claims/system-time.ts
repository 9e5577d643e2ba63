// The time the claims engine and the repeats waiting on a claim read and wait on: a clock and timers that
// are handed in (a test or a host drives them), the system's by default. Under src/payment/ this is the one
// file that touches the global clock and timers; a lint rule keeps it so.

/** Milliseconds since the epoch. */
export type Clock = () => number;

export interface Timers {
  /** Calls `run` once after `ms`; the returned function cancels it (and does nothing once it ran). */
  after(ms: number, run: () => void): () => void;
}

export const systemClock: Clock = () => Date.now();

export const systemTimers: Timers = {
  after(ms, run) {
    const timer = setTimeout(run, ms);
    return () => clearTimeout(timer);
  },
};

/** Timers for background rounds, which keep no process alive by themselves (a library's host exits when it is
 * done with the gateway, even without closing it). */
export const backgroundTimers: Timers = {
  after(ms, run) {
    const timer = setTimeout(run, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
};

/** Resolves after `ms` on `timers`. */
export const pause = (timers: Timers, ms: number): Promise<void> => new Promise((resolve) => void timers.after(ms, resolve));
