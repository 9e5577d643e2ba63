// A request's id: the caller's X-Request-Id when it is a plausible one (so a trace across systems keeps
// its id), else a new UUID. Made once, at the edge: the request context holds it, the reply carries it
// (X-Request-Id), and the log line, the v1 calls and an internal error's reply read it from the context.
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** What an incoming id may look like: short, and nothing that could split a header or a log line. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

export function requestIdOf(headers: IncomingHttpHeaders): string {
  const incoming = headers['x-request-id'];
  return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
}
