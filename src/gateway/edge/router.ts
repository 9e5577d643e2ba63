// The gateway's request handler: the edge parses each request once, gives it its context and looks its route
// up once in the route table; the steps run in their fixed order, then the route serves the request. The
// steps are one chain of plain calls, each handed the request's context: nothing matches paths between
// them, and nothing else routes. The handler is a node:http listener (start.ts) and Express middleware alike
// (an app mounts it with app.use).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { badRequest } from '../../shared/errors.js';
import type { Next, Step } from '../steps/step.js';
import { writeLegacyError } from './error-reply.js';
import { LegacyRequest } from './legacy-request.js';
import { openContext, type RequestContext } from './request-context.js';
import { requestIdOf } from './request-id.js';
import type { RouteTable } from './route-table.js';

export interface RouterParts {
  table: RouteTable;
  /** In order; each applies to the routes it concerns and passes the others on. */
  steps: readonly Step[];
  /** The key lent to calls that bring none (UPSTREAM_API_KEY). */
  fallbackApiKey: string | undefined;
}

/** The gateway as a handler: `next` is called only when the gateway could not answer at all (as Express
 * middleware, the host app's error handler then answers). */
export type GatewayHandler = (req: IncomingMessage, res: ServerResponse, next?: Next) => void;

/** An error a step or a route threw: a legacy-shaped reply, a 4xx from below (a body parser's) kept as bad
 * input. Before the request has its context, the reply is all there is. */
function answerError(err: unknown, res: ServerResponse, ctx: RequestContext | undefined): void {
  const status = (err as { status?: unknown } | null)?.status;
  writeLegacyError(res, typeof status === 'number' && status >= 400 && status < 500 ? badRequest('malformed request') : err, ctx);
}

/** Runs the steps from `at`, then the route; a throw or next(err) anywhere answers the error, once. */
function runFrom(steps: readonly Step[], ctx: RequestContext, at: number, failed: (err: unknown) => void): void {
  let i = at;
  const next: Next = (err) => {
    if (err !== undefined && err !== null) return failed(err);
    try {
      const step = steps[i++];
      if (step) return step.handle(ctx, next);
      ctx.label = ctx.route.label;
      const served = ctx.route.handle(ctx);
      if (served) served.catch(failed);
    } catch (thrown) {
      failed(thrown);
    }
  };
  next();
}

export function createGatewayRouter(parts: RouterParts): GatewayHandler {
  const { steps, table, fallbackApiKey } = parts;
  return function gateway(req, res, done) {
    let ctx: RequestContext | undefined;
    const failed = (err: unknown): void => {
      try {
        answerError(err, res, ctx);
      } catch (thrown) {
        if (done) done(thrown);
        else res.destroy();
      }
    };
    try {
      const request = new LegacyRequest(req.method ?? 'GET', req.url, req.headers, fallbackApiKey);
      ctx = openContext(req, res, request, table.lookup(request), requestIdOf(req.headers));
      res.setHeader('x-request-id', ctx.requestId);
    } catch (thrown) {
      return failed(thrown);
    }
    runFrom(steps, ctx, 0, failed);
  };
}
