// The repeats waiting on a claim in this process, by claim id: each waits until the claim is said to have
// changed, or until its own time is up, whichever comes first. The stores wake them on their own writes
// (and, in Redis, on another replica's announcement); the engine reads the claim again either way, so a
// wake-up that never comes only costs time.
import { systemTimers, type Timers } from './system-time.js';

export class ClaimWaiters {
  private readonly waiting = new Map<string, Set<() => void>>();

  constructor(private readonly timers: Timers = systemTimers) {}

  /** Resolves when `wake(id)` is called, or after `ms`; never rejects. */
  wait(id: string, ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const set = this.waiting.get(id) ?? new Set<() => void>();
      this.waiting.set(id, set);
      const done = (): void => {
        cancel();
        set.delete(done);
        if (set.size === 0 && this.waiting.get(id) === set) this.waiting.delete(id);
        resolve();
      };
      const cancel = this.timers.after(Math.max(0, ms), done);
      set.add(done);
    });
  }

  wake(id: string): void {
    for (const done of [...(this.waiting.get(id) ?? [])]) done();
  }
}
