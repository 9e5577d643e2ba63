// Step: registers the request with the gateway's lifecycle, so a drain (SIGTERM) knows what is in flight;
// the lifecycle lets it go in the request's after-work, when its response closes.
// A request the drain does not know about could be cut off without an answer.
import type { RequestLifecycle } from '../lifecycle.js';
import type { Step } from './step.js';

export function trackStep(lifecycle: RequestLifecycle): Step {
  return {
    name: 'track',
    handle(ctx, next) {
      lifecycle.track(ctx);
      next();
    },
  };
}
