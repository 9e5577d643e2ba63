// Step: registers the request with the gateway's lifecycle, so a drain (SIGTERM) knows what is in flight.
// First in the list: a request the drain does not know about could be cut off without an answer.
import type { RequestLifecycle } from '../lifecycle.js';
import type { Step } from './step.js';

export function trackStep(lifecycle: RequestLifecycle): Step {
  return {
    name: 'track',
    handle(ctx, next) {
      lifecycle.track(ctx.req, ctx.res);
      next();
    },
  };
}
