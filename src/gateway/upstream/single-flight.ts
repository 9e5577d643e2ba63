// Identical concurrent GETs (same API key, same v1 URL, same form and translation) share one upstream call: the first
// caller makes it, the others wait for its outcome, success or failure. Nothing is kept once the call
// settles (that is the cache's job), so a later call always goes upstream. A `bytes` and a `json` caller of
// one URL do not share: each gets the form it asked for. A lone caller is given the reply as it came; when
// several share it, its body is taken once and each is given a reply of its own over the shared payload,
// which is read-only, in a box of its own; the shared payload is let go once the last caller has its copy
// (why: shared/hand-off.ts).
import { handOff } from '../../shared/hand-off.js';
import { requestKey } from './request-key.js';
import type { V1GetRequest, V1Json, V1Payload, V1Transport } from './v1-client.js';

export interface SingleFlightTransport extends V1Transport {
  /** Calls under way right now (for tests and diagnostics). */
  inFlight(): number;
}

interface Flight {
  /** The call, until it settles: let go then, so that a flight the Map's replaced tables still hold
   * (in-flight-list.ts) keeps no reply alive. */
  call: Promise<V1Json> | undefined;
  /** Callers that have not yet been given their reply. */
  waiting: number;
  /** The reply's body once taken for several callers, until the last of them has its copy. */
  payload: V1Payload | undefined;
}

/** The form is part of the key: the call made for one form gives the body in that form only; and so is a
 * page's translation (its id), which gives what that translation makes of the page. */
function flightKey(request: V1GetRequest): string {
  if (request.form !== 'bytes') return requestKey(request);
  const translation = request.translation;
  return translation === undefined ? `${requestKey(request)}\0bytes` : `${requestKey(request)}\0bytes\0${translation.id}`;
}

export function withSingleFlight(inner: V1Transport): SingleFlightTransport {
  const pending = new Map<string, Flight>();
  return {
    getJson(request: V1GetRequest): Promise<V1Json> {
      const key = flightKey(request);
      let flight = pending.get(key);
      let call = flight?.call;
      if (!flight || !call) {
        call = inner.getJson(request);
        const started: Flight = { call, waiting: 0, payload: undefined };
        // Registered before any caller's reaction, so it runs first: nobody joins a settled call, and every
        // caller's reaction sees how many callers share the reply.
        const settled = (): void => {
          pending.delete(key);
          started.call = undefined;
        };
        call.then(settled, settled);
        pending.set(key, started);
        flight = started;
      }
      const joined = flight;
      joined.waiting++;
      return call.then((reply) => {
        joined.waiting--;
        if (joined.payload === undefined) {
          if (joined.waiting === 0) return reply;
          joined.payload = reply.body.take();
        }
        const own: V1Json = { ...reply, body: handOff(joined.payload) };
        if (joined.waiting === 0) joined.payload = undefined;
        return own;
      });
    },
    inFlight: () => pending.size,
  };
}
