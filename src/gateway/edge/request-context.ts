// What the gateway knows about one request while serving it: the one parse of it (LegacyRequest), the
// route the edge chose, the name it goes by in metrics and logs, what the route learnt (upstream calls,
// cache hits, the payment code, the error it was answered with), kept for the one log line written at the
// end, the request's secrets with the one scrubber every text leaving the gateway for it passes through,
// and the work its steps asked to run once its response closes.
// The edge makes it (openContext) before any step runs and hands it to every step and route as their
// parameter; whatever else needs it (the writers of a reply, the drain's list, the recorder) is handed it
// too. It is the request's one carrier: nothing of it is kept on `req` or `res`, nothing wraps them, and
// nothing downstream reads req.url again.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isSecretField, SecretScrubber, secretsOfRequest, type HeaderPair } from '../../shared/redact.js';
import type { LegacyRequest } from './legacy-request.js';
import type { ReplyCopy } from './reply-copy.js';
import type { Route } from './route.js';

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
  /** Set by the recorder on a call it records: every writer of a reply hands it what it writes
   * (reply-copy.ts). Unset on every other call. */
  replyCopy?: ReplyCopy;
  /** The request's secrets: every text v1 sent back passes through `secrets.scrubber` before it leaves
   * the gateway (reply, stored reply, recording, log line). */
  secrets: RequestSecrets;
  /** A fault inside the gateway the request was answered with (the error writer's 500, the payment flow's
   * internal error), or the response's own error: its log line is an error line carrying it, scrubbed. */
  error?: unknown;
  /** What the steps asked to run once the response closes (its reply handed to the connection, or the
   * connection gone first), in the order they asked: run once, from the one 'close' listener the edge
   * registers (openContext). */
  readonly afterWork: AfterWork[];
}

/** Work a step leaves for the end of the request (metrics, the log line, the drain's list, the span). */
export type AfterWork = () => void;

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

/** Runs the after-work in order; one that throws does not keep the others from running (the first throw
 * is thrown again once all ran). */
function runAfterWork(work: readonly AfterWork[]): void {
  let failure: { thrown: unknown } | undefined;
  for (const after of work) {
    try {
      after();
    } catch (thrown) {
      failure ??= { thrown };
    }
  }
  if (failure) throw failure.thrown;
}

/** The request's context, with the one 'close' listener that runs its after-work. A response emits 'close'
 * once, when its reply has been handed to the connection or when the connection went first; the error a
 * response emits before that is the request's error (and needs a listener, so that it does not throw).
 * The response is let go after the request: its listeners with it. */
export function openContext(req: IncomingMessage, res: ServerResponse, request: LegacyRequest, route: Route, requestId = 'unknown'): RequestContext {
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
    afterWork: [],
  };
  res.once('close', () => runAfterWork(ctx.afterWork));
  res.on('error', (err) => {
    ctx.error = err;
  });
  return ctx;
}
