// What the gateway knows about one request while serving it: the one parse of it (LegacyRequest), the
// route the edge chose, the name it goes by in metrics and logs, and what the route learnt (upstream
// calls, cache hits, the payment code), kept on the request for the one log line written at the end.
// The edge attaches it before any step runs; steps and routes read it, never req.url again.
import type { IncomingMessage } from 'node:http';
import type { LegacyRequest } from './legacy-request.js';
import type { Route } from './route-table.js';

export interface UpstreamCallNote {
  path: string;
  /** HTTP status, or the gateway error code when there was no usable reply. */
  outcome: number | string;
  ms: number;
}

export interface RequestContext {
  request: LegacyRequest;
  route: Route;
  /** The name in metrics and logs: a mapped legacy method, `payment`, `passthrough`, `healthz`, `readyz`,
   * or `rejected` (refused by the request guard before its route ran). Never a path. */
  label: string | undefined;
  /** The request id (X-Request-Id, echoed or generated), sent upstream with every v1 call. */
  requestId: string;
  upstream: UpstreamCallNote[];
  cacheHits: number;
  /** The legacy code of a payment reply (POST /api/payment). */
  paymentCode?: number;
  /** Set by the reply-cache step on a translated read it may keep: the route hands it the reply bytes
   * and until when the v1 data they were built from stays fresh. */
  keepReply?: (bytes: Buffer, freshUntil: number) => void;
}

const CONTEXT = Symbol('legacy-gateway request context');

type WithContext = IncomingMessage & { [CONTEXT]?: RequestContext };

export function attachContext(req: IncomingMessage, request: LegacyRequest, route: Route): RequestContext {
  const ctx: RequestContext = { request, route, label: route.kind === 'own' ? route.label : undefined, requestId: 'unknown', upstream: [], cacheHits: 0 };
  (req as WithContext)[CONTEXT] = ctx;
  return ctx;
}

/** The context the edge attached (every request that reached a step or a route has one). */
export function contextOf(req: IncomingMessage): RequestContext {
  const ctx = (req as WithContext)[CONTEXT];
  if (!ctx) throw new Error('request context read before the edge attached it');
  return ctx;
}

/** The context, when the edge has attached one (a log line may be written for a request that never got one). */
export function maybeContextOf(req: IncomingMessage): RequestContext | undefined {
  return (req as WithContext)[CONTEXT];
}
