// Writes every gateway error as a legacy error reply: {"status":"failure","response":"<message>"}.
// Unexpected errors become a 500 carrying the request id, never a stack trace or a source path.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { GatewayError, legacyFailure } from '../../shared/errors.js';

export function toGatewayError(err: unknown, requestId: string): GatewayError {
  if (err instanceof GatewayError) return err;
  return new GatewayError('LGW_INTERNAL', `internal gateway error (request id ${requestId})`, { cause: err });
}

/** Sends the legacy error body (or nothing more, if a reply already started: the socket is then ended). */
export function sendLegacyError(req: IncomingMessage & { id?: unknown }, res: ServerResponse, err: unknown): void {
  const error = toGatewayError(err, String(req.id ?? 'unknown'));
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify(legacyFailure(error.message));
  res.statusCode = error.status;
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('content-length', Buffer.byteLength(body));
  // pino-http logs the error object when it is attached to the response.
  if (error.code === 'LGW_INTERNAL') (res as ServerResponse & { err?: Error }).err = err instanceof Error ? err : error;
  res.end(body);
}
