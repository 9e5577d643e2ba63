// Step: during a brownout window (BROWNOUTS_FILE, brownouts/), a legacy call the window covers is answered
// here with LGW_BROWNOUT (410, Retry-After to the window's end, where to read how to move) and reaches
// neither its route nor v1. Outside every window it costs one comparison per window; the caller's
// integration is looked up only while one is open.
// Its place in the list: after `usage`, so a refused call is still counted as a call of its integration
// (whoever still calls during a brownout is who the brownout is for), and after `count` and `log`, so the
// refusal has its metrics and its log line; after `sunset`, so it carries Sunset, Deprecation and Link.
// Before `guard`: every call in a window gets the same answer, whatever its shape, and a refusal reads no
// body, so the guard's limits protect nothing here. Before `record`: a refusal is the gateway's own
// answer, not a translation worth replaying.
// Each refusal is counted (legacy_gateway_brownout_refusals_total{window,method}) and told to `onRefused`
// (the brownout-hit notice's count); one warn line per integration and occurrence of a window, not per call.
import type { Logger } from 'pino';
import { sendLegacyError } from '../edge/error-reply.js';
import type { BrownoutSchedule } from '../brownouts/brownout-file.js';
import { brownoutRefusal, utcMoment, type WhereToMove } from '../brownouts/brownout-reply.js';
import { anyOpen, refusingOccurrence, type Occurrence } from '../brownouts/brownout-windows.js';
import type { GatewayMetrics } from '../metrics/gateway-metrics.js';
import type { Step } from './step.js';

/** The caller's integration, as far as the brownouts need it: its name (INTEGRATIONS_FILE) and a key for
 * the warn line (its fingerprint) that names no API key. */
export interface CallerIntegration {
  name: string | undefined;
  fingerprint: string;
}

export interface BrownoutStepOptions {
  schedule: BrownoutSchedule;
  /** The caller's integration, from the key it sent (undefined: none, or the gateway's own lent to it). */
  integrationOf: (apiKey: string | undefined) => CallerIntegration;
  where: WhereToMove;
  metrics: Pick<GatewayMetrics, 'brownoutRefusal'>;
  logger: Logger;
  /** ms since the epoch. */
  now?: () => number;
  /** Told of each refusal (the brownout-hit notice's count). */
  onRefused?: (occurrence: Occurrence, integration: CallerIntegration) => void;
}

/** Warned pairs kept at most: past it the oldest are forgotten (a warn line may then repeat). */
const MAX_WARNED = 10_000;

export function brownoutStep(options: BrownoutStepOptions): Step {
  const { schedule, metrics, logger } = options;
  const now = options.now ?? Date.now;
  const warned = new Set<string>();
  const warnOnce = (o: Occurrence, integration: CallerIntegration): void => {
    const key = `${o.window.name}\n${o.start}\n${integration.fingerprint}`;
    if (warned.has(key)) return;
    if (warned.size >= MAX_WARNED) warned.delete(warned.values().next().value as string);
    warned.add(key);
    logger.warn(
      { window: o.window.name, windowStart: utcMoment(o.start), windowEnd: utcMoment(o.end), integration: integration.name ?? null, fingerprint: integration.fingerprint },
      `brownout "${o.window.name}": refusing the legacy calls of ${integration.name ?? 'an unnamed integration'} until ${utcMoment(o.end)}`,
    );
  };
  return {
    name: 'brownout',
    handle(ctx, next) {
      const { route, request } = ctx;
      if (route.kind !== 'read' && route.kind !== 'payment') return next();
      const windows = schedule.windows();
      const at = now();
      if (windows.length === 0 || !anyOpen(windows, at)) return next();
      // A key lent by the gateway (UPSTREAM_API_KEY) is not the caller's: such a call has no integration.
      const integration = options.integrationOf(request.apiKeyIsLent ? undefined : request.apiKey);
      const open = refusingOccurrence(windows, { integration: integration.name, kind: route.kind, method: route.label }, at);
      if (!open) return next();
      ctx.label ??= route.label;
      metrics.brownoutRefusal(open.window.name, route.label);
      warnOnce(open, integration);
      options.onRefused?.(open, integration);
      sendLegacyError(ctx, brownoutRefusal(open, at, options.where, integration.name));
    },
  };
}
