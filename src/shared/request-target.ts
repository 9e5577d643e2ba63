// How a request target reads as a legacy call: its path and query string as they came (nothing decoded),
// the legacy method named by `/api/{method}`, its path segments, and whether it is the payment call.
// One set of rules for the gateway's edge (which routes by them) and the replay tool (which names and
// guards recorded calls by them), so the two can never disagree. Pure.

export interface RequestTarget {
  path: string;
  /** The query string without its `?` ('' when there is none). */
  search: string;
}

export function splitTarget(url: string | undefined): RequestTarget {
  const target = url ?? '/';
  const q = target.indexOf('?');
  return q < 0 ? { path: target, search: '' } : { path: target.slice(0, q), search: target.slice(q + 1) };
}

export interface LegacyPath {
  /** `clients` of `/api/clients/0/5`: lower-case letters, digits and `_`, as mapping files name methods. */
  method: string;
  /** The segments after the method, raw; trailing empty segments are dropped (`/api/clients/0/5/`). */
  segments: string[];
}

const LEGACY_PATH = /^\/api\/([a-z][a-z0-9_]*)(\/.*)?$/;

/** `/api/{method}/{segments...}`; undefined for any other path (the gateway passes those through). */
export function parseLegacyPath(path: string): LegacyPath | undefined {
  const match = LEGACY_PATH.exec(path);
  if (!match) return undefined;
  const segments = match[2] === undefined ? [] : match[2].split('/').slice(1);
  while (segments.length > 0 && segments[segments.length - 1] === '') segments.pop();
  return { method: match[1]!, segments };
}

/** The path of the one legacy write, `POST /api/payment`. */
export const PAYMENT_PATH = '/api/payment';
/** Its spellings the gateway takes: as documented, and with a trailing slash. */
export const PAYMENT_PATHS: readonly string[] = [PAYMENT_PATH, `${PAYMENT_PATH}/`];

/** The one legacy write: `POST /api/payment` (a trailing slash allowed). */
export function isPaymentTarget(httpMethod: string | undefined, path: string): boolean {
  return httpMethod === 'POST' && PAYMENT_PATHS.includes(path);
}
