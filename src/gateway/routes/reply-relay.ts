// The passthrough's undici dispatch handler: relays one upstream reply into the caller's response as it
// arrives (status and headers, then each body chunk, with backpressure both ways), or hands the failure
// back when the upstream fails before replying. A call being recorded is handed each piece of the body as
// it is written (reply-copy.ts).
//
// Written against undici's dispatch handler interface rather than `pool.stream()`: stream() wraps every
// request in an AsyncResource, watches the response with stream.finished() (a dozen listeners) and
// destroys it once done, and that bookkeeping is a real share of the passthrough's CPU per request, for
// nothing this relay needs.
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { Dispatcher } from 'undici';
import type { ReplyCopy } from '../edge/reply-copy.js';

export interface ReplyRelayEvents {
  /** The upstream's status line and headers arrived; returns the headers to send on (hop-by-hop dropped). */
  replyStarted(statusCode: number, headers: IncomingHttpHeaders): Record<string, string | string[]>;
  /** The exchange failed before a reply started: the caller still waits for an answer. */
  failedBeforeReply(err: Error): void;
  /** When given, an error reply (4xx, 5xx) is held whole (up to MAX_HELD_ERROR_BYTES) and its text passed
   * through this before it is sent: the call's secrets are scrubbed from what v1 echoed. */
  rewriteErrorBody?: (text: string) => string;
}

/** v1's error replies are small JSON; one larger than this is cut off rather than sent unscrubbed. */
const MAX_HELD_ERROR_BYTES = 256 * 1024;

interface HeldReply {
  status: number;
  headers: Record<string, string | string[]>;
  chunks: Buffer[];
  size: number;
}

export class ReplyRelay implements Dispatcher.DispatchHandler {
  private started = false;
  private finished = false;
  /** The exchange's latest controller: undici starts a request again when its connection failed before it was sent. */
  private controller: Dispatcher.DispatchController | undefined;
  /** An error reply being held whole, to be rewritten before it is sent. */
  private held: HeldReply | undefined;

  constructor(
    private readonly res: ServerResponse,
    private readonly events: ReplyRelayEvents,
    /** The request's copy of its reply, when it is recorded. */
    private readonly copy?: ReplyCopy,
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
    const replyHeaders = this.events.replyStarted(statusCode, headers);
    this.started = true;
    if (statusCode >= 400 && this.events.rewriteErrorBody) {
      const encoding = String(headers['content-encoding'] ?? 'identity').trim().toLowerCase();
      if (encoding !== 'identity') {
        // Compressed text cannot be scrubbed: cut off rather than hand over what it may hold.
        this.finished = true;
        controller.abort(new Error('a compressed error reply cannot be scrubbed'));
        this.res.destroy();
        return;
      }
      this.held = { status: statusCode, headers: replyHeaders, chunks: [], size: 0 };
      return;
    }
    this.res.writeHead(statusCode, replyHeaders);
    this.res.on('drain', () => controller.resume());
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.held) {
      this.held.size += chunk.length;
      this.held.chunks.push(chunk);
      if (this.held.size > MAX_HELD_ERROR_BYTES) {
        this.finished = true;
        controller.abort(new Error('an error reply too large to scrub'));
        this.res.destroy();
      }
      return;
    }
    this.copy?.add(chunk);
    if (!this.res.write(chunk)) controller.pause();
  }

  onResponseEnd(): void {
    this.finished = true;
    if (this.held) return this.sendHeld(this.held);
    this.res.end();
  }

  private sendHeld(held: HeldReply): void {
    const text = this.events.rewriteErrorBody!(Buffer.concat(held.chunks).toString('utf8'));
    const body = Buffer.from(text, 'utf8');
    const headers: Record<string, string | string[]> = { ...held.headers, 'content-length': String(body.length) };
    delete headers['transfer-encoding'];
    this.res.writeHead(held.status, headers);
    this.copy?.add(body);
    this.res.end(body);
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
