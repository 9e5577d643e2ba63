// The legacy surface, described once, as plain data: every route the gateway answers (its own /healthz and
// /readyz, one per mapped read method with its path and paging, POST /api/payment) and the passthrough that
// takes everything else, the request and body limits, the API key's names, the payment codes with what each
// means, and the error codes. Built from the loaded mappings by one pure function; the route table binds
// its handlers to it (gateway/edge/route-table.ts), and the generators spell it: the OpenAPI document
// (legacy-surface/openapi/) and the native front proxy's configuration (gateway/front-proxy/front-routes.ts).
// Adding a read mapping adds its route here, and so everywhere. Pure: no I/O, and it imports only leaves
// (the mapping and payment schemas' types, the payment codes, the error registry, the path rules).
import { PAYMENT_CODES, type PaymentCode, type PaymentCodeName } from '../payment/codes.js';
import type { PaymentMapping } from '../payment/payment-mapping.js';
import { ERROR_CODES } from '../shared/errors.js';
import { PAYMENT_PATH, PAYMENT_PATHS } from '../shared/request-target.js';
import type { MappingSet } from '../mapping/mapping-set.js';
import type { Mapping } from '../mapping/schema.js';

/** What a request may look like before any route reads it (the request guard enforces them). */
export const REQUEST_LIMITS = {
  /** Longest request target; legacy URLs are short. */
  maxUrlLength: 8192,
  maxQueryParams: 100,
  maxApiKeyLength: 256,
  /** The gateway's own routes and the translated GETs take no body worth reading. */
  gatewayBodyBytes: 64 * 1024,
  /** Streamed, never held: the bound only stops a caller from pushing without end through the gateway
   * (v1 itself refuses JSON bodies over 256 KB, with its own message). */
  passthroughBodyBytes: 16 * 1024 * 1024,
} as const;

/** Where a call carries its API key: the header is forwarded as is; the query parameter is moved into the
 * header and never passed on in a URL. A call with neither borrows the gateway's UPSTREAM_API_KEY. */
export const API_KEY_NAMES = { header: 'X-API-KEY', queryParam: 'api_key' } as const;

/** The request methods of the read routes and the gateway's own: HEAD is answered like GET. */
export const READ_HTTP_METHODS = ['GET', 'HEAD'] as const;

/**
 * What each legacy payment code means, beside its name (the numbers are PAYMENT_CODES', in
 * src/payment/codes.ts). The OpenAPI document prints them as the `code` table of the payment reply.
 */
export const PAYMENT_CODE_MEANINGS = {
  invalidFields:
    'a malformed body or value (the message names the fields), a file part, a body too large (413) or of another type (415), a malformed Idempotency-Key (400) or one already used for other fields (409), or a v1 400 naming the field',
  missingFields: 'a required field is missing or empty (the message names them); no v1 call was made',
  clientExists: 'creating the new client answered 409 for another reason than the username (e.g. the email)',
  passwordsDiffer: '`password` was given and `password2` differs; no v1 call was made',
  usernameTaken: 'creating the new client answered 409 naming the username',
  clientNotCreated:
    'creating the new client failed otherwise: a refusal no rule names (HTTP 200), or a fault with its HTTP status (the message says whether the client may exist); no payment was attempted',
  clientNotFound: '`client_id` is unknown to v1',
  discountInvalid: '`discount` is unknown, inactive, or only valid for another service',
  paymentFailed:
    'the payment was refused otherwise, or its outcome is unknown (the message says to check the payments list before retrying), or a fault stopped the flow (then with the fault\'s HTTP status; at a check before any POST the message says no payment was made), or the payment\'s claim could not be taken (503, no payment made) or is held by a first call that stopped with no reply (502, outcome unknown)',
  packageRefused: 'a package payment (a service whose group holds more than one session) was refused',
  serviceNotFound: '`service_id` is unknown to v1',
  cardDeclined: 'a card `token` was given and the charge was refused',
  paymentAdded: 'the payment was created; the message carries its id (the only success)',
} as const satisfies Record<PaymentCodeName, string>;

export interface PaymentCodeEntry {
  name: PaymentCodeName;
  code: PaymentCode;
  meaning: string;
}

/** The gateway's own routes: GET and HEAD of these exact paths (a trailing slash is another path). */
export interface OwnRoute {
  kind: 'own';
  /** The name in metrics and logs, and the route's handler. */
  label: 'healthz' | 'readyz';
  path: string;
  httpMethods: readonly string[];
  bodyLimitBytes: number;
}

/** How the segments after `/api/{method}` read: `/{start}/{limit}` (both optional), one `/{id}`, or none. */
export type ReadSegments = 'paging' | 'id' | 'none';

/** One mapped read method: GET and HEAD of `/api/{method}` and every path under it (a path the method cannot
 * read answers the method's own 400). */
export interface ReadRoute {
  kind: 'read';
  /** The legacy method: the name in metrics and logs. */
  label: string;
  /** `/api/{method}`. */
  base: string;
  /** The path with its parameters, as OpenAPI names it: `/api/clients/{start}/{limit}`, `/api/staff/{id}`. */
  template: string;
  /** Every form of the path accepted, optional segments left out; a trailing slash is ignored besides. */
  acceptedPaths: readonly string[];
  segments: ReadSegments;
  /** The mapping's paging: the page size without `{limit}`, and the largest page (a larger limit is clamped). */
  paging: { default: number; max: number } | undefined;
  httpMethods: readonly string[];
  bodyLimitBytes: number;
  /** The read mapping the route serves. */
  mapping: Mapping;
}

/** POST /api/payment. Its route reads the body itself and answers one over the limit in the payment's shape. */
export interface PaymentRoute {
  kind: 'payment';
  label: 'payment';
  /** The path as documented. */
  path: string;
  /** Every spelling of it routed to the payment (a trailing slash allowed); any other is passed through. */
  paths: readonly string[];
  httpMethods: readonly string[];
  /** payment.yaml's `bodyLimitBytes`. */
  bodyLimitBytes: number;
}

/** Everything no other route takes, any method: sent on to v1 unchanged and streamed both ways, but for an
 * `api_key` query parameter, moved into the header. */
export interface PassthroughRoute {
  kind: 'passthrough';
  label: 'passthrough';
  bodyLimitBytes: number;
  streamed: true;
  /** The query parameter that may carry the key (any percent-escape may spell it). */
  keyQueryParam: string;
}

export type SurfaceRoute = OwnRoute | ReadRoute | PaymentRoute | PassthroughRoute;

export interface LegacySurface {
  own: readonly OwnRoute[];
  /** In the mapping set's order. */
  reads: readonly ReadRoute[];
  /** Undefined without payment.yaml (the gateway never starts without it; the OpenAPI document may). */
  payment: PaymentRoute | undefined;
  passthrough: PassthroughRoute;
  limits: typeof REQUEST_LIMITS;
  apiKey: typeof API_KEY_NAMES;
  /** Ascending. */
  paymentCodes: readonly PaymentCodeEntry[];
  /** The gateway's error registry (src/shared/errors.ts), as it is. */
  errorCodes: typeof ERROR_CODES;
}

export interface SurfaceSources {
  reads: MappingSet;
  payment: Pick<PaymentMapping, 'bodyLimitBytes'> | undefined;
}

const OWN_LABELS = ['healthz', 'readyz'] as const;

function readRoute(mapping: Mapping): ReadRoute {
  const base = `/api/${mapping.method}`;
  const common = { kind: 'read', label: mapping.method, base, httpMethods: READ_HTTP_METHODS, bodyLimitBytes: REQUEST_LIMITS.gatewayBodyBytes, mapping } as const;
  if ('paging' in mapping) {
    const { default: size, max } = mapping.paging;
    const template = `${base}/{start}/{limit}`;
    return { ...common, template, acceptedPaths: [base, `${base}/{start}`, template], segments: 'paging', paging: { default: size, max } };
  }
  if (mapping.kind === 'detail') {
    const template = `${base}/{id}`;
    return { ...common, template, acceptedPaths: [template], segments: 'id', paging: undefined };
  }
  return { ...common, template: base, acceptedPaths: [base], segments: 'none', paging: undefined };
}

export function paymentCodeEntries(): PaymentCodeEntry[] {
  return (Object.keys(PAYMENT_CODES) as PaymentCodeName[])
    .map((name) => ({ name, code: PAYMENT_CODES[name], meaning: PAYMENT_CODE_MEANINGS[name] }))
    .sort((a, b) => a.code - b.code);
}

export function legacySurface(sources: SurfaceSources): LegacySurface {
  const own = OWN_LABELS.map((label): OwnRoute => ({ kind: 'own', label, path: `/${label}`, httpMethods: READ_HTTP_METHODS, bodyLimitBytes: REQUEST_LIMITS.gatewayBodyBytes }));
  const payment: PaymentRoute | undefined = sources.payment && {
    kind: 'payment',
    label: 'payment',
    path: PAYMENT_PATH,
    paths: PAYMENT_PATHS,
    httpMethods: ['POST'],
    bodyLimitBytes: sources.payment.bodyLimitBytes,
  };
  return {
    own,
    reads: [...sources.reads.values()].map(readRoute),
    payment,
    passthrough: { kind: 'passthrough', label: 'passthrough', bodyLimitBytes: REQUEST_LIMITS.passthroughBodyBytes, streamed: true, keyQueryParam: API_KEY_NAMES.queryParam },
    limits: REQUEST_LIMITS,
    apiKey: API_KEY_NAMES,
    paymentCodes: paymentCodeEntries(),
    errorCodes: ERROR_CODES,
  };
}

/** Every route, in the order the route table lists them: the gateway's own, the reads, the payment, the passthrough last. */
export function surfaceRoutes(surface: LegacySurface): SurfaceRoute[] {
  return [...surface.own, ...surface.reads, ...(surface.payment ? [surface.payment] : []), surface.passthrough];
}
