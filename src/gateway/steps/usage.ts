// Step: counts each legacy call (a translated read or the payment; never the passthrough or health) for
// GET /usage, under the fingerprint of the key the caller sent (state/usage/usage-tracker.ts), with how it
// was called (its call shape: the method and its query parameter names) and, once its reply ends, the HTTP
// status and the payment code it was answered with; and notes the caller's integration by name
// (INTEGRATIONS_FILE, integrations/) for the request's log line and the notices. The route is known from
// the edge's lookup, before any step runs: a call the guard or a brownout then refuses still counts, since its integration
// still calls the old API. The count is in memory; nothing here waits on Redis.
import type { IntegrationDirectory } from '../integrations/integration-directory.js';
import { callShape } from '../state/usage/call-shape.js';
import type { UsageTracker } from '../state/usage/usage-tracker.js';
import type { Step } from './step.js';

/** `onCall`: told the integration (by name) of each legacy call it makes (the notices' `sunset-call`), in memory. */
export function usageStep(usage: UsageTracker, integrations: Pick<IntegrationDirectory, 'byFingerprint'> | undefined, onCall?: (integration: string) => void): Step {
  return {
    name: 'usage',
    handle(ctx, next) {
      const { route, request, req, res } = ctx;
      // A replayed call (shared/replay-header.ts) is not an integration's: not counted.
      if ((route.kind === 'read' || route.kind === 'payment') && !request.replayed) {
        // A key lent by the gateway (UPSTREAM_API_KEY) is not the caller's: such a call has no key of its own.
        const apiKey = request.apiKeyIsLent ? undefined : request.apiKey;
        if (integrations) ctx.integration = integrations.byFingerprint(usage.fingerprintOf(apiKey))?.name;
        if (onCall && ctx.integration !== undefined) onCall(ctx.integration);
        const method = route.label;
        const shape = callShape(method, request.query.map(([name]) => name));
        const userAgent = req.headers['user-agent'];
        // Once the response closes (its reply handed to the connection, or the connection gone first): a
        // caller gone before any reply was written is counted without a status.
        ctx.afterWork.push(() => usage.record({ apiKey, method, userAgent, shape, status: res.headersSent ? res.statusCode : undefined, paymentCode: ctx.paymentCode }));
      }
      next();
    },
  };
}
