// The port through which the mapping proposal reads v1: the gateway's own v1 client (same URL rules, same
// timeout, the key only ever in the X-API-KEY header), aimed at the replay's upstream, or at a running
// gateway whose passthrough relays /api/v1/** to its own upstream. Each v1 URL is read once per run, however
// many differing calls stand on it. It never logs, and its errors never carry the key.
import type { V1Get } from '../../mapping/v1-reply.js';
import { handOff } from '../../shared/hand-off.js';
import type { V1Reads } from '../run/gateway-port.js';

export interface V1Reader {
  get: V1Get;
  close(): Promise<void>;
}

/**
 * @param client the gateway's v1 client, aimed where `/api/v1/...` is asked for: the v1 service, or a gateway in front of it
 * @param apiKey the replay's key (undefined: none is sent, and a gateway in front lends its own)
 */
export function createV1Reader(client: V1Reads, apiKey: string | undefined): V1Reader {
  const replies = new Map<string, Promise<unknown>>();
  return {
    get: (call) => {
      const key = JSON.stringify([call.path, Object.entries(call.query)]);
      let reply = replies.get(key);
      if (!reply) {
        reply = client.getJson(call.path, call.query, apiKey);
        replies.set(key, reply);
      }
      // The same body for every call on this URL: each is given a box of its own.
      return reply.then(handOff);
    },
    close: () => client.close(),
  };
}
