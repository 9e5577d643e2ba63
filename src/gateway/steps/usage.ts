// Step: counts each legacy call (a translated read or the payment; never the passthrough or health) for
// GET /usage, under the fingerprint of the key the caller sent (state/usage/usage-tracker.ts). The route is known
// from the edge's lookup, before any step runs: a call the guard then refuses still counts, since its
// integration still calls the old API. The count is in memory; nothing here waits on Redis.
import type { UsageTracker } from '../state/usage/usage-tracker.js';
import type { Step } from './step.js';

export function usageStep(usage: UsageTracker): Step {
  return {
    name: 'usage',
    handle({ route, request, req }, next) {
      if (route.kind === 'read' || route.kind === 'payment') {
        // A key lent by the gateway (UPSTREAM_API_KEY) is not the caller's: such a call has no key of its own.
        usage.record({ apiKey: request.apiKeyIsLent ? undefined : request.apiKey, method: route.label, userAgent: req.headers['user-agent'] });
      }
      next();
    },
  };
}
