// Step: the reply cache of translated reads. A repeated call whose serialised legacy reply is still held
// (its v1 data still fresh) is answered here without reshaping; otherwise the route is handed a way to
// keep the reply it builds. Keyed by a hash of the API key, the method, the call and the key's write
// generation of the resource the method reads: never shared across keys, never served after a write of it.
import { resourceRead } from '../../mapping/resources-touched.js';
import { contextOf } from '../edge/request-context.js';
import { writeJsonReply } from '../edge/write-json.js';
import { replyKey, type ReplyCache } from '../state/reply-cache.js';
import type { WriteGenerations } from '../state/write-generations.js';
import type { Step } from './step.js';

export function replyCacheStep(cache: ReplyCache, onHit: () => void, generations: Pick<WriteGenerations, 'current'>): Step {
  return {
    name: 'reply cache',
    handle(req, res, next) {
      const ctx = contextOf(req);
      const { route, request } = ctx;
      if (route.kind !== 'read' || !request.legacy) return next();
      const resource = route.mapping && resourceRead(route.mapping);
      const generation = resource === undefined ? '' : generations.current(request.apiKey, resource);
      const key = replyKey(request.apiKey, route.label, { segments: request.legacy.segments, query: request.query }, generation);
      const ready = cache.get(key);
      if (!ready) {
        ctx.keepReply = (bytes, freshUntil) => cache.set(key, bytes, freshUntil);
        return next();
      }
      ctx.cacheHits++;
      ctx.label = route.label;
      onHit();
      writeJsonReply(res, 200, ready);
    },
  };
}
