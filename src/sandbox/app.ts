// Builds the sandbox's express app: records every request, routes /api/v1 to the v1 handler, answers the
// retired /api/{method} URLs 410, serves the two legacy extras, and turns every error into a v1 error body.
// Options are validated once here. It must never log, and never reply with a stack trace or X-Powered-By.
import express, { type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import { SandboxError, sendError } from './errors.js';
import { createHungReplies } from './hung-replies.js';
import { BLANK_HEADSHOT_PATH, sendBlankHeadshot, sendOnDemandLink } from './legacy-extras.js';
import { createRateLimiter } from './rate-limit.js';
import { createSandboxState, type RecordedRequest, type SandboxState } from './state.js';
import { handleV1, V1_PREFIX } from './v1-api.js';

export interface SandboxOptions {
  /** Calls per key + URL (path and query) + verb in an hourly window that starts with the first call. */
  rateLimitPerHour?: number;
  /** Clock in ms (default Date.now); drives the rate window and the dates of created records. */
  now?: () => number;
  /** How long the `tok_timeout` payment waits before answering (default 60000). */
  paymentHangMs?: number;
}

const optionsSchema = z.object({
  rateLimitPerHour: z.number().int().positive().default(1000),
  now: z.custom<() => number>((v) => typeof v === 'function', 'must be a function').optional(),
  paymentHangMs: z.number().int().min(0).max(2_147_483_647).default(60_000),
});

/** Recent requests kept in state.requests; older ones are dropped so a long-running sandbox stays small. */
const MAX_RECORDED_REQUESTS = 10_000;

export interface SandboxInternals {
  app: express.Express;
  state: SandboxState;
  /** Sets the public base URL used in on-demand links (startSandbox knows it once listening). */
  setOrigin(origin: string): void;
  /** Cancels every held reply; the server's sockets are closed by whoever owns the server. */
  shutdown(): void;
}

function splitUrl(url: string): { path: string; search: string } {
  const q = url.indexOf('?');
  return q < 0 ? { path: url, search: '' } : { path: url.slice(0, q), search: url.slice(q + 1) };
}

function recordedQuery(search: string): RecordedRequest['query'] {
  const entries = new Map<string, string | string[]>();
  for (const [name, raw] of new URLSearchParams(search)) {
    // A key in the URL is a caller's mistake worth seeing in tests, but never worth keeping.
    const value = name === 'api_key' ? '[redacted]' : raw;
    const seen = entries.get(name);
    entries.set(name, seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value]);
  }
  return Object.fromEntries(entries);
}

/** Express's own client errors (a malformed %-escape in a path parameter) stay 400; the rest are 500. */
function toSandboxError(error: unknown): SandboxError {
  if (error instanceof SandboxError) return error;
  const status = typeof error === 'object' && error !== null && 'status' in error ? error.status : undefined;
  if (typeof status === 'number' && status >= 400 && status < 500) return new SandboxError('invalid_request', 'malformed request');
  return new SandboxError('server_error', 'internal error');
}

export function buildSandbox(options: SandboxOptions = {}): SandboxInternals {
  const settings = optionsSchema.parse(options);
  const now = settings.now ?? Date.now;
  const state = createSandboxState();
  const hung = createHungReplies();
  const ctx = {
    state,
    limiter: createRateLimiter({ limitPerWindow: settings.rateLimitPerHour, now }),
    now,
    hung,
    paymentHangMs: settings.paymentHangMs,
  };
  let origin: string | undefined;

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  app.use((req: Request, _res: Response, next: NextFunction) => {
    const { path, search } = splitUrl(req.originalUrl);
    state.requests.push({ method: req.method, path, query: recordedQuery(search), apiKey: req.get('x-api-key') !== undefined });
    if (state.requests.length > MAX_RECORDED_REQUESTS) state.requests.splice(0, state.requests.length - MAX_RECORDED_REQUESTS);
    next();
  });

  app.use(async (req: Request, res: Response, next: NextFunction) => {
    const { path, search } = splitUrl(req.originalUrl);
    if (path === V1_PREFIX || path.startsWith(`${V1_PREFIX}/`)) {
      await handleV1(req, res, ctx, path.slice(V1_PREFIX.length), search);
      return;
    }
    if (path === '/api' || path.startsWith('/api/')) {
      throw new SandboxError('gone', `the unversioned API has been retired; use the current API at ${V1_PREFIX}/`);
    }
    next();
  });

  app.get(BLANK_HEADSHOT_PATH, sendBlankHeadshot);
  app.get('/ondemand/:ident/:primary/:secondary', (req: Request, res: Response) => {
    sendOnDemandLink(req, res, origin ?? `${req.protocol}://${req.get('host') ?? 'localhost'}`);
  });

  app.use(() => {
    throw new SandboxError('not_found', 'no such path');
  });

  // Express needs all four parameters to recognise an error handler.
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    sendError(res, toSandboxError(error));
  });

  return {
    app,
    state,
    setOrigin: (value) => {
      origin = value;
    },
    shutdown: () => hung.cancelAll(),
  };
}
