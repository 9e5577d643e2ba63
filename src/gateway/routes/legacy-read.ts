// Serves the mapped legacy read methods: finds the mapping for /api/{method}, runs it through the engine
// with this request's API key, and writes the legacy reply. Anything not mapped goes on (to passthrough).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { V1Record } from '../../mapping/legacy-record.js';
import type { MappingSet } from '../../mapping/mapping-set.js';
import { runMapping, type LegacyCall } from '../../mapping/run.js';
import { API_KEY_PARAM, apiKeyOf } from '../edge/api-key.js';
import { cacheStateOf, freshUntilOf } from '../upstream/response-cache.js';
import type { V1Transport } from '../upstream/v1-client.js';
import { sendLegacyError } from '../edge/error-reply.js';
import { replyKey, type ReplyCache } from '../state/reply-cache.js';
import { contextOf, failureOutcome, noteUpstreamCall } from '../edge/request-context.js';
import { splitTarget } from '../../shared/request-target.js';

export interface LegacyRouteDeps {
  mappings: MappingSet;
  transport: V1Transport;
  upstreamApiKey: string | undefined;
  accountTimezone: string | undefined;
  staticRecords: (setting: string) => readonly V1Record[] | undefined;
  /** Serialised replies of translated GETs, kept while their v1 data is fresh in the response cache. */
  replyCache?: ReplyCache;
  /** Told of each reply served from the reply cache (a cache hit, for the metrics). */
  onReplyCacheHit?: () => void;
}

/** `/api/{method}/{segments...}` split from the raw URL (no percent-decoding: legacy segments are plain). */
export function legacyTarget(url: string): { method: string; segments: string[]; search: string } | undefined {
  const { path, search } = splitTarget(url);
  const match = /^\/api\/([a-z][a-z0-9_]*)(\/.*)?$/.exec(path);
  if (!match) return undefined;
  const rest = (match[2] ?? '').split('/').slice(1);
  // `/api/clients/0/5/` and `/api/clients/` are read as if the trailing slash were absent.
  while (rest.length > 0 && rest[rest.length - 1] === '') rest.pop();
  return { method: match[1]!, segments: rest, search };
}

/** A request as the route reads it: plain node:http, with express's originalUrl when express routed it. */
type LegacyRequest = IncomingMessage & { originalUrl?: string; id?: unknown };

/** A handler usable both as express middleware and straight from the listener (no express needed). */
export function legacyRoute(deps: LegacyRouteDeps) {
  return async function serveLegacy(req: LegacyRequest, res: ServerResponse, next: () => void): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const target = legacyTarget(req.originalUrl ?? req.url ?? '/');
    const mapping = target && deps.mappings.get(target.method);
    if (!target || !mapping) return next();

    const ctx = contextOf(req);
    ctx.legacyMethod = mapping.method;
    const params = [...new URLSearchParams(target.search)];
    const apiKey = apiKeyOf(req.headers, params, deps.upstreamApiKey);
    const call: LegacyCall = { segments: target.segments, query: params.filter(([k]) => k !== API_KEY_PARAM) };
    const requestId = String(req.id);
    // The mapping's own cache lifetime (team listings keep theirs longer); else the transport's default.
    const cacheTtlMs = 'cacheTtlMs' in mapping ? mapping.cacheTtlMs : undefined;
    const cacheKey = deps.replyCache && replyKey(apiKey, mapping.method, call);
    const ready = cacheKey && deps.replyCache?.get(cacheKey);
    if (ready) {
      ctx.cacheHits++;
      deps.onReplyCacheHit?.();
      return writeJsonBytes(res, 200, ready);
    }
    let stale = false;
    // The reply may be kept as long as every v1 reply it is built from stays fresh in the cache.
    let freshUntil = Number.POSITIVE_INFINITY;
    try {
      const body = await runMapping(mapping, call, {
        accountTimezone: deps.accountTimezone,
        staticRecords: deps.staticRecords,
        v1Get: async (v1Call) => {
          const started = performance.now();
          try {
            const reply = await deps.transport.getJson({ ...v1Call, apiKey, requestId, cacheTtlMs });
            const cache = cacheStateOf(reply);
            freshUntil = Math.min(freshUntil, freshUntilOf(reply) ?? Number.NEGATIVE_INFINITY);
            if (cache === undefined) {
              noteUpstreamCall(ctx, v1Call.path, started, reply.status);
            } else {
              ctx.cacheHits++;
              stale ||= cache === 'stale';
            }
            return reply.body;
          } catch (err) {
            noteUpstreamCall(ctx, v1Call.path, started, failureOutcome(err));
            throw err;
          }
        },
      });
      // Stale-if-error: an upstream fault was answered from a reply cached within the last hour.
      if (stale) res.setHeader('warning', '110 - "Response is Stale"');
      const bytes = Buffer.from(JSON.stringify(body));
      // A method served without any v1 call (an operator file) has nothing to be fresh against: not kept.
      if (cacheKey && !stale && Number.isFinite(freshUntil)) deps.replyCache?.set(cacheKey, bytes, freshUntil);
      writeJsonBytes(res, 200, bytes);
    } catch (err) {
      sendLegacyError(req, res, err);
    }
  };
}

export function writeJson(res: ServerResponse, status: number, body: unknown): void {
  writeJsonBytes(res, status, Buffer.from(JSON.stringify(body)));
}

/** Writes an already serialised JSON reply (encoded once, its length known without another pass). */
export function writeJsonBytes(res: ServerResponse, status: number, bytes: Buffer): void {
  res.statusCode = status;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('content-length', bytes.length);
  res.end(bytes);
}
