// The passthrough's undici dispatch handler: relays one upstream reply into the caller's response as it
// arrives (status and headers, then each body chunk, with backpressure both ways), or hands the failure
// back when the upstream fails before replying.
//
// Written against undici's dispatch handler interface rather than `pool.stream()`: stream() wraps every
// request in an AsyncResource, watches the response with stream.finished() (a dozen listeners) and
// destroys it once done, and that bookkeeping measured about a tenth of the passthrough's CPU per request.
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { Dispatcher } from 'undici';

export interface ReplyRelayEvents {
  /** The upstream's status line and headers arrived; returns the headers to send on (hop-by-hop dropped). */
  replyStarted(statusCode: number, headers: IncomingHttpHeaders): Record<string, string | string[]>;
  /** The exchange failed before a reply started: the caller still waits for an answer. */
  failedBeforeReply(err: Error): void;
}

export class ReplyRelay implements Dispatcher.DispatchHandler {
  private started = false;
  private finished = false;
  /** The exchange's latest controller: undici starts a request again when its connection failed before it was sent. */
  private controller: Dispatcher.DispatchController | undefined;

  constructor(
    private readonly res: ServerResponse,
    private readonly events: ReplyRelayEvents,
  ) {
    // A caller that goes away while the reply streams stops the upstream exchange too. Before the reply
    // starts the exchange runs on (bounded by the upstream timeout): a request sent is not cut off midway.
    res.once('close', () => {
      if (this.started && !this.finished && this.controller && !this.controller.aborted) {
        this.controller.abort(new Error('the caller closed the connection'));
      }
    });
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    if (statusCode < 200) return; // 1xx: informational, the final reply follows
    // The caller was answered meanwhile (the shutdown deadline's 503) or is gone: stop the exchange.
    if (this.res.headersSent || this.res.destroyed) {
      this.finished = true;
      controller.abort(new Error('the caller was answered already'));
      return;
    }
    this.res.writeHead(statusCode, this.events.replyStarted(statusCode, headers));
    this.started = true;
    this.res.on('drain', () => controller.resume());
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (!this.res.write(chunk)) controller.pause();
  }

  onResponseEnd(): void {
    this.finished = true;
    this.res.end();
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    if (this.finished) return;
    this.finished = true;
    // Once the reply has started nothing legacy-shaped can follow: the caller sees the connection end.
    if (this.started) this.res.destroy();
    else if (this.res.headersSent || this.res.destroyed) return; // answered meanwhile (the shutdown deadline)
    else this.events.failedBeforeReply(err);
  }
}
