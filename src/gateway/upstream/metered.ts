// Counts every exchange with v1 by resource, verb and outcome, with its duration
// (legacy_gateway_upstream_requests_total{resource,verb,outcome} and ..._duration_seconds). GETs are counted
// innermost, under the retry layer, so each retry is one more attempt; POSTs (the payment, the client it may
// create) are counted at the client, which the payment flow is handed as its writer. It never changes a reply
// or an error.
import { GatewayError } from '../../shared/errors.js';
import type { UpstreamCall, UpstreamOutcome } from '../metrics/gateway-metrics.js';
import type { V1GetRequest, V1Json, V1PostObserver, V1Transport } from './v1-client.js';

export type UpstreamRecorder = (outcome: UpstreamOutcome, call: UpstreamCall) => void;

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

/** The v1 resource a path names: its first segment (`/clients/12` -> `clients`), '' when it has none. Pure;
 * the metrics keep it only when it is one of the resources they know. */
export function v1Resource(path: string): string {
  return /^\/([a-z][a-z0-9-]*)(?:\/|$)/.exec(path)?.[1] ?? '';
}

/** A bad path is refused before any HTTP exchange: not an upstream call. */
const refusedBeforeSending = (err: unknown): boolean => err instanceof GatewayError && err.code === 'LGW_BAD_REQUEST';

const secondsSince = (started: bigint): number => Number(process.hrtime.bigint() - started) / 1e9;

export function withUpstreamMetrics(inner: V1Transport, record: UpstreamRecorder): V1Transport {
  return {
    // A chain of promises rather than an async function: the frame would be kept, and copied by the
    // collector, for as long as v1 takes to answer.
    getJson(request: V1GetRequest): Promise<V1Json> {
      const started = process.hrtime.bigint();
      const call = (): UpstreamCall => ({ resource: v1Resource(request.path), verb: 'GET', seconds: secondsSince(started) });
      return inner.getJson(request).then(
        (reply) => {
          record('ok', call());
          return reply;
        },
        (err: unknown) => {
          if (!refusedBeforeSending(err)) record(outcomeOf(err), call());
          throw err;
        },
      );
    },
  };
}

/** The observer a V1Client tells of each POST's end (V1Client.observePosts), counting it as `record` counts GETs. */
export function postMetrics(record: UpstreamRecorder): V1PostObserver {
  return (request, seconds, failure) => {
    if (failure && refusedBeforeSending(failure.error)) return;
    record(failure ? outcomeOf(failure.error) : 'ok', { resource: v1Resource(request.path), verb: 'POST', seconds });
  };
}
