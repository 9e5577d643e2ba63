// Replies held back on purpose (the tok_timeout payment): the timers, so the sandbox can cancel them all
// when it closes. It must never answer a held reply itself, and never keep the process alive after close.
import type { Response } from 'express';

export interface HungReplies {
  /** Resolves true after `ms`, or false when the client left first or the sandbox is closing. */
  wait(ms: number, res: Response): Promise<boolean>;
  /** Cancels every wait (each resolves false). */
  cancelAll(): void;
}

export function createHungReplies(): HungReplies {
  const cancels = new Set<() => void>();
  return {
    wait(ms, res) {
      return new Promise<boolean>((resolve) => {
        // Already gone: its 'close' event will not come again.
        if (res.destroyed || res.closed) {
          resolve(false);
          return;
        }
        const finish = (elapsed: boolean): void => {
          clearTimeout(timer);
          res.off('close', cancel);
          cancels.delete(cancel);
          resolve(elapsed);
        };
        const cancel = (): void => finish(false);
        const timer = setTimeout(() => finish(true), ms);
        res.once('close', cancel);
        cancels.add(cancel);
      });
    },
    cancelAll() {
      for (const cancel of [...cancels]) cancel();
    },
  };
}
