// Checks a request before any route sees it, so nothing malformed reaches the engine, the passthrough or
// the upstream: the request target must be a path (never an absolute or protocol-relative URL, which
// could name another host), of bounded length and parameter count; one Host header at most (Node keeps
// only the first, while a proxy in front may have routed by another); a declared body must fit the route's
// limit; an API key (header or `api_key`) must be a plausible header value, since it is forwarded as one.
// Pure: it reads the request line and headers, never the body, and only returns the problem found.
import type { IncomingMessage } from 'node:http';
import { REQUEST_LIMITS } from '../../legacy-surface/legacy-surface.js';
import { GatewayError, badRequest } from '../../shared/errors.js';
import { API_KEY_PARAM, queryMayHoldApiKey } from './api-key.js';

// The limits are the legacy surface's (src/legacy-surface/legacy-surface.ts); re-exported for the routes that read them.
export { REQUEST_LIMITS };

/** Visible ASCII only: what a key looks like, and nothing that could split or fold a header. */
const API_KEY = new RegExp(`^[\\x21-\\x7e]{1,${REQUEST_LIMITS.maxApiKeyLength}}$`);

export function tooLarge(limit: number): GatewayError {
  // Stays a bad-input error (code LGW_BAD_REQUEST) with the status HTTP has for it.
  return new GatewayError('LGW_PAYLOAD_TOO_LARGE', `the request body is larger than ${limit} bytes`);
}

/** Whether the request carries more than one Host header (in any case): `req.headers` keeps only the first. */
function hasSeveralHosts(rawHeaders: readonly string[]): boolean {
  let seen = false;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    if (name.length !== 4 || name.toLowerCase() !== 'host') continue;
    if (seen) return true;
    seen = true;
  }
  return false;
}

/** The first problem with the request line and headers, or undefined when it may be routed. */
export function requestProblem(req: IncomingMessage, maxBodyBytes: number): GatewayError | undefined {
  const url = req.url ?? '';
  // `//host` and `/\host` are read as another host by URL parsers (and by browsers, in a redirect).
  if (!url.startsWith('/') || url.startsWith('//') || url.startsWith('/\\')) return badRequest('the request target must be a path');
  if (url.length > REQUEST_LIMITS.maxUrlLength) return badRequest('the request path is too long');
  if (hasSeveralHosts(req.rawHeaders)) return badRequest('the request has more than one Host header');

  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > maxBodyBytes) return tooLarge(maxBodyBytes);

  const header = req.headers['x-api-key'];
  if (header !== undefined && (Array.isArray(header) || !API_KEY.test(header))) return badRequest('the API key is malformed');

  const q = url.indexOf('?');
  if (q >= 0) {
    const search = url.slice(q + 1);
    let count = 1;
    for (let i = search.indexOf('&'); i >= 0 && count <= REQUEST_LIMITS.maxQueryParams; i = search.indexOf('&', i + 1)) count++;
    if (count > REQUEST_LIMITS.maxQueryParams) return badRequest('the query string has too many parameters');
    if (queryMayHoldApiKey(search)) {
      const key = new URLSearchParams(search).get(API_KEY_PARAM);
      if (key !== null && key !== '' && !API_KEY.test(key)) return badRequest('the API key is malformed');
    }
  }
  return undefined;
}
