// A step: one cross-cutting concern of the edge (tracking, metrics, logging, the request guard, recording,
// the reply cache), run in a fixed order for every request before its route, as Express middleware. A
// step reads the request's context (its route, its parse) and either passes the request on with `next()`
// or answers it itself (the guard refusing it, the reply cache serving it); it never routes.
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface Step {
  /** What the step is, in three words or fewer (shown nowhere; for readers and stack traces). */
  name: string;
  handle(req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void): void;
}
