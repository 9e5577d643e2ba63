// The route table: the legacy surface's routes (src/legacy-surface/legacy-surface.ts, built once from the mappings)
// bound to their handlers: the gateway's own routes (/healthz, /readyz), one entry per read mapping, the
// payment, and the passthrough as the fallback. A request is looked up once, from the edge's one parse of
// it; the route it gets names it in metrics and logs, bounds its body, and serves it. The table decides no
// path, method or limit of its own: adding a read mapping adds its route to the surface, and so here.
import type { LegacySurface } from '../../legacy-surface/legacy-surface.js';
import type { Mapping } from '../../mapping/schema.js';
import type { LegacyRequest } from './legacy-request.js';
import type { Route, RouteHandler } from './route.js';

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
  /** Every route, the fallback last (metrics labels, the description). */
  routes(): readonly Route[];
}

/** A bound route and the request methods it answers. */
interface Entry {
  route: Route;
  httpMethods: ReadonlySet<string>;
}

const entry = (httpMethods: readonly string[], route: Route): Entry => ({ route, httpMethods: new Set(httpMethods) });

export function buildRouteTable(surface: LegacySurface, handlers: RouteHandlers): RouteTable {
  const own = new Map<string, Entry>(
    surface.own.map((r) => [r.path, entry(r.httpMethods, { kind: r.kind, label: r.label, bodyLimit: r.bodyLimitBytes, handle: handlers[r.label] })]),
  );
  const reads = new Map<string, Entry>(
    surface.reads.map((r) => [
      r.label,
      entry(r.httpMethods, { kind: r.kind, label: r.label, bodyLimit: r.bodyLimitBytes, mapping: r.mapping, handle: handlers.read(r.mapping) }),
    ]),
  );
  const paying = surface.payment;
  // The payment route enforces its own body limit while reading, and answers it in the payment shape: the
  // request guard, which answers in the legacy failure shape, lets any declared size through to it.
  const payment = paying && {
    ...entry(paying.httpMethods, { kind: paying.kind, label: paying.label, bodyLimit: Number.POSITIVE_INFINITY, handle: handlers.payment }),
    paths: new Set(paying.paths),
  };
  const { passthrough: through } = surface;
  const passthrough: Route = { kind: through.kind, label: through.label, bodyLimit: through.bodyLimitBytes, handle: handlers.passthrough };

  return {
    lookup(request) {
      const { httpMethod, path } = request;
      const read = request.legacy && reads.get(request.legacy.method);
      if (read && read.httpMethods.has(httpMethod)) return read.route;
      const mine = own.get(path);
      if (mine && mine.httpMethods.has(httpMethod)) return mine.route;
      if (payment && payment.httpMethods.has(httpMethod) && payment.paths.has(path)) return payment.route;
      return passthrough;
    },
    routes: () => [...[...own.values(), ...reads.values()].map((e) => e.route), ...(payment ? [payment.route] : []), passthrough],
  };
}
