// The routes a native front proxy (nginx, HAProxy) must send to the gateway, spelled from the legacy surface's
// description (src/legacy-surface/legacy-surface.ts, the one the gateway's route table binds), never written by hand:
// the mapped legacy methods (GET and HEAD), POST /api/payment, /healthz and /readyz, and any other call whose
// query may carry `api_key` (the gateway moves the key into X-API-KEY). Everything else goes straight to v1.
// Each route also carries the gateway's body limit for it, how long the front waits, and the legacy-shaped
// replies the front gives itself (413, and an unreachable or silent upstream). Pure: the renderers
// (nginx.ts, haproxy.ts) only spell these routes in their own syntax; they decide nothing.
import { legacySurface, type ReadRoute } from '../../legacy-surface/legacy-surface.js';
import type { MappingSet } from '../../mapping/mapping-set.js';
import { fillMessage } from '../../payment/message-template.js';
import { PAYMENT_CODES, bodyTooLargeReply, reply } from '../../payment/contract.js';
import type { PaymentMapping } from '../../payment/payment-mapping.js';
import { legacyFailure } from '../../shared/errors.js';
import { parseLegacyPath } from '../../shared/request-target.js';
import { tooLarge } from '../edge/request-guard.js';
import { DEFAULT_RETRY_POLICY } from '../upstream/retry.js';

/** own: /healthz, /readyz; read: a mapped legacy method; payment; keyed: a passthrough call whose query may
 * carry the key; v1: everything else, straight to v1. */
export type FrontRouteKind = 'own' | 'read' | 'payment' | 'keyed' | 'v1';

/** What a request must look like for a route. Every part given must match; the fallback (v1) has none. */
export interface FrontMatch {
  /** The request methods (as sent: upper case); undefined: any. */
  methods?: readonly string[];
  /** A regex over the raw path (as sent, nothing decoded), unanchored, never matching a `?`. */
  path?: string;
  /** The same paths as exact strings, when the route has a closed list of them. */
  exactPaths?: readonly string[];
  /** The raw query string (after the first `?`) contains one of these. */
  queryContains?: readonly string[];
}

/** A reply the front gives itself: the gateway's legacy shape, as bytes. */
export interface FrontReply {
  status: number;
  body: string;
}

export interface FrontRoute {
  kind: FrontRouteKind;
  to: 'gateway' | 'v1';
  match: FrontMatch;
  /** The gateway's limit for a declared (or counted) body on this route. */
  bodyLimitBytes: number;
  /** Streamed both ways, never buffered (the passthrough); else the front may buffer. */
  streamed: boolean;
  /** How long the front waits for a reply to start, and between two reads of it. */
  timeoutMs: number;
  /** What the front answers itself: a body over the limit, an upstream that cannot be reached or is silent. */
  replies: { tooLarge: FrontReply; unreachable: FrontReply; timedOut: FrontReply; noServer: FrontReply };
}

export interface FrontRoutes {
  /** In the order they are tried; the first that matches wins. The last (v1) matches everything. */
  routes: readonly FrontRoute[];
  /** The mapped legacy methods, sorted. */
  readMethods: readonly string[];
  upstreamTimeoutMs: number;
}

export interface FrontRouteSources {
  reads: MappingSet;
  payment: PaymentMapping;
  upstreamTimeoutMs: number;
}

/** `queryMayHoldApiKey`: any percent-escape may spell the key's name (`%61pi_key`, `api%5Fkey`). */
const keyInQuery = (param: string): readonly string[] => [param, '%'];

/**
 * How long the front waits for the gateway. Never less than the gateway may take to answer a payment: its
 * longest path is four v1 GET checks (client, service, discount, time zone) of up to 1 + maxRetries attempts
 * each, then two POSTs (new client, payment), each bounded by UPSTREAM_TIMEOUT_MS, plus the retries'
 * backoffs. A front that gave up sooner would answer a timeout for a payment the gateway may still make.
 */
export function gatewayWaitMs(upstreamTimeoutMs: number): number {
  const attempts = 1 + DEFAULT_RETRY_POLICY.maxRetries;
  const backoffs = 4 * DEFAULT_RETRY_POLICY.maxRetries * DEFAULT_RETRY_POLICY.maxDelayMs;
  const ms = (4 * attempts + 2) * upstreamTimeoutMs + backoffs + 1000;
  return Math.ceil(ms / 1000) * 1000;
}

const escapeRegex = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const failure = (status: number, message: string): FrontReply => ({ status, body: JSON.stringify(legacyFailure(message)) });

function gatewayReplies(limit: number, waitMs: number): FrontRoute['replies'] {
  const unreachable = failure(502, 'the gateway could not be reached');
  return {
    tooLarge: failure(413, tooLarge(limit).message),
    unreachable,
    noServer: { ...unreachable, status: 503 },
    timedOut: failure(504, `the gateway did not answer within ${waitMs} ms`),
  };
}

/** The payment's own shape: 413 as the gateway answers it; a fault reaching the gateway is code 8. */
function paymentReplies(payment: PaymentMapping, waitMs: number): FrontRoute['replies'] {
  const paymentFailed = (status: number, template: string, reason: string): FrontReply => ({
    status,
    body: JSON.stringify(reply(PAYMENT_CODES.paymentFailed, fillMessage(template, { reason }), status).body),
  });
  const tooLargeReply = bodyTooLargeReply(payment);
  return {
    tooLarge: { status: tooLargeReply.httpStatus, body: JSON.stringify(tooLargeReply.body) },
    // The call may have reached a gateway that dropped it mid-payment: the outcome is unknown.
    unreachable: paymentFailed(502, payment.messages.outcomeUnknown, 'the gateway could not be reached'),
    timedOut: paymentFailed(504, payment.messages.outcomeUnknown, `the gateway did not answer within ${waitMs} ms`),
    // No gateway was available: the call went nowhere, and no payment was made.
    noServer: paymentFailed(503, payment.messages.upstreamFault, 'no gateway is available'),
  };
}

/** The passthrough's replies, as the gateway's passthrough words them. */
function v1Replies(limit: number, timeoutMs: number): FrontRoute['replies'] {
  const unreachable = failure(502, 'the upstream could not be reached');
  return {
    tooLarge: failure(413, tooLarge(limit).message),
    unreachable,
    noServer: { ...unreachable, status: 503 },
    timedOut: failure(504, `the upstream did not answer within ${timeoutMs} ms`),
  };
}

/** Method names the gateway can route: `/api/{method}` must read back as that method. */
function routableMethods(reads: readonly ReadRoute[]): string[] {
  return reads.map((r) => r.label).filter((m) => parseLegacyPath(`/api/${m}`)?.method === m).sort();
}

export function frontRoutes(sources: FrontRouteSources): FrontRoutes {
  const { payment, upstreamTimeoutMs } = sources;
  const surface = legacySurface(sources);
  const { own, reads, passthrough } = surface;
  // Always there: the sources name a payment mapping.
  const paying = surface.payment!;
  const readMethods = routableMethods(reads);
  const waitMs = gatewayWaitMs(upstreamTimeoutMs);
  const gateway = (kind: FrontRouteKind, match: FrontMatch, limit: number, streamed = false): FrontRoute => ({
    kind, to: 'gateway', match, bodyLimitBytes: limit, streamed, timeoutMs: waitMs, replies: gatewayReplies(limit, waitMs),
  });
  const ownPaths = own.map((r) => r.path);
  const passthroughLimit = passthrough.bodyLimitBytes;
  const routes: FrontRoute[] = [
    gateway('own', { methods: own[0]!.httpMethods, path: alternatives(ownPaths), exactPaths: ownPaths }, own[0]!.bodyLimitBytes),
    ...(readMethods.length > 0
      ? [gateway('read', { methods: reads[0]!.httpMethods, path: `/api/(${readMethods.join('|')})(/[^?]*)?` }, reads[0]!.bodyLimitBytes)]
      : []),
    {
      ...gateway('payment', { methods: paying.httpMethods, path: alternatives(paying.paths), exactPaths: paying.paths }, paying.bodyLimitBytes),
      replies: paymentReplies(payment, waitMs),
    },
    gateway('keyed', { queryContains: keyInQuery(passthrough.keyQueryParam) }, passthroughLimit, passthrough.streamed),
    { kind: 'v1', to: 'v1', match: {}, bodyLimitBytes: passthroughLimit, streamed: passthrough.streamed, timeoutMs: upstreamTimeoutMs, replies: v1Replies(passthroughLimit, upstreamTimeoutMs) },
  ];
  return { routes, readMethods, upstreamTimeoutMs };
}

function alternatives(paths: readonly string[]): string {
  return `(${paths.map(escapeRegex).join('|')})`;
}

/**
 * The match as one regex over `METHOD TARGET` (the request line's method, a space, and the raw target),
 * anchored at the start; undefined for the fallback. Plain PCRE and JavaScript alike (nginx's map uses it,
 * the tests run it against the gateway's route table).
 */
export function requestLinePattern(match: FrontMatch): string | undefined {
  if (match.methods === undefined && match.path === undefined && match.queryContains === undefined) return undefined;
  const methods = match.methods === undefined ? '[^ ]+' : `(${match.methods.map(escapeRegex).join('|')})`;
  const path = match.path ?? '[^?]*';
  // The path ends at the first `?` (splitTarget); the query is everything after it.
  if (match.queryContains === undefined) return `^${methods} ${path}([?]|$)`;
  return `^${methods} ${path}[?].*(${match.queryContains.map(escapeRegex).join('|')})`;
}

/** The route the front gives a request (method, raw target), by the same rules its configuration spells. */
export function frontRouteOf(routes: FrontRoutes, method: string, target: string): FrontRoute {
  const line = `${method} ${target}`;
  for (const route of routes.routes) {
    const pattern = requestLinePattern(route.match);
    if (pattern === undefined || new RegExp(pattern).test(line)) return route;
  }
  return routes.routes[routes.routes.length - 1]!;
}
