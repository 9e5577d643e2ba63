// The only code that talks HTTP to v1 for translated calls: one keep-alive pool, a timeout, JSON in (or,
// when asked for, v1's bytes as they came), and every failure turned into a GatewayError (v1 error -> its
// status and message; unreachable -> 502; timeout -> 504; not JSON, when parsed -> 502). It never logs,
// and never puts the API key anywhere but the header.
// close() lets the calls in flight finish; close({ abandon: true }) (the close after a shutdown drain)
// closes their sockets at once, and every call then fails fast with LGW_NOT_READY, which is never retried.
import { Pool, undiciErrors } from './undici-parts.js';
import { GatewayError } from '../../shared/errors.js';
import { handOff, type HandOff } from '../../shared/hand-off.js';
import type { V1CallTracer } from '../tracing/types.js';
import { exchange, V1DeadlineError } from './v1-exchange.js';
import { v1RequestPath, v1Target, type V1Target } from './v1-url.js';
import { parseV1Text, type PageTranslation, type TranslatedPage } from '../../mapping/v1-reply.js';

/** How a GET's body is given: `json` parsed (`value`), `bytes` as v1 sent it (`bytes`), neither decoded
 * nor parsed, for a caller that translates bytes to bytes. */
export type V1Form = 'json' | 'bytes';

export interface V1GetRequest {
  path: string;
  query: Record<string, string>;
  apiKey: string | undefined;
  requestId?: string;
  /** How long a cache may keep this reply: undefined = the default TTL, 0 = never cache (payment checks). */
  cacheTtlMs?: number;
  /** The v1 resource a translated read reads (its mapping's source) and the key's write generation of it
   * the read started under (state/caches/write-generations.ts): part of the request's identity, so a read never
   * meets a copy or a call made before a write of what it reads. */
  generation?: { resource: string; token: string };
  /** The body's form (V1Payload), `json` when unset. In `bytes` form a 2xx body is neither decoded nor
   * parsed (its caller reads v1's bytes itself), so a body that is not JSON, or not UTF-8, is no error
   * there; a 4xx or 5xx is decoded and parsed for its message in either form. */
  form?: V1Form;
  /** Form `bytes` only: a 2xx page may be read with this translation as it comes, its translation given
   * (`translated`) instead of its bytes when it did not decline; each attempt reads with a new one. Layers
   * that keep v1's bytes (the cache) leave it out. */
  translation?: PageTranslation | undefined;
}

/** What a v1 GET (or POST) gives: never changed once made; its body is read once, as a fetch Response's. */
export interface V1Json {
  readonly status: number;
  /** Set by the cache layer when the reply came from it: `fresh` within its TTL, `stale` standing in for
   * an upstream fault (stale-if-error). Absent when the reply came from v1 just now. */
  readonly servedFrom?: 'fresh' | 'stale';
  /** Until when (cache clock, ms) the cache will keep answering with this very reply; absent when it
   * holds no fresh copy (not stored, stale, or no cache layer). */
  readonly freshUntil?: number;
  /** The size of the body v1 sent, when this reply came from v1 just now: its text's length in characters
   * (form `json`) or its length in bytes (form `bytes`). Only a size: the cache bounds its bytes by it
   * instead of walking the parsed body (a walk of a 1000-record page cost as much as its parse). */
  readonly textLength?: number;
  /** The body, handed off (shared/hand-off.ts): the reply's owner takes it once, and the reply, which old
   * promises may still hold, keeps nothing of it. Each caller of getJson owns the reply it is given. */
  readonly body: HandOff<V1Payload>;
}

/** A reply's body, in the form its request asked for. Never changed once made, so layers may share one. */
export interface V1Payload {
  /** Form `json`: the parsed JSON. */
  readonly value?: unknown;
  /** Form `json`: the text the value was parsed from, given only by a reply just parsed from KEEPS_TEXT_FROM
   * characters or more: the cache keeps a reply that large as its text (response-cache.ts says why). */
  readonly text?: string;
  /** Form `bytes`: v1's body as it came (a byte order mark skipped), not decoded. Shared like the rest of
   * the payload, so never written to. */
  readonly bytes?: Buffer;
  /** Form `bytes` with a translation: the page's translation, made as its bytes came (no `bytes` then). */
  readonly translated?: TranslatedPage;
}

/** From this length on (128 Ki characters, 128 KiB or more), V8 keeps a string in its large-object space:
 * the collector never copies it and marks it as one object, so holding it costs nothing but its bytes. */
export const KEEPS_TEXT_FROM = 128 * 1024;

/** The seam the hardening layers (retry, cache, single-flight) wrap: same contract in, same out. Each
 * caller gets a reply of its own, whose body it takes. */
export interface V1Transport {
  /** Never throws: every failure is the promise's rejection (the layers over it chain on it as it is). */
  getJson(request: V1GetRequest): Promise<V1Json>;
}

export interface V1PostRequest {
  path: string;
  body: Record<string, unknown>;
  apiKey: string | undefined;
  requestId?: string;
}

/** Creating records (payments, clients): one attempt, never retried, never cached, never shared. */
export interface V1Writer {
  postJson(request: V1PostRequest): Promise<V1Json>;
}

/** Told of each POST's end: how long it took and, when it failed, its error. metered.ts's postMetrics counts
 * them (the payment flow is handed the client itself as its writer, so its POSTs are counted here). */
export type V1PostObserver = (request: V1PostRequest, seconds: number, failure: { error: unknown } | undefined) => void;

export interface V1ClientOptions {
  upstreamUrl: string;
  timeoutMs: number;
  /** Upper bound of one v1 reply body; a larger one is a bad reply, not an out-of-memory. */
  maxBodyBytes?: number;
  connections?: number;
  /** Tracing (OTEL_*): a client span per call, its `traceparent` sent to v1. Unset: none. */
  tracer?: V1CallTracer;
}

const MAX_MESSAGE = 500;

/** At most MAX_MESSAGE characters, cut between words: a word cut in two (an echoed key or token) could no
 * longer be recognised, and removed, by the request's scrubber. */
function shortened(message: string): string {
  if (message.length <= MAX_MESSAGE) return message;
  const cut = message.slice(0, MAX_MESSAGE);
  return /\s/.test(message.charAt(MAX_MESSAGE)) ? cut : cut.replace(/\S+$/, '').trimEnd();
}

/** v1's `{"error":{"code","message"}}`, tolerated when it is something else. */
function v1Error(status: number, body: unknown): { message: string; code: string | undefined } {
  const error = typeof body === 'object' && body !== null && 'error' in body ? (body as { error: unknown }).error : undefined;
  const fields = typeof error === 'object' && error !== null ? (error as { message?: unknown; code?: unknown }) : {};
  const given = typeof fields.message === 'string' ? shortened(fields.message) : '';
  const message = given.trim() !== '' ? given : `the upstream answered HTTP ${status}`;
  return { message, code: typeof fields.code === 'string' ? fields.code.slice(0, 100) : undefined };
}

/** An error reply's body, if it is JSON. */
function parsedOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export class V1Client implements V1Transport, V1Writer {
  private readonly pool: Pool;
  private readonly target: V1Target;
  private readonly timeoutMs: number;
  private readonly tracer: V1CallTracer | undefined;
  /** Set by close({ abandon: true }): a call failing from then on failed because it was abandoned. */
  private abandoned = false;
  private postObserver: V1PostObserver | undefined;

  constructor(options: V1ClientOptions) {
    this.target = v1Target(options.upstreamUrl);
    this.timeoutMs = options.timeoutMs;
    this.tracer = options.tracer;
    this.pool = new Pool(this.target.origin, {
      connections: options.connections ?? 128,
      pipelining: 1,
      keepAliveTimeout: 30_000,
      maxResponseSize: options.maxBodyBytes ?? 64 * 1024 * 1024,
      // The exchange's own deadline (v1-exchange.ts) covers the whole call, from the queue to the last
      // byte; undici's header and body timers would only repeat it, and each call's header timer lives on in
      // undici's timer list long after the call, until a full collection.
      headersTimeout: 0,
      bodyTimeout: 0,
    });
  }

  getJson(request: V1GetRequest): Promise<V1Json> {
    let path: string;
    try {
      path = v1RequestPath(this.target, request.path, request.query);
    } catch (err) {
      return Promise.reject(err as Error);
    }
    const form = request.form ?? 'json';
    return this.send('GET', path, this.headers(request.apiKey, request.requestId), undefined, form, form === 'bytes' ? request.translation : undefined);
  }

  async postJson(request: V1PostRequest): Promise<V1Json> {
    const started = process.hrtime.bigint();
    const seconds = (): number => Number(process.hrtime.bigint() - started) / 1e9;
    try {
      const path = v1RequestPath(this.target, request.path, {});
      const headers = this.headers(request.apiKey, request.requestId);
      headers['content-type'] = 'application/json';
      const reply = await this.send('POST', path, headers, JSON.stringify(request.body), 'json');
      this.postObserver?.(request, seconds(), undefined);
      return reply;
    } catch (err) {
      this.postObserver?.(request, seconds(), { error: err });
      throw err;
    }
  }

  /** Tells `observer` of each POST's end from now on (hardened-transport.ts: the metrics). */
  observePosts(observer: V1PostObserver): void {
    this.postObserver = observer;
  }

  private headers(apiKey: string | undefined, requestId: string | undefined): Record<string, string> {
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'legacy-gateway' };
    if (apiKey !== undefined) headers['x-api-key'] = apiKey;
    if (requestId !== undefined) headers['x-request-id'] = requestId;
    return headers;
  }

  /** One attempt. undici does not retry a request on its own, so a POST reaches v1 at most once. */
  private async send(
    method: 'GET' | 'POST',
    path: string,
    headers: Record<string, string>,
    body: string | undefined,
    form: V1Form,
    translation?: PageTranslation,
  ): Promise<V1Json> {
    const span = this.tracer?.start(method, path.slice(this.target.apiPrefix.length), headers);
    let status: number | undefined;
    let failure: string | undefined;
    try {
      const res = await exchange(this.pool, { method, path, headers, body, translation }, this.timeoutMs);
      status = res.status;
      // Only a 2xx page is translated as it comes.
      if (res.translated) return { status: res.status, body: handOff({ translated: res.translated.take() }) };
      const bytes = res.body.take();
      if (res.status >= 200 && res.status < 300) {
        if (form === 'bytes') return { status: res.status, textLength: bytes.length, body: handOff({ bytes }) };
        const text = bytes.toString('utf8');
        const value = parseV1Text(text);
        const payload: V1Payload = text.length >= KEEPS_TEXT_FROM ? { value, text } : { value };
        return { status: res.status, textLength: text.length, body: handOff(payload) };
      }
      if (res.status >= 400 && res.status <= 599) {
        const extra: Record<string, string> = res.retryAfter === undefined ? {} : { 'retry-after': res.retryAfter };
        const { message, code } = v1Error(res.status, parsedOrUndefined(bytes.toString('utf8')));
        throw new GatewayError('LGW_UPSTREAM_ERROR', message, { status: res.status, headers: extra, ...(code ? { upstreamCode: code } : {}) });
      }
      throw new GatewayError('LGW_UPSTREAM_BAD_REPLY', `the upstream answered an unexpected HTTP ${res.status}`);
    } catch (err) {
      const error = this.asGatewayError(err);
      failure = error.code;
      throw error;
    } finally {
      span?.end(status, failure);
    }
  }

  private asGatewayError(err: unknown): GatewayError {
    if (err instanceof GatewayError) return err;
    // Abandoned by close({ abandon: true }), or asked of a closed pool: not v1's fault, and not worth a retry.
    if (this.abandoned || err instanceof undiciErrors.ClientDestroyedError || err instanceof undiciErrors.ClientClosedError) {
      return new GatewayError('LGW_NOT_READY', 'the gateway is shutting down: retry the call', { cause: err });
    }
    if (
      err instanceof V1DeadlineError ||
      err instanceof undiciErrors.HeadersTimeoutError ||
      err instanceof undiciErrors.BodyTimeoutError ||
      err instanceof undiciErrors.ConnectTimeoutError
    ) {
      return new GatewayError('LGW_UPSTREAM_TIMEOUT', `the upstream did not answer within ${this.timeoutMs} ms`, { cause: err });
    }
    if (err instanceof undiciErrors.ResponseExceededMaxSizeError) {
      return new GatewayError('LGW_UPSTREAM_BAD_REPLY', 'the upstream reply was larger than the gateway accepts', { cause: err });
    }
    // Connection refused, reset, DNS failure, socket closed mid-reply: the address stays out of the message.
    return new GatewayError('LGW_UPSTREAM_UNREACHABLE', 'the upstream could not be reached', { cause: err });
  }

  /**
   * Frees the pool. By default gracefully: the calls in flight finish first (each within the timeout).
   * `abandon`: the calls still in flight are abandoned at once (their sockets closed, their callers told
   * LGW_NOT_READY) and nothing is waited for. For the close after a shutdown drain, when every payment has
   * answered and what is left are reads the drain already answered 503 at its deadline.
   */
  async close(options: { abandon?: boolean } = {}): Promise<void> {
    if (!options.abandon) return this.pool.close();
    this.abandoned = true;
    await this.pool.destroy();
  }
}
