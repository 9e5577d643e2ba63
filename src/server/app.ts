// createApp(deps): the gateway's request listener. Routes each request one way:
// the gateway's own routes and the mapped legacy methods go to the express app; everything else is
// streamed to the upstream by the passthrough without touching express. No globals: every edge is a dep.
import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { Logger } from 'pino';
import type { V1Record } from '../mapping/legacy-record.js';
import type { MappingSet } from '../mapping/mapping-set.js';
import type { V1Transport } from '../upstream/v1-client.js';
import { badRequest } from '../errors.js';
import { sendLegacyError } from './error-reply.js';
import { readinessProbe } from './health.js';
import { legacyRoute, legacyTarget } from './legacy-route.js';
import { createHttpLogger } from './logging.js';
import type { Passthrough } from './passthrough.js';
import { isPaymentCall } from './payment-route.js';

export interface AppDeps {
  mappings: MappingSet;
  transport: V1Transport;
  passthrough: Passthrough;
  logger: Logger;
  upstreamUrl: string;
  upstreamApiKey: string | undefined;
  upstreamTimeoutMs: number;
  accountTimezone: string | undefined;
  staticRecords: (setting: string) => readonly V1Record[] | undefined;
  isDraining: () => boolean;
  /** Records legacy calls and replies (RECORD_FILE); mounted for mapped legacy methods only. */
  recorder?: RequestHandler;
  /** POST /api/payment (src/server/payment-route.ts). */
  payment: RequestListener;
}

/** Longest request target accepted; legacy URLs are short, and nothing longer is passed on. */
const MAX_URL_LENGTH = 8192;

export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

export function createApp(deps: AppDeps): RequestListener {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('query parser', false);

  const health = readinessProbe({
    upstreamUrl: deps.upstreamUrl,
    timeoutMs: deps.upstreamTimeoutMs,
    isDraining: deps.isDraining,
    mappingCount: deps.mappings.size,
  });
  app.get('/healthz', health.healthz);
  app.get('/readyz', health.readyz);
  if (deps.recorder) app.use(deps.recorder);
  app.use(legacyRoute(deps));
  app.use((req: Request, res: Response) => deps.passthrough(req, res));
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    // Body parser and other express errors carry an HTTP status; keep 4xx ones as bad input.
    const status = (err as { status?: unknown }).status;
    sendLegacyError(req, res, typeof status === 'number' && status >= 400 && status < 500 ? badRequest('malformed request') : err);
  });

  const httpLogger = createHttpLogger(deps.logger);

  const isGatewayRoute = (req: IncomingMessage): boolean => {
    const url = req.url ?? '/';
    if (url === '/healthz' || url === '/readyz') return true;
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    const target = legacyTarget(url);
    return target !== undefined && deps.mappings.has(target.method);
  };

  return (req, res) => {
    httpLogger(req, res);
    const url = req.url ?? '';
    if (!url.startsWith('/')) return sendLegacyError(req, res, badRequest('the request target must be a path'));
    if (url.length > MAX_URL_LENGTH) return sendLegacyError(req, res, badRequest('the request path is too long'));
    if (isPaymentCall(req)) {
      deps.payment(req, res);
    } else if (isGatewayRoute(req)) {
      app(req, res);
    } else {
      deps.passthrough(req, res);
    }
  };
}
