// The reply cache around a translated read: a repeated call whose serialised legacy reply is still held
// (its v1 data still fresh) is answered without reshaping; otherwise the read runs and its reply is kept
// as long as it says it stays fresh. Keyed by a hash of the API key, the method, the call and the key's
// write generation of the resource the method reads (state/caches/reply-cache.ts): never shared across keys, never
// served after a write of it. The read itself knows nothing of this cache.
import { resourceRead } from '../../mapping/resources-touched.js';
import type { Mapping } from '../../mapping/schema.js';
import { sendLegacyError } from '../edge/error-reply.js';
import type { RequestContext } from '../edge/request-context.js';
import { writeJsonReply } from '../edge/write-json.js';
import { replyKey, type ReplyCache } from '../state/caches/reply-cache.js';
import type { WriteGenerations } from '../state/caches/write-generations.js';
import { writeLegacyRead, type LegacyRead } from './legacy-read.js';

export interface CachedReadDeps {
  cache: ReplyCache;
  generations: Pick<WriteGenerations, 'current'>;
  /** Told of every call answered from the cache (metrics). */
  onHit: () => void;
}

export function cachedRead(mapping: Mapping, read: LegacyRead, deps: CachedReadDeps) {
  const resource = resourceRead(mapping);
  return async function serveCachedRead(ctx: RequestContext): Promise<void> {
    const { request, res } = ctx;
    const generation = resource === undefined ? '' : deps.generations.current(request.apiKey, resource);
    const key = replyKey(request.apiKey, ctx.route.label, { segments: request.legacy?.segments ?? [], query: request.query }, generation);
    const ready = deps.cache.get(key);
    if (ready) {
      ctx.cacheHits++;
      deps.onHit();
      return writeJsonReply(res, 200, ready);
    }
    try {
      const reply = (await read(ctx)).take();
      if (reply.freshUntil === undefined) return writeLegacyRead(res, reply, reply.json);
      const bytes = typeof reply.json === 'string' ? Buffer.from(reply.json) : reply.json;
      deps.cache.set(key, bytes, reply.freshUntil);
      writeLegacyRead(res, reply, bytes);
    } catch (err) {
      if (!res.writableEnded) sendLegacyError(ctx, err);
    }
  };
}
