// The port through which the mapping proposal reads v1: the gateway's own v1 client (same URL rules, same
// timeout, the key only ever in the X-API-KEY header), aimed at the replay's upstream, or at a running
// gateway whose passthrough relays /api/v1/** to its own upstream. Each v1 URL is read once per run, however
// many differing calls stand on it. It never logs, and its errors never carry the key.
import { V1Client } from '../../gateway/upstream/v1-client.js';
import type { V1Get } from '../../mapping/v1-reply.js';
import { handOff } from '../../shared/hand-off.js';

export interface V1Reader {
  get: V1Get;
  close(): Promise<void>;
}

/**
 * @param baseUrl where `/api/v1/...` is asked for: the v1 service, or a gateway in front of it
 * @param apiKey the replay's key (undefined: none is sent, and a gateway in front lends its own)
 */
export function createV1Reader(baseUrl: string, apiKey: string | undefined, timeoutMs: number): V1Reader {
  const client = new V1Client({ upstreamUrl: baseUrl, timeoutMs, connections: 8 });
  const replies = new Map<string, Promise<unknown>>();
  return {
    get: (call) => {
      const key = JSON.stringify([call.path, Object.entries(call.query)]);
      let reply = replies.get(key);
      if (!reply) {
        reply = client.getJson({ path: call.path, query: call.query, apiKey }).then((r) => r.body.take().value);
        replies.set(key, reply);
      }
      // The same body for every call on this URL: each is given a box of its own.
      return reply.then(handOff);
    },
    close: () => client.close(),
  };
}
