// Everything that is not a mapped legacy method or the gateway's own route goes to UPSTREAM_URL unchanged,
// streamed both ways: /api/v1/**, /ondemand/**, /assets/**, unmapped /api/{x}. It applies the key rule
// (api_key moves from the URL into X-API-KEY), drops hop-by-hop headers both ways, adds X-Forwarded-*,
// and answers a legacy-shaped 502/504 when the upstream fails before replying (413 past the body limit).
// It never buffers a body, never retries, never caches, and only ever talks to UPSTREAM_URL's origin,
// under its path: a path with a dot segment (`..`, `%2e%2e`, `..%2f`, dot-segments.ts) is answered with a
// legacy-shaped 400 before any upstream call, and before any key is attached.
// A write to `/api/v1/{resource}` moves the key's write generation of that resource on as soon as v1
// answered it or failed (before any of the reply is sent on), so the caller's next translated read of it
// is never served from a copy made before it.
//
// It drives an undici pool directly (a dispatch handler, reply-relay.ts, writes the reply straight into
// the response) rather than through http-proxy-middleware, a layer that brought no speed under bench/'s
// load, and would put its own error replies and header rules between the caller and v1.
import { Transform, type Readable } from 'node:stream';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { Pool, undiciErrors } from '../upstream/undici-parts.js';
import { v1CallWrites } from '../../legacy-surface/resources-touched.js';
import { GatewayError, badRequest } from '../../shared/errors.js';
import { withoutApiKeyParam } from '../edge/api-key.js';
import { hasDotSegment } from '../edge/dot-segments.js';
import { sendLegacyError } from '../edge/error-reply.js';
import type { RequestContext } from '../edge/request-context.js';
import { REQUEST_LIMITS, tooLarge } from '../edge/request-guard.js';
import { begin } from '../edge/upstream-log.js';
import type { WriteGenerations } from '../state/caches/write-generations.js';
import { ReplyRelay } from './reply-relay.js';
import { hopByHopNames, namedInConnection } from './hop-by-hop.js';

export interface PassthroughOptions {
  upstreamUrl: string;
  timeoutMs: number;
  /** Upper bound of a streamed request body (a declared Content-Length is checked before routing). */
  maxBodyBytes?: number;
  /** Told of a write to a v1 resource once it reached v1; absent, nothing is told. */
  generations?: Pick<WriteGenerations, 'bump'>;
}

export type Passthrough = ((ctx: RequestContext) => void) & { close(): Promise<void> };

/** Headers undici refuses or sets itself; the rest of a request's end-to-end headers go on as they are. */
const NOT_FORWARDED = ['host', 'expect', 'content-length', 'transfer-encoding'];
// Built once: most messages name no extra hop-by-hop header in Connection, and need no set of their own.
const FIXED_HOP_BY_HOP = hopByHopNames({}, true);
const REQUEST_DROP = new Set([...FIXED_HOP_BY_HOP, ...NOT_FORWARDED]);
const REPLY_DROP = new Set([...FIXED_HOP_BY_HOP, 'x-powered-by']);

/** The names to drop from a message: the fixed ones, plus those its Connection header names. */
function dropped(headers: IncomingHttpHeaders, fixed: ReadonlySet<string>): ReadonlySet<string> {
  const named = namedInConnection(headers);
  return named.length === 0 ? fixed : new Set([...fixed, ...named]);
}

class BodyTooLarge extends Error {}

/** Counts a streamed (chunked) body on its way through and fails it past `limit`. */
function limited(req: IncomingMessage, limit: number): Readable {
  let seen = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.length;
      done(seen > limit ? new BodyTooLarge() : null, chunk);
    },
  });
  req.on('error', (err) => counter.destroy(err));
  return req.pipe(counter);
}


function appendHeader(headers: IncomingHttpHeaders, name: string, value: string): string {
  const prior = headers[name];
  const text = Array.isArray(prior) ? prior.join(', ') : prior;
  return text ? `${text}, ${value}` : value;
}

function upstreamHeaders(req: IncomingMessage, key: string | undefined): Record<string, string | string[]> {
  const drop = dropped(req.headers, REQUEST_DROP);
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined && !drop.has(name)) headers[name] = value;
  }
  const declared = req.headers['content-length'];
  if (declared !== undefined) headers['content-length'] = declared;
  if (key !== undefined) headers['x-api-key'] = key;
  // What a proxy adds (as http-proxy's xfwd did): who called, and how.
  headers['x-forwarded-for'] = appendHeader(req.headers, 'x-forwarded-for', req.socket.remoteAddress ?? '');
  headers['x-forwarded-port'] = appendHeader(req.headers, 'x-forwarded-port', String(req.socket.localPort ?? ''));
  headers['x-forwarded-proto'] = appendHeader(req.headers, 'x-forwarded-proto', 'http');
  if (req.headers['x-forwarded-host'] === undefined && req.headers.host !== undefined) headers['x-forwarded-host'] = req.headers.host;
  return headers;
}

function replyHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const drop = dropped(headers, REPLY_DROP);
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !drop.has(name)) out[name] = value;
  }
  return out;
}

function failure(err: unknown, maxBodyBytes: number, timeoutMs: number): GatewayError {
  if (err instanceof BodyTooLarge || (err instanceof Error && err.cause instanceof BodyTooLarge)) return tooLarge(maxBodyBytes);
  if (err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.ConnectTimeoutError) {
    return new GatewayError('LGW_UPSTREAM_TIMEOUT', `the upstream did not answer within ${timeoutMs} ms`, { cause: err });
  }
  return new GatewayError('LGW_UPSTREAM_UNREACHABLE', 'the upstream could not be reached', { cause: err });
}

export function createPassthrough(options: PassthroughOptions): Passthrough {
  const upstream = new URL(options.upstreamUrl);
  // The request line carries the request's path exactly as it came, after UPSTREAM_URL's own path.
  const pathPrefix = upstream.pathname.replace(/\/+$/, '');
  const maxBodyBytes = options.maxBodyBytes ?? REQUEST_LIMITS.passthroughBodyBytes;
  const pool = new Pool(upstream.origin, {
    connections: 256,
    pipelining: 1,
    keepAliveTimeout: 30_000,
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
  });

  const handler = (ctx: RequestContext): void => {
    const { request, req, res } = ctx;
    // UPSTREAM_URL's path prefix is the ceiling: the upstream must never be asked for what lies above it.
    if (hasDotSegment(request.path)) return sendLegacyError(ctx, badRequest('the request path must not hold dot segments'));
    const done = begin(ctx, request.path);
    // The key travels on in the X-API-KEY header only, never in a URL v1 or a proxy may log: a query naming
    // api_key is re-encoded without it; any other URL goes on exactly as it came.
    const key = request.apiKey;
    const path = request.keyMayBeInQuery ? `${request.path}${withoutApiKeyParam(`?${request.search}`)}` : request.url;
    const writes = options.generations ? v1CallWrites(request.httpMethod, request.path) : [];
    // Once, when the exchange is over for v1 (answered, or failed after the request may have reached it).
    const wrote = (): void => {
      if (writes.length === 0) return;
      void options.generations?.bump(key, writes.splice(0));
    };

    const hasBody = req.headers['content-length'] !== undefined ? req.headers['content-length'] !== '0' : req.headers['transfer-encoding'] !== undefined;
    let oversized = false;
    let body: Readable | null = null;
    if (hasBody) {
      body = req.headers['content-length'] === undefined ? limited(req, maxBodyBytes) : req;
      body.on('error', (err) => {
        if (err instanceof BodyTooLarge) oversized = true;
      });
    }

    let headers: Record<string, string | string[]>;
    try {
      headers = upstreamHeaders(req, key);
      // A lent key's error replies are scrubbed as text: ask v1 for them uncompressed.
      if (request.apiKeyIsLent) delete headers['accept-encoding'];
    } catch (err) {
      return sendLegacyError(ctx, err);
    }
    // Called by the relay only while the caller still waits and nothing of a reply has been sent.
    const failedBeforeReply = (err: unknown): void => {
      wrote();
      if (body !== null && body !== req) body.destroy();
      const error = oversized ? tooLarge(maxBodyBytes) : failure(err, maxBodyBytes, options.timeoutMs);
      done(error.code);
      if (error.status === 413) {
        // The rest of the upload is not worth reading: answer, then close the connection.
        res.setHeader('connection', 'close');
        res.once('finish', () => req.socket.destroySoon());
      }
      sendLegacyError(ctx, error);
    };
    const relay = new ReplyRelay(res, {
      replyStarted(statusCode, upstreamReply) {
        wrote();
        done(statusCode);
        return replyHeaders(upstreamReply);
      },
      failedBeforeReply,
      // A call that brought no key is lent the gateway's own: v1's error text must not hand it over.
      ...(request.apiKeyIsLent ? { rewriteErrorBody: (text: string) => ctx.secrets.scrub(text) } : {}),
    }, ctx.replyCopy);
    // dispatch() reports its own failures (a bad option, a closed pool) through the relay's onResponseError.
    pool.dispatch({ method: req.method ?? 'GET', path: `${pathPrefix}${path}`, headers, body }, relay);
  };
  return Object.assign(handler, { close: () => pool.destroy() });
}
