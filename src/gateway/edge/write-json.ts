// Writes a JSON reply: encoded once, its length known without another pass. Every route's success reply
// goes out through here (errors through error-reply.ts). A reply nobody keeps goes out as its text, encoded
// by the socket's write itself: a Buffer of it first would be one more copy of the whole reply (a 1000-record
// list is about 400 KB) for the garbage collector.
import type { ServerResponse } from 'node:http';

export function writeJson(res: ServerResponse, status: number, body: unknown): void {
  writeJsonBytes(res, status, Buffer.from(JSON.stringify(body)));
}

/** Writes an already serialised JSON reply; nothing when the request was answered meanwhile (the
 * shutdown deadline answers a waiting request with a 503). */
export function writeJsonBytes(res: ServerResponse, status: number, bytes: Buffer): void {
  if (res.headersSent) return;
  res.statusCode = status;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('content-length', bytes.length);
  res.end(bytes);
}

/** Writes a serialised JSON reply kept nowhere else, as text. */
export function writeJsonText(res: ServerResponse, status: number, text: string): void {
  if (res.headersSent) return;
  res.statusCode = status;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('content-length', Buffer.byteLength(text, 'utf8'));
  res.end(text, 'utf8');
}
