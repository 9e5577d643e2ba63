// Writes every gateway error as a legacy error reply: {"status":"failure","response":"<message>"}.
// Unexpected errors become a 500 carrying the request id, never a stack trace or a source path.
// v1's own text (the message and headers of an upstream error) leaves only through the request's
// scrubber: v1 may echo the key, a token or a password it received. Every other message is the gateway's.
// A call being recorded is handed the same body (reply-copy.ts).
import type { ServerResponse } from 'node:http';
import { GatewayError, legacyFailure } from '../../shared/errors.js';
import type { RequestContext } from './request-context.js';

export function toGatewayError(err: unknown, requestId: string): GatewayError {
  if (err instanceof GatewayError) return err;
  return new GatewayError('LGW_INTERNAL', `internal gateway error (request id ${requestId})`, { cause: err });
}

/** Sends the legacy error body (or nothing more, if a reply already started: the socket is then ended). The
 * context notes the error's code, and a fault inside the gateway (LGW_INTERNAL) itself, for the log line. */
export function sendLegacyError(ctx: RequestContext, err: unknown): void {
  writeLegacyError(ctx.res, err, ctx);
}

/** The same, for a response that may have no context yet (the edge failed to make one). */
export function writeLegacyError(res: ServerResponse, err: unknown, ctx: RequestContext | undefined): void {
  const error = toGatewayError(err, ctx?.requestId ?? 'unknown');
  if (res.headersSent) {
    res.destroy();
    return;
  }
  let message = error.message;
  let headers = error.headers;
  if (ctx) ctx.errorCode = error.code;
  const secrets = error.code === 'LGW_UPSTREAM_ERROR' ? ctx?.secrets : undefined;
  if (secrets !== undefined) {
    message = secrets.scrub(message);
    headers = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, secrets.scrub(value)]));
  }
  const body = JSON.stringify(legacyFailure(message));
  res.statusCode = error.status;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('content-length', Buffer.byteLength(body));
  // The request's log line carries the fault (scrubbed: request-line.ts).
  if (ctx && error.code === 'LGW_INTERNAL') ctx.error = err instanceof Error ? err : error;
  ctx?.replyCopy?.add(body);
  res.end(body);
}
