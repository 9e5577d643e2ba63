// The reply cache around a translated read: a repeated call whose serialised legacy reply is still held
// (its v1 data still fresh) is answered without reshaping; otherwise the read runs and its reply is kept
// as long as it says it stays fresh. Keyed by a hash of the API key, the method, the call and the key's
// write generation of the resource the method reads (state/caches/reply-cache.ts): never shared across keys, never
// served after a write of it. The call and the generation are the read's own, computed once when it is
// opened (legacy-read.ts): the key is what the read would run with. The read itself knows nothing of this cache.
import { sendLegacyError } from '../edge/error-reply.js';
import type { RequestContext } from '../edge/request-context.js';
import { writeJsonReply } from '../edge/write-json.js';
import { replyKey, type ReplyCache } from '../state/caches/reply-cache.js';
import { writeLegacyRead, type LegacyReader } from './legacy-read.js';

export interface CachedReadDeps {
  cache: ReplyCache;
  /** Told of every call answered from the cache (metrics). */
  onHit: () => void;
}

export function cachedRead(openRead: LegacyReader, deps: CachedReadDeps) {
  return async function serveCachedRead(ctx: RequestContext): Promise<void> {
    const { res } = ctx;
    const read = openRead(ctx);
    const key = replyKey(ctx.request.apiKey, ctx.route.label, read.call, read.generation?.token);
    const ready = deps.cache.get(key);
    if (ready) {
      ctx.cacheHits++;
      deps.onHit();
      return writeJsonReply(ctx, 200, ready);
    }
    try {
      const reply = (await read.run()).take();
      if (reply.freshUntil === undefined) return writeLegacyRead(ctx, reply, reply.json);
      const bytes = typeof reply.json === 'string' ? Buffer.from(reply.json) : reply.json;
      deps.cache.set(key, bytes, reply.freshUntil);
      writeLegacyRead(ctx, reply, bytes);
    } catch (err) {
      if (!res.writableEnded) sendLegacyError(ctx, err);
    }
  };
}
