// The v1 error codes with their HTTP statuses (v1's API reference, Errors), and the one way replies are written.
// A message must never carry a key, a password, a token or a stack trace.
import type { Response } from 'express';

const STATUS = {
  invalid_request: 400,
  invalid_key: 401,
  // 402 codes: a card refused by the processor (the payment call's own outcomes).
  card_declined: 402,
  payment_refused: 402,
  resource_not_allowed: 403,
  plan_not_allowed: 403,
  account_unverified: 403,
  account_locked: 403,
  unknown_resource: 404,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  gone: 410,
  payload_too_large: 413,
  rate_limited: 429,
  server_error: 500,
  maintenance: 503,
} as const;

export type V1ErrorCode = keyof typeof STATUS;

/** A v1 error reply; thrown by handlers and written by the app's error handler. */
export class SandboxError extends Error {
  override name = 'SandboxError';
  readonly status: number;

  constructor(
    readonly code: V1ErrorCode,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.status = STATUS[code];
  }
}

/** Writes a JSON body exactly as serialised here (key order included); no ETag, no extra fields. */
export function sendJson(res: Response, status: number, body: unknown, headers: Readonly<Record<string, string>> = {}): void {
  res.status(status);
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.send(JSON.stringify(body));
}

export function sendError(res: Response, error: SandboxError): void {
  sendJson(res, error.status, { error: { code: error.code, message: error.message } }, error.headers);
}
