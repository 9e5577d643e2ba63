// What the gateway learns about one request while serving it (legacy method, upstream calls, cache hits),
// kept beside the request for the one log line written when the reply is finished.
import type { IncomingMessage } from 'node:http';
import { GatewayError } from '../../shared/errors.js';

export interface UpstreamCallNote {
  path: string;
  /** HTTP status, or the gateway error code when there was no usable reply. */
  outcome: number | string;
  ms: number;
}

export interface RequestContext {
  /** The mapped legacy method (`clients`), `passthrough`, or the gateway's own route. */
  legacyMethod?: string;
  upstream: UpstreamCallNote[];
  cacheHits: number;
  /** The legacy code of a payment reply (POST /api/payment). */
  paymentCode?: number;
}

const contexts = new WeakMap<IncomingMessage, RequestContext>();

export function contextOf(req: IncomingMessage): RequestContext {
  let ctx = contexts.get(req);
  if (!ctx) {
    ctx = { upstream: [], cacheHits: 0 };
    contexts.set(req, ctx);
  }
  return ctx;
}

/** Notes one upstream call for the log line: its v1 path, outcome and duration since `started`. */
export function noteUpstreamCall(ctx: RequestContext, path: string, started: number, outcome: number | string): void {
  ctx.upstream.push({ path, outcome, ms: Math.round(performance.now() - started) });
}

/** How a failed upstream call is named in the log: v1's HTTP status, else the gateway error code. */
export function failureOutcome(err: unknown): number | string {
  if (!(err instanceof GatewayError)) return 'error';
  return err.code === 'LGW_UPSTREAM_ERROR' ? err.status : err.code;
}
