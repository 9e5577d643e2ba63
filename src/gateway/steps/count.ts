// Step: counts the request in the metrics (in flight, then method, status and duration). The label is
// read when the response closes (the step's after-work), by then set by the guard or the route: a route
// name, never a path.
import type { GatewayMetrics } from '../metrics/gateway-metrics.js';
import { observeRequest } from '../metrics/request-observer.js';
import type { Step } from './step.js';

export function countStep(metrics: GatewayMetrics): Step {
  return {
    name: 'count',
    handle(ctx, next) {
      observeRequest(metrics, ctx);
      next();
    },
  };
}
