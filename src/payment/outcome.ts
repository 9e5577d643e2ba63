// Decides the legacy code and HTTP status of an upstream failure in the payment flow. Pure.
// A refusal by v1 (a 4xx about the request) is a legacy code with HTTP 200; a fault (401/403/429/5xx,
// unreachable, timeout, a reply of the wrong shape) keeps the fault's HTTP status, with the code of the
// step it stopped (flow.ts lists the steps and their codes).
import { GatewayError } from '../shared/errors.js';
import type { ErrorRule } from './payment-mapping.js';

const FAULT_STATUSES = new Set([401, 403, 429]);

/** Whether an upstream failure is a fault of the service (or the path to it) rather than a refusal. */
export function isFault(err: GatewayError): boolean {
  if (err.code !== 'LGW_UPSTREAM_ERROR') return true;
  return FAULT_STATUSES.has(err.status) || err.status >= 500;
}

/** Whether a fault is the service refusing the call itself (key, permission, rate limit): nothing was done. */
export function isServiceRefusal(err: GatewayError): boolean {
  return err.code === 'LGW_UPSTREAM_ERROR' && FAULT_STATUSES.has(err.status);
}

/** Whether a fault on a create call leaves its outcome unknown (it may have been carried out). */
export function outcomeUnknown(err: GatewayError): boolean {
  if (err.code === 'LGW_UPSTREAM_TIMEOUT' || err.code === 'LGW_UPSTREAM_BAD_REPLY') return true;
  if (err.code === 'LGW_UPSTREAM_UNREACHABLE') return !isRefusedConnection(err);
  // 503 is maintenance (refused before any work); other 5xx may come after the work was done.
  return err.code === 'LGW_UPSTREAM_ERROR' && err.status >= 500 && err.status !== 503;
}

/** A connection that was never opened: the request cannot have been sent. */
function isRefusedConnection(err: GatewayError): boolean {
  let cause: unknown = err.cause;
  for (let depth = 0; depth < 4 && cause; depth++) {
    if ((cause as { code?: unknown }).code === 'ECONNREFUSED') return true;
    cause = (cause as { cause?: unknown }).cause;
  }
  return false;
}

export function matchRule(rules: readonly ErrorRule[], err: GatewayError): ErrorRule | undefined {
  return rules.find(
    (r) =>
      (r.status === undefined || r.status === err.status) &&
      (r.upstreamCode === undefined || r.upstreamCode === err.upstreamCode) &&
      (r.messageMatches === undefined || new RegExp(r.messageMatches, 'i').test(err.message)),
  );
}
