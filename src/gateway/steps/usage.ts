// Step: counts each legacy call (a translated read or the payment; never the passthrough or health) for
// GET /usage, under the fingerprint of the key the caller sent (state/usage/usage-tracker.ts), and notes the
// caller's integration by name (INTEGRATIONS_FILE, integrations/) for the request's log line. The route is
// known from the edge's lookup, before any step runs: a call the guard then refuses still counts, since its
// integration still calls the old API. The count is in memory; nothing here waits on Redis.
import type { IntegrationDirectory } from '../integrations/integration-directory.js';
import type { UsageTracker } from '../state/usage/usage-tracker.js';
import type { Step } from './step.js';

/** `onCall`: told the integration (by name) of each legacy call it makes (the notices' `sunset-call`), in memory. */
export function usageStep(usage: UsageTracker, integrations: Pick<IntegrationDirectory, 'byFingerprint'> | undefined, onCall?: (integration: string) => void): Step {
  return {
    name: 'usage',
    handle(ctx, next) {
      const { route, request, req } = ctx;
      // A replayed call (shared/replay-header.ts) is not an integration's: not counted.
      if ((route.kind === 'read' || route.kind === 'payment') && !request.replayed) {
        // A key lent by the gateway (UPSTREAM_API_KEY) is not the caller's: such a call has no key of its own.
        const apiKey = request.apiKeyIsLent ? undefined : request.apiKey;
        usage.record({ apiKey, method: route.label, userAgent: req.headers['user-agent'] });
        if (integrations) ctx.integration = integrations.byFingerprint(usage.fingerprintOf(apiKey))?.name;
        if (onCall && ctx.integration !== undefined) onCall(ctx.integration);
      }
      next();
    },
  };
}
