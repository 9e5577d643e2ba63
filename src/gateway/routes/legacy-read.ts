// Serves one mapped legacy read method: runs its mapping through the engine with the call the edge parsed
// (segments, query, API key) and returns the legacy reply the engine gives (its JSON), with what it knows of
// its freshness (until when every v1 reply it was built from stays fresh; whether one was stale); the
// writer (`serveRead`) sends it, and the reply cache (cached-read.ts) may keep it. Built once per mapping,
// when the route table is, with the mapping compiled; the v1 calls go through the shared transport (cache,
// single-flight, retry), each noted for the log; a team listing may be cut from a roster kept for its key.
// Each call reads under the key's write generation of the mapping's v1 resource as it was when the call
// started (state/caches/write-generations.ts): no copy made before a later write of it is served to a later call.
// A read is opened once per request (`LegacyRead`): its call and its generation are computed there, once,
// and the reply cache (cached-read.ts) keys its copy by the same values before it runs the read, if at all.
import type { V1Record } from '../../mapping/legacy-record.js';
import { compileMapping, runMappingText, type LegacyCall, type LegacyReplyJson } from '../../mapping/run.js';
import { resourceRead } from '../../legacy-surface/resources-touched.js';
import type { Mapping } from '../../mapping/schema.js';
import type { PageTranslation, V1Call } from '../../mapping/v1-reply.js';
import { handOff, type HandOff } from '../../shared/hand-off.js';
import { sendLegacyError } from '../edge/error-reply.js';
import type { RequestContext } from '../edge/request-context.js';
import { timed } from '../edge/upstream-log.js';
import { writeJsonReply } from '../edge/write-json.js';
import type { ShadowReads } from '../shadow/shadow-reads.js';
import type { RosterCache } from '../state/caches/roster-cache.js';
import type { WriteGenerations } from '../state/caches/write-generations.js';
import type { V1Form, V1GetRequest, V1Payload, V1Transport } from '../upstream/v1-client.js';

export interface LegacyReadDeps {
  transport: V1Transport;
  accountTimezone: string | undefined;
  staticRecords: (setting: string) => readonly V1Record[] | undefined;
  /** Team listings' sorted rosters: read a few at a time, kept per API key while their v1 pages stay fresh;
   * absent, every call reads its own. */
  rosters?: RosterCache | undefined;
  generations: Pick<WriteGenerations, 'current'>;
  /** SHADOW_MAPPINGS_DIR: each read's v1 replies are kept and its reply compared, after it was written, with
   * the candidate mapping's; absent (shadow off), nothing more is kept or done. */
  shadow?: ShadowReads | undefined;
}

/** A translated read's reply, and what is known of its freshness. */
export interface LegacyReadReply {
  /** The reply's JSON: text, or its UTF-8 bytes. */
  json: LegacyReplyJson;
  /** Until when every v1 reply it was built from stays fresh; undefined when it may not be kept (a stale
   * v1 reply was served, or the method made no v1 call: an operator file has nothing to be fresh against). */
  freshUntil: number | undefined;
  /** Stale-if-error: an upstream fault was answered from a reply cached within the last hour. */
  stale: boolean;
}

/** One translated read of one request, opened once: what it computed of the request, and the read itself. */
export interface LegacyRead {
  /** The call as the engine takes it: the legacy segments and query the edge parsed. */
  readonly call: LegacyCall;
  /** The key's write generation of the v1 resource the mapping reads, as it was when the read was opened;
   * undefined when the mapping reads none (an operator file). */
  readonly generation: V1GetRequest['generation'];
  /** Runs the read (once): its reply out, handed off (shared/hand-off.ts: the reply must not stay behind
   * in the read's promise, which is old by the time v1 answers); rejects with the error to answer. */
  run(): Promise<HandOff<LegacyReadReply>>;
}

/** Opens the read of one request (its call and generation computed once). */
export type LegacyReader = (ctx: RequestContext) => LegacyRead;

export function legacyRead(mapping: Mapping, deps: LegacyReadDeps): LegacyReader {
  // The mapping's own cache lifetime (team listings keep theirs longer); else the transport's default.
  const cacheTtlMs = 'cacheTtlMs' in mapping ? mapping.cacheTtlMs : undefined;
  const compiled = compileMapping(mapping);
  const rosterPort = mapping.kind === 'sorted-list' ? deps.rosters?.forListing(mapping) : undefined;
  const resource = resourceRead(mapping);

  return function openLegacyRead(ctx: RequestContext): LegacyRead {
    const { request } = ctx;
    const call: LegacyCall = { segments: request.legacy?.segments ?? [], query: request.query };
    const generation = resource === undefined ? undefined : { resource, token: deps.generations.current(request.apiKey, resource) };
    return { call, generation, run: () => readLegacy(ctx, call, generation) };
  };

  async function readLegacy(ctx: RequestContext, call: LegacyCall, generation: V1GetRequest['generation']): Promise<HandOff<LegacyReadReply>> {
    const apiKey = ctx.request.apiKey;
    let stale = false;
    let freshUntil = Number.POSITIVE_INFINITY;
    const shadow = deps.shadow?.forMethod(mapping);
    /** One v1 GET in the form asked, its freshness noted for the reply's; its body stays in its box (this
     * promise is old by the time v1 answers: shared/hand-off.ts). Chains of promises, here and in the ports
     * below, rather than async functions: every suspended frame is kept, and copied by the collector, for as
     * long as v1 takes to answer. */
    const v1Payload = (v1Call: V1Call, form: V1Form, translation: PageTranslation | undefined): Promise<HandOff<V1Payload>> =>
      timed(ctx, v1Call.path, () =>
        // Every member named, not spread from v1Call: made by a spread, under load, these objects outlived
        // their read and most of what a read promoted to the old generation was theirs (the commit that
        // changed it has the figures). The engine's ports object below is made in one shape too.
        deps.transport.getJson({ path: v1Call.path, query: v1Call.query, apiKey, requestId: ctx.requestId, cacheTtlMs, generation, form, translation }),
      ).then((reply) => {
        stale ||= reply.servedFrom === 'stale';
        freshUntil = Math.min(freshUntil, reply.freshUntil ?? Number.NEGATIVE_INFINITY);
        return reply.body;
      });
    const legacyReply = await runMappingText(compiled, call, {
      accountTimezone: deps.accountTimezone,
      staticRecords: deps.staticRecords,
      v1Get: (v1Call) =>
        v1Payload(v1Call, 'json', undefined).then((box) => {
          const { value } = box.take();
          shadow?.record(v1Call, value);
          return handOff(value);
        }),
      // The bytes port lets a plain list be translated from v1's bytes to the reply's bytes
      // (mapping/byte-translation/), as they come when no cache keeps them. The shadow compares parsed
      // replies: a read it follows is read parsed.
      v1GetBytes: shadow
        ? undefined
        : (v1Call: V1Call, translation?: PageTranslation) =>
            v1Payload(v1Call, 'bytes', translation).then((box) => {
              const payload = box.take();
              return handOff(payload.translated ?? bytesOf(payload));
            }),
      rosters: rosterPort?.(
        apiKey,
        {
          freshUntil: () => (stale || !Number.isFinite(freshUntil) ? undefined : freshUntil),
          onHit: (until) => {
            ctx.cacheHits++;
            freshUntil = Math.min(freshUntil, until);
          },
        },
        generation?.token,
      ),
    });
    const json = legacyReply.take();
    // Queued to run after the route has written the reply (shadow/shadow-reads.ts). A read the shadow
    // follows is read parsed, and its reply is text.
    if (shadow) shadow.compare(ctx, call, json.toString());
    return handOff({ json, freshUntil: !stale && Number.isFinite(freshUntil) ? freshUntil : undefined, stale });
  }
}

/** A payload asked for as bytes: its bytes (every layer gives the form asked; a value is written again). */
const bytesOf = (payload: V1Payload): Buffer => payload.bytes ?? Buffer.from(payload.text ?? JSON.stringify(payload.value));

/** Writes a translated read's reply (its text or bytes, or the bytes a cache keeps), unless it was answered meanwhile
 * (the shutdown deadline): nothing more is written then. */
export function writeLegacyRead(ctx: RequestContext, reply: Pick<LegacyReadReply, 'stale'>, body: string | Buffer): void {
  const { res } = ctx;
  if (res.headersSent) return;
  if (reply.stale) res.setHeader('warning', '110 - "Response is Stale"');
  writeJsonReply(ctx, 200, body);
}

/** The route of a read served without a reply cache: read, then write (or answer the error). */
export function serveRead(openRead: LegacyReader) {
  return async function serveLegacyRead(ctx: RequestContext): Promise<void> {
    try {
      const reply = (await openRead(ctx).run()).take();
      writeLegacyRead(ctx, reply, reply.json);
    } catch (err) {
      if (!ctx.res.writableEnded) sendLegacyError(ctx, err);
    }
  };
}
