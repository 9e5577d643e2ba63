// Writes a JSON reply: encoded once, its length known without another pass. Every route's success reply
// goes out through here (errors through error-reply.ts). A reply kept elsewhere too (the reply cache) comes
// as the bytes kept; one kept nowhere else comes as its text, encoded by the socket's write itself: a Buffer
// of it first would be one more copy of the whole reply (a 1000-record list is about 400 KB). A call being
// recorded is handed the same body (reply-copy.ts).
import type { RequestContext } from './request-context.js';

export function writeJson(ctx: RequestContext, status: number, body: unknown): void {
  writeJsonReply(ctx, status, JSON.stringify(body));
}

/** Writes an already serialised JSON reply; nothing when the request was answered meanwhile (the
 * shutdown deadline answers a waiting request with a 503). */
export function writeJsonReply(ctx: RequestContext, status: number, body: Buffer | string): void {
  const { res } = ctx;
  if (res.headersSent) return;
  res.statusCode = status;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('content-length', typeof body === 'string' ? Buffer.byteLength(body, 'utf8') : body.length);
  ctx.replyCopy?.add(body);
  res.end(body);
}
