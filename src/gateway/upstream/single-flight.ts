// Identical concurrent GETs (same API key, same v1 URL) share one upstream call: the first caller makes
// it, the others wait for its outcome, success or failure. Nothing is kept once the call settles (that is
// the cache's job), so a later call always goes upstream. Each caller is given a reply object of its own
// (the body itself is shared and read-only), so that a caller may empty its own with takeBody; the shared
// reply is emptied once the last caller has its copy (why: shared/hand-off.ts).
import { requestKey } from './request-key.js';
import { takeBody, type V1GetRequest, type V1Json, type V1Transport } from './v1-client.js';

export interface SingleFlightTransport extends V1Transport {
  /** Calls under way right now (for tests and diagnostics). */
  inFlight(): number;
}

interface Flight {
  call: Promise<V1Json>;
  /** Callers that have not yet been given their copy of the reply. */
  waiting: number;
}

export function withSingleFlight(inner: V1Transport): SingleFlightTransport {
  const pending = new Map<string, Flight>();
  return {
    getJson(request: V1GetRequest): Promise<V1Json> {
      const key = requestKey(request);
      let flight = pending.get(key);
      if (!flight) {
        const started: Flight = { call: inner.getJson(request), waiting: 0 };
        // Registered before any caller's reaction, so it runs first: nobody joins a settled call.
        const settled = () => pending.delete(key);
        started.call.then(settled, settled);
        pending.set(key, started);
        flight = started;
      }
      const joined = flight;
      joined.waiting++;
      return joined.call.then((reply) => {
        const own = { ...reply };
        if (--joined.waiting === 0) takeBody(reply);
        return own;
      });
    },
    inFlight: () => pending.size,
  };
}
