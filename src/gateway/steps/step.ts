// A step: one cross-cutting concern of the edge (tracing, tracking, metrics, logging, usage, the request
// guard, recording), run in a fixed order for every request before its route. A step is given the
// request's typed context (its parse, its route, its req and res) and either passes the request on with
// `next()` or answers it itself (the guard refusing it); it never routes. The edge runs the list as a plain
// chain of calls (edge/router.ts): no router walks it.
import type { RequestContext } from '../edge/request-context.js';

/** Passes the request to the next step (or its route); with an error, the request is answered with it. */
export type Next = (err?: unknown) => void;

export interface Step {
  /** What the step is, in three words or fewer (shown nowhere; for readers and stack traces). */
  name: string;
  handle(ctx: RequestContext, next: Next): void;
}
