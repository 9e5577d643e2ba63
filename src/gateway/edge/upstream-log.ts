// Notes every upstream exchange a request makes, for its log line: the v1 path, the outcome (HTTP status,
// or the gateway error code when there was no usable reply) and the time taken. One adapter for every
// route: translated reads and the payment flow wrap their calls in `timed`, the streaming passthrough
// brackets its exchange with `begin`. A reply served from the cache is a cache hit, not an upstream call.
import { GatewayError } from '../../shared/errors.js';
import type { V1Json } from '../upstream/v1-client.js';
import type { RequestContext } from './request-context.js';

/** How a failed upstream call is named in the log: v1's HTTP status, else the gateway error code. */
export function failureOutcome(err: unknown): number | string {
  if (!(err instanceof GatewayError)) return 'error';
  return err.code === 'LGW_UPSTREAM_ERROR' ? err.status : err.code;
}

/** Starts timing one exchange with `path`; the returned function notes how it ended. */
export function begin(ctx: RequestContext, path: string): (outcome: number | string) => void {
  const started = performance.now();
  return (outcome) => {
    ctx.upstream.push({ path, outcome, ms: Math.round(performance.now() - started) });
  };
}

/** Makes `call` (a transport's or writer's call: it never throws, it rejects), noting it as an upstream call,
 * or as a cache hit when the cache answered it. A chain of promises rather than an async function: a read's
 * frames wait as long as v1 takes, and each suspended one is kept (and copied by the collector) all that
 * time. */
export function timed<T extends V1Json>(ctx: RequestContext, path: string, call: () => Promise<T>): Promise<T> {
  const done = begin(ctx, path);
  return call().then(
    (reply) => {
      if (reply.servedFrom === undefined) done(reply.status);
      else ctx.cacheHits++;
      return reply;
    },
    (err: unknown) => {
      done(failureOutcome(err));
      throw err;
    },
  );
}
