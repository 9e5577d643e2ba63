// One HTTP exchange with v1 on undici's dispatcher: the request sent, the reply's status, the one header the
// gateway reads (Retry-After) and its body as the bytes it came as, within a deadline that covers the whole
// exchange. Nothing is decoded here: a caller that wants text decodes, and one that translates bytes to
// bytes never pays for a decode.
// Why undici's dispatch and not its request(): request() gives each reply a Readable stream of its body and
// an event per chunk, most of what an upstream call of a small page cost in the gateway; here the chunks
// come to one handler that keeps them until the end. The body goes through the promise in a box the caller
// empties (shared/hand-off.ts): the promise is old by the time v1 answers.
import type { Dispatcher } from 'undici';
import type { PageTranslating, PageTranslation, TranslatedPage } from '../../mapping/v1-reply.js';
import { handOff, type HandOff } from '../../shared/hand-off.js';

export interface V1ExchangeRequest {
  method: 'GET' | 'POST';
  /** The path and query as sent. */
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
  /** A 2xx reply's body read with it as it comes (its pieces are kept too, until its end, for a page it
   * declines). */
  translation?: PageTranslation | undefined;
}

export interface V1ExchangeReply {
  status: number;
  /** Retry-After as v1 sent it (its first one), undefined when absent. */
  retryAfter: string | undefined;
  /** The body as it came, not decoded; a UTF-8 byte order mark at the start is skipped (as undici's text()
   * skips it), so that whoever decodes these bytes, or passes them on, never meets it. Empty when the
   * page was translated. */
  body: HandOff<Buffer>;
  /** A 2xx page read with the request's translation as it came, unless it declined: its translation (its
   * pieces let go). */
  translated?: HandOff<TranslatedPage>;
}

/** The exchange's deadline passed: what it rejects with (and aborts the request with). */
export class V1DeadlineError extends Error {
  constructor(ms: number) {
    super(`the upstream did not answer within ${ms} ms`);
    this.name = 'V1DeadlineError';
  }
}

const RETRY_AFTER = 'retry-after';
const NO_BYTES = Buffer.alloc(0);

/** The first Retry-After of undici's raw headers (name, value, name, value...). */
function retryAfterOf(rawHeaders: Buffer[]): string | undefined {
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    if (name.length === RETRY_AFTER.length && name.toString('latin1').toLowerCase() === RETRY_AFTER) return rawHeaders[i + 1]!.toString('latin1');
  }
  return undefined;
}

/** The bytes after a UTF-8 byte order mark at their start, as a view of the same memory (no copy). */
function withoutByteOrderMark(bytes: Buffer): Buffer {
  const bom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  return bom ? bytes.subarray(3) : bytes;
}

/** The handler undici's dispatcher calls (its callback interface: onConnect, onHeaders, onData, onComplete,
 * onError); it settles the exchange once, whatever comes after. */
class ExchangeHandler implements Dispatcher.DispatchHandler {
  /** Made when the final reply's headers arrive, not with the handler: the handler is old by then, and
   * chunks kept in an array as old would outlive the exchange until a full collection. */
  private chunks: Buffer[] | undefined;
  private length = 0;
  private status = 0;
  private retryAfter: string | undefined;
  private abortRequest: ((reason: Error) => void) | undefined;
  private expired: Error | undefined;
  private settled = false;
  private readonly timer: NodeJS.Timeout;
  /** The final 2xx reply's translation, reading its pieces as they come. */
  private translating: PageTranslating | undefined;

  constructor(
    private readonly resolve: (reply: V1ExchangeReply) => void,
    private readonly reject: (err: Error) => void,
    deadlineMs: number,
    private readonly translation: PageTranslation | undefined,
  ) {
    this.timer = setTimeout(() => this.expire(new V1DeadlineError(deadlineMs)), deadlineMs);
  }

  /** Ends the exchange at once (the deadline, or the pool abandoned): the request is aborted as soon as it
   * has a connection, and its caller is told now. */
  expire(reason: Error): void {
    this.expired ??= reason;
    this.abortRequest?.(reason);
    this.fail(reason);
  }

  onConnect(abort: (reason?: Error) => void): void {
    this.abortRequest = abort;
    if (this.expired) abort(this.expired);
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[]): boolean {
    // 1xx informational replies come before the final one: only the final one's status is kept.
    this.status = statusCode;
    this.chunks = [];
    this.length = 0;
    this.translating = statusCode >= 200 && statusCode < 300 ? this.translation?.open() : undefined;
    if (statusCode === 429 || statusCode === 503) this.retryAfter = retryAfterOf(rawHeaders);
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.chunks?.push(chunk);
    this.length += chunk.length;
    this.translating?.write(chunk);
    return true;
  }

  onComplete(): void {
    if (this.settled) return;
    const chunks = this.chunks ?? [];
    this.chunks = undefined;
    const translated = this.translating?.end();
    this.translating = undefined;
    if (translated) {
      this.settle();
      this.resolve({ status: this.status, retryAfter: this.retryAfter, body: handOff(NO_BYTES), translated: handOff(translated) });
      return;
    }
    const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, this.length);
    this.settle();
    this.resolve({ status: this.status, retryAfter: this.retryAfter, body: handOff(withoutByteOrderMark(bytes)) });
  }

  onError(err: Error): void {
    this.fail(this.expired ?? err);
  }

  private fail(err: Error): void {
    if (this.settled) return;
    this.chunks = undefined;
    this.translating = undefined;
    this.settle();
    this.reject(err);
  }

  private settle(): void {
    this.settled = true;
    clearTimeout(this.timer);
  }
}

/** Sends one request on `dispatcher` and reads its whole reply within `deadlineMs`; rejects with undici's
 * error (unreachable, reset, size limit) or V1DeadlineError. */
export function exchange(dispatcher: Dispatcher, request: V1ExchangeRequest, deadlineMs: number): Promise<V1ExchangeReply> {
  return new Promise((resolve, reject) => {
    const handler = new ExchangeHandler(resolve, reject, deadlineMs, request.translation);
    dispatcher.dispatch({ method: request.method, path: request.path, headers: request.headers, body: request.body ?? null }, handler);
  });
}
