// createApp(deps): the gateway's request listener. Routes each request one way:
// the gateway's own routes and the mapped legacy methods go to the express app; everything else is
// streamed to the upstream by the passthrough without touching express. No globals: every edge is a dep.
import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { Logger } from 'pino';
import type { V1Record } from '../../mapping/legacy-record.js';
import type { MappingSet } from '../../mapping/mapping-set.js';
import type { V1Transport } from '../upstream/v1-client.js';
import { noMetrics, type GatewayMetrics } from '../metrics/gateway-metrics.js';
import { observeRequest } from '../metrics/request-observer.js';
import { badRequest } from '../../shared/errors.js';
import { sendLegacyError } from './error-reply.js';
import { readinessProbe } from '../routes/health.js';
import { legacyRoute, legacyTarget } from '../routes/legacy-read.js';
import { createHttpLogger } from '../logging.js';
import type { RequestLifecycle } from '../lifecycle.js';
import type { Passthrough } from '../routes/passthrough.js';
import type { ReplyCache } from '../state/reply-cache.js';
import { contextOf } from './request-context.js';
import { REQUEST_LIMITS, requestProblem } from './request-guard.js';
import { isPaymentCall } from '../routes/payment.js';
import { splitTarget } from '../../shared/request-target.js';

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
  /** Counts requests, latency and in-flight requests (METRICS_PORT); none when absent. */
  metrics?: GatewayMetrics;
  /** Knows the requests in flight, for the drain on SIGTERM. */
  lifecycle?: RequestLifecycle;
  /** Serialised legacy replies kept while their v1 data is fresh (none when the cache is off). */
  replyCache?: ReplyCache;
  onReplyCacheHit?: () => void;
}

export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/** The largest declared body each route accepts before it is read. */
const BODY_LIMITS = {
  payment: Number.POSITIVE_INFINITY,
  gateway: REQUEST_LIMITS.gatewayBodyBytes,
  passthrough: REQUEST_LIMITS.passthroughBodyBytes,
} as const;

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
  // Reached through express only when the recorder is on (it is express middleware).
  app.post(['/api/payment', '/api/payment/'], (req: Request, res: Response) => deps.payment(req, res));
  const serveLegacy = legacyRoute(deps);
  app.use(serveLegacy);
  app.use((req: Request, res: Response) => deps.passthrough(req, res));
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    // Body parser and other express errors carry an HTTP status; keep 4xx ones as bad input.
    const status = (err as { status?: unknown }).status;
    sendLegacyError(req, res, typeof status === 'number' && status >= 400 && status < 500 ? badRequest('malformed request') : err);
  });

  const httpLogger = createHttpLogger(deps.logger);

  /** `healthz` or `readyz` when the request is for one of the gateway's own routes (a query string allowed). */
  const ownRoute = (req: IncomingMessage): 'healthz' | 'readyz' | undefined => {
    const { path } = splitTarget(req.url);
    return path === '/healthz' ? 'healthz' : path === '/readyz' ? 'readyz' : undefined;
  };

  /** A mapped legacy GET (the gateway's own routes are found before, by ownRoute). */
  const isLegacyCall = (req: IncomingMessage): boolean => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    const target = legacyTarget(req.url ?? '/');
    return target !== undefined && deps.mappings.has(target.method);
  };

  const metrics = deps.metrics ?? noMetrics;
  return (req, res) => {
    deps.lifecycle?.track(req, res);
    const ctx = contextOf(req);
    // The metric label is the name the route gives the request (never its path).
    observeRequest(metrics, req, res, () => ctx.legacyMethod ?? 'other');
    httpLogger(req, res);
    const own = ownRoute(req);
    if (own) ctx.legacyMethod = own;
    const route = isPaymentCall(req) ? 'payment' : own || isLegacyCall(req) ? 'gateway' : 'passthrough';
    // The payment route enforces its own body limit while reading, and answers it in the payment shape.
    const bodyLimit = BODY_LIMITS[route];
    const problem = requestProblem(req, bodyLimit);
    if (problem) {
      ctx.legacyMethod ??= 'rejected';
      return sendLegacyError(req, res, problem);
    }
    if (route === 'payment') {
      if (deps.recorder) app(req, res);
      else deps.payment(req, res);
    } else if (route === 'gateway' && !deps.recorder && !own) {
      // A mapped legacy GET needs nothing from express (only the recorder is express middleware): the
      // route is called directly, which saves express's routing on the busiest path.
      serveLegacy(req, res, () => app(req, res)).catch((err: unknown) => sendLegacyError(req, res, err));
    } else if (route === 'gateway') {
      app(req, res);
    } else {
      deps.passthrough(req, res);
    }
  };
}
