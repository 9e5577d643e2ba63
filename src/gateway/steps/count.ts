// Step: counts the request in the metrics (in flight, then method, status and duration). The label is
// read when the reply ends, by then set by the guard or the route: a route name, never a path.
import type { GatewayMetrics } from '../metrics/gateway-metrics.js';
import { observeRequest } from '../metrics/request-observer.js';
import { contextOf } from '../edge/request-context.js';
import type { Step } from './step.js';

export function countStep(metrics: GatewayMetrics): Step {
  return {
    name: 'count',
    handle(req, res, next) {
      const ctx = contextOf(req);
      observeRequest(metrics, req, res, () => ctx.label ?? 'other');
      next();
    },
  };
}
