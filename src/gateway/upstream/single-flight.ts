// Identical concurrent GETs (same API key, same v1 URL) share one upstream call: the first caller makes
// it, the others wait for its outcome, success or failure. Nothing is kept once the call settles (that is
// the cache's job), so a later call always goes upstream. Callers must treat the shared reply as read-only.
import { requestKey } from './request-key.js';
import type { V1GetRequest, V1Json, V1Transport } from './v1-client.js';

export interface SingleFlightTransport extends V1Transport {
  /** Calls under way right now (for tests and diagnostics). */
  inFlight(): number;
}

export function withSingleFlight(inner: V1Transport): SingleFlightTransport {
  const pending = new Map<string, Promise<V1Json>>();
  return {
    getJson(request: V1GetRequest): Promise<V1Json> {
      const key = requestKey(request);
      const shared = pending.get(key);
      if (shared) return shared;
      const call = inner.getJson(request).finally(() => pending.delete(key));
      pending.set(key, call);
      return call;
    },
    inFlight: () => pending.size,
  };
}
