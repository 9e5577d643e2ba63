// The gateway's one error type and its registry of stable codes. Each code has a legacy HTTP status and
// a message written by the gateway; a message never carries a secret, a stack trace or the upstream's address.
// docs/legacy-api.md's error codes table lists every code (a test checks it).

export const ERROR_CODES = {
  LGW_BAD_REQUEST: { status: 400, summary: 'malformed legacy call (paging, id, lookup parameters, path)' },
  LGW_PAYLOAD_TOO_LARGE: { status: 413, summary: 'a request body over the route\'s limit; nothing is passed on' },
  LGW_NOT_FOUND: { status: 404, summary: 'a lookup matched no record (`/api/client`)' },
  LGW_NOT_CONFIGURED: { status: 501, summary: 'a method served from an operator file that is not configured (testimonials)' },
  LGW_UPSTREAM_ERROR: { status: 0, summary: 'v1 answered an error: its HTTP status and message are kept (429 keeps Retry-After)' },
  LGW_UPSTREAM_UNREACHABLE: { status: 502, summary: 'v1 could not be reached (connection refused, reset, DNS)' },
  LGW_UPSTREAM_BAD_REPLY: { status: 502, summary: 'v1 answered something that is not the documented JSON (invalid JSON, wrong shape, too large)' },
  LGW_UPSTREAM_TIMEOUT: { status: 504, summary: 'v1 did not answer within UPSTREAM_TIMEOUT_MS' },
  LGW_BROWNOUT: { status: 410, summary: 'a legacy call refused during a scheduled brownout (BROWNOUTS_FILE): the old API is being retired; Retry-After says when the window ends' },
  LGW_NOT_READY: { status: 503, summary: 'the gateway is starting or draining' },
  LGW_INTERNAL: { status: 500, summary: 'an unexpected fault in the gateway; the reply carries the request id' },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export class GatewayError extends Error {
  override name = 'GatewayError';
  readonly code: ErrorCode;
  readonly status: number;
  /** Extra reply headers the legacy client should see (Retry-After on a 429). */
  readonly headers: Readonly<Record<string, string>>;
  /** v1's own error code (`error.code`, e.g. `card_declined`) when v1 answered an error. */
  readonly upstreamCode: string | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { status?: number; headers?: Record<string, string>; upstreamCode?: string; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = options.status ?? ERROR_CODES[code].status;
    this.headers = options.headers ?? {};
    this.upstreamCode = options.upstreamCode;
  }
}

export const badRequest = (message: string): GatewayError => new GatewayError('LGW_BAD_REQUEST', message);

/** The legacy error body. */
export function legacyFailure(message: string): { status: 'failure'; response: string } {
  return { status: 'failure', response: message };
}
