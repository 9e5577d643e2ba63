// What the gateway knows about one request while serving it: the one parse of it (LegacyRequest), the
// route the edge chose, the name it goes by in metrics and logs, and what the route learnt (upstream
// calls, cache hits, the payment code), kept on the request for the one log line written at the end,
// and the request's secrets with the one scrubber every text leaving the gateway for it passes through.
// The edge makes it before any step runs and hands it to every step and route as their parameter; nothing
// downstream reads req.url again. It is also attached to the request, for the few callbacks that are given
// only the request (the log line's serializers, the error writer, the drain's list).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SurfaceRoute } from '../../mapping/legacy-surface.js';
import type { Mapping } from '../../mapping/schema.js';
import { isSecretField, SecretScrubber, secretsOfRequest, type HeaderPair } from '../../shared/redact.js';
import type { LegacyRequest } from './legacy-request.js';

export type RouteHandler = (req: IncomingMessage, res: ServerResponse, ctx: RequestContext) => void | Promise<void>;

/** A route of the legacy surface (src/mapping/legacy-surface.ts) bound to its handler by the route table
 * (route-table.ts). Declared here, beside the context that holds it and that its handler takes. */
export interface Route {
  /** own: /healthz, /readyz; read: a mapped legacy method; payment; passthrough: everything else. */
  kind: SurfaceRoute['kind'];
  /** The name in metrics and logs (never a path). */
  label: string;
  /** The largest declared body accepted before the route reads any of it. */
  bodyLimit: number;
  /** The read mapping a `read` route serves. */
  mapping?: Mapping;
  handle: RouteHandler;
}

export interface UpstreamCallNote {
  path: string;
  /** HTTP status, or the gateway error code when there was no usable reply. */
  outcome: number | string;
  ms: number;
}

export interface RequestContext {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  request: LegacyRequest;
  route: Route;
  /** The name in metrics and logs: a mapped legacy method, `payment`, `passthrough`, `healthz`, `readyz`,
   * or `rejected` (refused by the request guard before its route ran). Never a path. */
  label: string | undefined;
  /** The request id (X-Request-Id, echoed or generated), sent upstream with every v1 call. */
  requestId: string;
  upstream: UpstreamCallNote[];
  cacheHits: number;
  /** The caller's integration by name (INTEGRATIONS_FILE), for the log line; undefined: a key no
   * integration names, or a call that is no legacy call. */
  integration?: string | undefined;
  /** The legacy code of a payment reply (POST /api/payment). */
  paymentCode?: number;
  /** The stable code of the error the request was answered with (LGW_*), for its log line. */
  errorCode?: string;
  /** The 5xx reply is a refusal by design, not a fault (the payment claims store could not take or follow
   * a claim, or a first call's outcome is unknown): its log line is a warning, without an error object. */
  refusedByDesign?: boolean;
  /** The body's fields as the route read them (the payment's), for the recorder; secrets are redacted there. */
  bodyFields?: Readonly<Record<string, string>>;
  /** The request's secrets: every text v1 sent back passes through `secrets.scrubber` before it leaves
   * the gateway (reply, stored reply, recording, log line). */
  secrets: RequestSecrets;
}

/**
 * The secret values of one request, gathered once, on first use: most replies carry no text from v1 and
 * never need them. They are the key sent upstream (the caller's, or UPSTREAM_API_KEY lent to a call that
 * brought none), the secret headers (X-API-KEY, Authorization, Cookie), the query's `api_key` (and any
 * other secret-named parameter), and the secret fields the route read from the body (`token`,
 * `password`, `password2`). A lent key is scrubbed even in part (its fragments and masked renderings):
 * the caller never had it.
 */
export class RequestSecrets {
  private built: SecretScrubber | undefined;
  private readonly bodyValues: string[] = [];

  constructor(
    private readonly req: IncomingMessage,
    private readonly request: LegacyRequest,
  ) {}

  /** Takes in the secret-named fields of a body the route read (before any v1 call is made). */
  addBodyFields(fields: Readonly<Record<string, string>>): void {
    const values = Object.entries(fields)
      .filter(([name, value]) => isSecretField(name) && value !== '')
      .map(([, value]) => value);
    this.bodyValues.push(...values);
    this.built?.add(...values);
  }

  /** The request's scrubber (built on the first call, then the same one). */
  get scrubber(): SecretScrubber {
    if (this.built !== undefined) return this.built;
    const raw = this.req.rawHeaders;
    const headers: HeaderPair[] = [];
    for (let i = 0; i + 1 < raw.length; i += 2) headers.push([raw[i] as string, raw[i + 1] as string]);
    const carried = secretsOfRequest({ url: this.request.url, headers });
    const scrubber = new SecretScrubber().add(...carried, ...this.bodyValues);
    const sent = this.request.apiKey;
    // A key the request did not carry itself is the gateway's own, lent to it.
    if (sent !== undefined && !carried.includes(sent)) scrubber.addWithFragments(sent);
    this.built = scrubber;
    return scrubber;
  }

  scrub(text: string): string {
    return this.scrubber.scrub(text);
  }
}

const CONTEXT = Symbol('legacy-gateway request context');

type WithContext = IncomingMessage & { [CONTEXT]?: RequestContext };

export function attachContext(req: IncomingMessage, res: ServerResponse, request: LegacyRequest, route: Route, requestId = 'unknown'): RequestContext {
  const ctx: RequestContext = {
    req,
    res,
    request,
    route,
    label: route.kind === 'own' ? route.label : undefined,
    requestId,
    upstream: [],
    cacheHits: 0,
    secrets: new RequestSecrets(req, request),
  };
  (req as WithContext)[CONTEXT] = ctx;
  return ctx;
}

/** The context the edge attached (every request that reached a step or a route has one). */
export function contextOf(req: IncomingMessage): RequestContext {
  const ctx = (req as WithContext)[CONTEXT];
  if (!ctx) throw new Error('request context read before the edge attached it');
  return ctx;
}

/** The context, when the edge has attached one (a log line may be written for a request that never got one). */
export function maybeContextOf(req: IncomingMessage): RequestContext | undefined {
  return (req as WithContext)[CONTEXT];
}
