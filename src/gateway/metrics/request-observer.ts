// Feeds one request into the metrics: in flight from arrival, then method, status and duration once its
// response closes (the reply handed to the connection, or the connection gone first), as the request's
// after-work, exactly once. The method label is read at the end, when the guard or the route has named the
// request; it is a route name, never a path.
import type { RequestContext } from '../edge/request-context.js';
import type { GatewayMetrics } from './gateway-metrics.js';

export function observeRequest(metrics: GatewayMetrics, ctx: RequestContext): void {
  const started = process.hrtime.bigint();
  metrics.requestStarted();
  ctx.afterWork.push(() => {
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    metrics.requestFinished(ctx.label ?? 'other', ctx.res.statusCode, seconds);
  });
}
