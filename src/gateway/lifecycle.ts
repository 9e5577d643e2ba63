// The gateway's shutdown: knows every request in flight, and drains them on SIGTERM. Draining means:
// readiness turns 503 at once, the listener stops accepting, idle keep-alive connections close, replies
// still to come carry `Connection: close`, and the gateway waits until no request is in flight or
// SHUTDOWN_TIMEOUT_MS has passed; then it cuts off what is left, except requests marked "must finish"
// (a payment in flight) and work held with holdUntilDone, which it waits for past the deadline: each is
// bounded by its own upstream timeout, and a payment that was sent must always be answered.
// It never ends a must-finish request itself, and never exits the process (the CLI does).
import type http from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface RequestLifecycle {
  /** Called by the listener for every request it receives. */
  track(req: IncomingMessage, res: ServerResponse): void;
  /** This request must finish and answer, even past the shutdown deadline (payment in flight). */
  mustFinish(req: IncomingMessage): void;
  /** Keeps the drain waiting for `work`, past the deadline too; returns `work` unchanged. */
  holdUntilDone<T>(work: Promise<T>): Promise<T>;
  draining(): boolean;
  inFlight(): number;
  /** Starts (or joins) the drain of `server`; resolves once nothing is left to wait for. */
  drain(server: http.Server): Promise<DrainReport>;
}

export interface DrainReport {
  /** Requests that finished during the drain. */
  finished: number;
  /** Requests still unanswered at the deadline, whose connections were closed. */
  cutOff: number;
  /** Must-finish requests and held work that ran past the deadline. */
  waitedPastDeadline: number;
}

interface Tracked {
  req: IncomingMessage;
  res: ServerResponse;
  mustFinish: boolean;
}

export function createLifecycle(options: { shutdownTimeoutMs: number }): RequestLifecycle {
  const tracked = new Map<IncomingMessage, Tracked>();
  const held = new Set<Promise<unknown>>();
  let draining = false;
  let finishedDuringDrain = 0;
  let onSettled: (() => void) | undefined;
  let drainPromise: Promise<DrainReport> | undefined;

  const idle = (): boolean => tracked.size === 0 && held.size === 0;
  const settledOne = (): void => {
    if (draining) finishedDuringDrain++;
    onSettled?.();
  };

  /** While draining, the connection of this reply closes once it is sent (the client reconnects elsewhere). */
  const closeAfterReply = (t: Tracked): void => {
    if (!t.res.headersSent) t.res.setHeader('connection', 'close');
    // The passthrough copies the request's Connection header onto the reply (http-proxy), so set both.
    t.req.headers.connection = 'close';
  };

  /** Resolves when `done()` holds, re-checked after every request or held work settles. */
  const until = (done: () => boolean): Promise<void> =>
    new Promise<void>((resolve) => {
      const check = (): void => {
        if (!done()) return;
        onSettled = undefined;
        resolve();
      };
      onSettled = check;
      check();
    });

  return {
    track(req, res) {
      const t: Tracked = { req, res, mustFinish: false };
      tracked.set(req, t);
      if (draining) closeAfterReply(t);
      res.once('close', () => {
        tracked.delete(req);
        settledOne();
      });
    },
    mustFinish(req) {
      const t = tracked.get(req);
      if (t) t.mustFinish = true;
    },
    holdUntilDone(work) {
      held.add(work);
      const release = (): void => {
        held.delete(work);
        settledOne();
      };
      work.then(release, release);
      return work;
    },
    draining: () => draining,
    inFlight: () => tracked.size,
    drain(server) {
      drainPromise ??= (async () => {
        draining = true;
        for (const t of tracked.values()) closeAfterReply(t);
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();

        let timer: NodeJS.Timeout | undefined;
        const deadline = new Promise<'deadline'>((resolve) => {
          timer = setTimeout(() => resolve('deadline'), options.shutdownTimeoutMs);
        });
        const first = await Promise.race([until(idle).then(() => 'idle' as const), deadline]);
        clearTimeout(timer);

        let cutOff = 0;
        let waitedPastDeadline = 0;
        if (first === 'deadline') {
          for (const t of [...tracked.values()]) {
            if (t.mustFinish) continue;
            cutOff++;
            t.res.destroy();
          }
          server.closeIdleConnections();
          waitedPastDeadline = [...tracked.values()].filter((t) => t.mustFinish).length + held.size;
          await until(() => [...tracked.values()].every((t) => !t.mustFinish) && held.size === 0);
        }
        // Every connection is idle (or belongs to a request that was cut off): let none linger.
        server.closeAllConnections();
        await stopped;
        return { finished: finishedDuringDrain - cutOff, cutOff, waitedPastDeadline };
      })();
      return drainPromise;
    },
  };
}
