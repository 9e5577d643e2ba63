// The route table, built once from the mapping set: the gateway's own routes (/healthz, /readyz), one
// entry per read mapping, the payment, and the passthrough as the fallback. A request is looked up once,
// from the edge's one parse of it; the route it gets names it in metrics and logs, bounds its body, and
// serves it. Adding a read mapping adds its route here and nowhere else.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { MappingSet } from '../../mapping/mapping-set.js';
import type { Mapping } from '../../mapping/schema.js';
import { isPaymentTarget } from '../../shared/request-target.js';
import type { LegacyRequest } from './legacy-request.js';
import type { RequestContext } from './request-context.js';
import { REQUEST_LIMITS } from './request-guard.js';

export type RouteHandler = (req: IncomingMessage, res: ServerResponse, ctx: RequestContext) => void | Promise<void>;

export interface Route {
  /** own: /healthz, /readyz; read: a mapped legacy method; payment; passthrough: everything else. */
  kind: 'own' | 'read' | 'payment' | 'passthrough';
  /** The name in metrics and logs (never a path). */
  label: string;
  /** The largest declared body accepted before the route reads any of it. */
  bodyLimit: number;
  /** The read mapping a `read` route serves. */
  mapping?: Mapping;
  handle: RouteHandler;
}

export interface RouteHandlers {
  healthz: RouteHandler;
  readyz: RouteHandler;
  /** Builds the handler of one read mapping (called once per mapping, when the table is built). */
  read: (mapping: Mapping) => RouteHandler;
  payment: RouteHandler;
  passthrough: RouteHandler;
}

export interface RouteTable {
  lookup(request: LegacyRequest): Route;
  /** Every route, the fallback last (metrics labels, the front proxy's routes, the description). */
  routes(): readonly Route[];
}

const READS = new Set(['GET', 'HEAD']);

export function buildRouteTable(mappings: MappingSet, handlers: RouteHandlers): RouteTable {
  const own = new Map<string, Route>([
    ['/healthz', { kind: 'own', label: 'healthz', bodyLimit: REQUEST_LIMITS.gatewayBodyBytes, handle: handlers.healthz }],
    ['/readyz', { kind: 'own', label: 'readyz', bodyLimit: REQUEST_LIMITS.gatewayBodyBytes, handle: handlers.readyz }],
  ]);
  const reads = new Map<string, Route>();
  for (const mapping of mappings.values()) {
    reads.set(mapping.method, { kind: 'read', label: mapping.method, bodyLimit: REQUEST_LIMITS.gatewayBodyBytes, mapping, handle: handlers.read(mapping) });
  }
  // The payment route enforces its own body limit while reading, and answers it in the payment shape.
  const payment: Route = { kind: 'payment', label: 'payment', bodyLimit: Number.POSITIVE_INFINITY, handle: handlers.payment };
  const passthrough: Route = { kind: 'passthrough', label: 'passthrough', bodyLimit: REQUEST_LIMITS.passthroughBodyBytes, handle: handlers.passthrough };

  return {
    lookup(request) {
      const { httpMethod, path } = request;
      if (READS.has(httpMethod)) {
        const route = (request.legacy && reads.get(request.legacy.method)) || own.get(path);
        if (route) return route;
      }
      return isPaymentTarget(httpMethod, path) ? payment : passthrough;
    },
    routes: () => [...own.values(), ...reads.values(), payment, passthrough],
  };
}
