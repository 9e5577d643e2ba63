// Bounds how many pieces of work of one kind run at once: the others wait their turn, first come first
// served. Used where each piece holds a lot of memory while it runs (a team listing reading its whole v1
// roster) and the work is bound by this process's CPU anyway, so running fewer at once costs no
// throughput. In process only; it never drops or times out work (the caller's own timeouts apply).

export interface ConcurrencyLimit {
  /** Runs `work` once fewer than the limit are running; settles as `work` does. */
  run<T>(work: () => Promise<T>): Promise<T>;
  /** How many are waiting for their turn. */
  waiting(): number;
}

export function createConcurrencyLimit(max: number): ConcurrencyLimit {
  let running = 0;
  const queue: Array<() => void> = [];
  const release = (): void => {
    // The slot goes to the first in line, or is freed.
    const next = queue.shift();
    if (next) next();
    else running--;
  };
  return {
    async run(work) {
      if (running < max) running++;
      else await new Promise<void>((resolve) => queue.push(resolve));
      try {
        return await work();
      } finally {
        release();
      }
    },
    waiting: () => queue.length,
  };
}
