// Counts every upstream GET attempt by outcome (legacy_gateway_upstream_requests_total{outcome}). It sits
// innermost, under the retry layer, so each retry is one more attempt. It never changes a reply or error.
import { GatewayError } from '../../shared/errors.js';
import type { UpstreamOutcome } from '../metrics/gateway-metrics.js';
import type { V1GetRequest, V1Json, V1Transport } from './v1-client.js';

/** The metric outcome of a failed upstream call. Pure. */
export function outcomeOf(err: unknown): UpstreamOutcome {
  if (!(err instanceof GatewayError)) return 'unreachable';
  switch (err.code) {
    case 'LGW_UPSTREAM_TIMEOUT':
      return 'timeout';
    case 'LGW_UPSTREAM_UNREACHABLE':
      return 'unreachable';
    case 'LGW_UPSTREAM_ERROR':
      if (err.status === 429) return 'rate_limited';
      return err.status >= 500 ? 'server_error' : 'client_error';
    default:
      return 'bad_reply';
  }
}

export function withUpstreamMetrics(inner: V1Transport, record: (outcome: UpstreamOutcome) => void): V1Transport {
  return {
    async getJson(request: V1GetRequest): Promise<V1Json> {
      try {
        const reply = await inner.getJson(request);
        record('ok');
        return reply;
      } catch (err) {
        // A bad path is refused before any HTTP exchange: not an upstream call.
        if (!(err instanceof GatewayError && err.code === 'LGW_BAD_REQUEST')) record(outcomeOf(err));
        throw err;
      }
    },
  };
}
