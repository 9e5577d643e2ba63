// A route of the legacy surface (src/legacy-surface/legacy-surface.ts) bound to its handler by the route table
// (route-table.ts). Its handler takes the request's context as a step does (ctx.req, ctx.res, the parse, what
// is noted for the log line), and serves the request: it is the last thing the edge calls for it.
import type { SurfaceRoute } from '../../legacy-surface/legacy-surface.js';
import type { Mapping } from '../../mapping/schema.js';
import type { RequestContext } from './request-context.js';

/** Serves one request; a rejection (or a throw) is answered as the request's error by the edge. */
export type RouteHandler = (ctx: RequestContext) => void | Promise<void>;

export interface Route {
  /** own: /healthz, /readyz; read: a mapped legacy method; payment; passthrough: everything else. */
  kind: SurfaceRoute['kind'];
  /** The name in metrics and logs (never a path). */
  label: string;
  /** The largest declared body accepted before the route reads any of it. */
  bodyLimit: number;
  /** The read mapping a `read` route serves. */
  mapping?: Mapping;
  handle: RouteHandler;
}
