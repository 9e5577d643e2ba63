// The gateway as one Express router: the edge parses each request once and looks its route up once in
// the route table, the steps run in their fixed order, then the route serves the request. Nothing else
// routes: there is no second router beside this one. The router works mounted in an existing Express
// app, or called directly as a node:http listener (start.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type NextFunction, type Router } from 'express';
import { badRequest } from '../../shared/errors.js';
import type { Step } from '../steps/step.js';
import { sendLegacyError } from './error-reply.js';
import { LegacyRequest } from './legacy-request.js';
import { attachContext, contextOf } from './request-context.js';
import { requestIdOf } from './request-id.js';
import type { RouteTable } from './route-table.js';

export interface RouterParts {
  table: RouteTable;
  /** In order; each applies to the routes it concerns and passes the others on. */
  steps: readonly Step[];
  /** The key lent to calls that bring none (UPSTREAM_API_KEY). */
  fallbackApiKey: string | undefined;
}

/** Errors that reached Express (a step or a route that threw): a legacy-shaped reply, 4xx kept as bad input. */
function answerError(err: unknown, req: IncomingMessage, res: ServerResponse, _next: NextFunction): void {
  const status = (err as { status?: unknown }).status;
  sendLegacyError(req, res, typeof status === 'number' && status >= 400 && status < 500 ? badRequest('malformed request') : err);
}

export function createGatewayRouter(parts: RouterParts): Router {
  const router = express.Router();
  router.use(function edge(req: IncomingMessage, res: ServerResponse, next: NextFunction) {
    const request = new LegacyRequest(req.method ?? 'GET', req.url, req.headers, parts.fallbackApiKey);
    const { requestId } = attachContext(req, request, parts.table.lookup(request), requestIdOf(req.headers));
    res.setHeader('x-request-id', requestId);
    next();
  });
  for (const step of parts.steps) router.use(step.handle);
  router.use(function serve(req: IncomingMessage, res: ServerResponse, next: NextFunction) {
    const ctx = contextOf(req);
    ctx.label = ctx.route.label;
    const served = ctx.route.handle(req, res, ctx);
    if (served) served.catch(next);
  });
  router.use(answerError);
  return router;
}

/** The router as a plain node:http listener (no Express app around it). */
export function routerListener(router: Router): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    router(req as express.Request, res as express.Response, (err?: unknown) => sendLegacyError(req, res, err ?? new Error('no route answered')));
  };
}
