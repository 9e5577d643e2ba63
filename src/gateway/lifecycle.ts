// The gateway's shutdown: knows every request in flight, and drains them on SIGTERM. Draining means:
// readiness turns 503 at once, the listener stops accepting, idle keep-alive connections close, replies
// still to come carry `Connection: close`, and the gateway waits until no request is in flight or
// SHUTDOWN_TIMEOUT_MS has passed. At that deadline every other request still waiting is answered with a
// legacy-shaped 503 (one whose reply had already started is cut off: nothing legacy-shaped can follow),
// except requests marked "must finish" (a payment in flight) and work held with holdUntilDone, which it
// waits for past the deadline: each is bounded by its own upstream timeout, and a payment that was sent
// must always be answered.
// It never ends a must-finish request itself, and never exits the process (the CLI does).
import type http from 'node:http';
import { GatewayError, legacyFailure } from '../shared/errors.js';
import type { RequestContext } from './edge/request-context.js';
import { InFlightList } from './in-flight-list.js';

export interface RequestLifecycle {
  /** Called for every request the gateway receives (steps/track.ts); the request is let go by its
   * after-work, when its response closes. */
  track(ctx: RequestContext): void;
  /** This request must finish and answer, even past the shutdown deadline (payment in flight). */
  mustFinish(ctx: RequestContext): void;
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
  /** Requests still unanswered at the deadline: answered 503, or cut off when their reply had started. */
  cutOff: number;
  /** Must-finish requests and held work that ran past the deadline. */
  waitedPastDeadline: number;
}

interface Tracked {
  ctx: RequestContext;
  mustFinish: boolean;
}

const SHUTTING_DOWN = new GatewayError('LGW_NOT_READY', 'the gateway is shutting down: retry the call');

/** The deadline's answer to a request still waiting: a legacy 503 when nothing of its reply has gone out. */
function answerShuttingDown({ ctx }: Tracked): void {
  const { res } = ctx;
  if (res.headersSent) {
    res.destroy();
    return;
  }
  ctx.errorCode = SHUTTING_DOWN.code;
  const body = JSON.stringify(legacyFailure(SHUTTING_DOWN.message));
  res.writeHead(SHUTTING_DOWN.status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), connection: 'close' });
  ctx.replyCopy?.add(body);
  res.end(body);
}

/** While draining, the connection of this reply closes once it is sent (the client reconnects elsewhere). */
function closeAfterReply({ ctx }: Tracked): void {
  // The relay's reply headers (writeHead) add to this one: the passthrough's reply closes too.
  if (!ctx.res.headersSent) ctx.res.setHeader('connection', 'close');
}

class Lifecycle implements RequestLifecycle {
  private readonly tracked = new InFlightList<Tracked>();
  private readonly held = new InFlightList<Promise<unknown>>();
  private isDraining = false;
  private finishedDuringDrain = 0;
  private onSettled: (() => void) | undefined;
  private drainPromise: Promise<DrainReport> | undefined;

  constructor(private readonly shutdownTimeoutMs: number) {}

  track(ctx: RequestContext): void {
    const t: Tracked = { ctx, mustFinish: false };
    const entry = this.tracked.add(t);
    if (this.isDraining) closeAfterReply(t);
    ctx.afterWork.push(() => {
      this.tracked.remove(entry);
      this.settledOne();
    });
  }

  mustFinish(ctx: RequestContext): void {
    // A walk of the requests in flight: once per payment, over what is in flight.
    const t = this.tracked.find((tracked) => tracked.ctx === ctx);
    if (t) t.mustFinish = true;
  }

  holdUntilDone<T>(work: Promise<T>): Promise<T> {
    const entry = this.held.add(work);
    const release = (): void => {
      this.held.remove(entry);
      this.settledOne();
    };
    work.then(release, release);
    return work;
  }

  draining(): boolean {
    return this.isDraining;
  }

  inFlight(): number {
    return this.tracked.size;
  }

  drain(server: http.Server): Promise<DrainReport> {
    this.drainPromise ??= (async () => {
      this.isDraining = true;
      for (const t of this.tracked.values()) closeAfterReply(t);
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const { cutOff, waitedPastDeadline } = await this.waitOrCutOff(server);
      // Every connection is idle (or belongs to a request that was cut off): let none linger.
      server.closeAllConnections();
      await stopped;
      return { finished: this.finishedDuringDrain - cutOff, cutOff, waitedPastDeadline };
    })();
    return this.drainPromise;
  }

  private idle(): boolean {
    return this.tracked.size === 0 && this.held.size === 0;
  }

  private settledOne(): void {
    if (this.isDraining) this.finishedDuringDrain++;
    this.onSettled?.();
  }

  /** Resolves when `done()` holds, re-checked after every request or held work settles. */
  private until(done: () => boolean): Promise<void> {
    return new Promise<void>((resolve) => {
      const check = (): void => {
        if (!done()) return;
        this.onSettled = undefined;
        resolve();
      };
      this.onSettled = check;
      check();
    });
  }

  /** Waits until idle or the deadline; at the deadline cuts off what may be cut, then waits for the rest. */
  private async waitOrCutOff(server: http.Server): Promise<{ cutOff: number; waitedPastDeadline: number }> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'deadline'>((resolve) => {
      timer = setTimeout(() => resolve('deadline'), this.shutdownTimeoutMs);
    });
    const first = await Promise.race([this.until(() => this.idle()).then(() => 'idle' as const), deadline]);
    clearTimeout(timer);
    if (first === 'idle') return { cutOff: 0, waitedPastDeadline: 0 };
    let cutOff = 0;
    for (const t of this.tracked.values()) {
      if (t.mustFinish) continue;
      cutOff++;
      answerShuttingDown(t);
    }
    server.closeIdleConnections();
    const mustFinish = (): Tracked[] => this.tracked.values().filter((t) => t.mustFinish);
    const waitedPastDeadline = mustFinish().length + this.held.size;
    await this.until(() => mustFinish().length === 0 && this.held.size === 0);
    return { cutOff, waitedPastDeadline };
  }
}

export function createLifecycle(options: { shutdownTimeoutMs: number }): RequestLifecycle {
  return new Lifecycle(options.shutdownTimeoutMs);
}
