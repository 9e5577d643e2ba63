// Builds the URL of a v1 call and guarantees it stays under {UPSTREAM_URL}/api/v1/.
// The engine's paths are built from mapping data and checked ids, but this is the last gate:
// nothing a legacy caller sends can steer a request elsewhere on the upstream, or to another host.
import { GatewayError } from '../../shared/errors.js';

/** `/resource` or `/resource/123`: lower-case hyphenated resource names, whole-number ids. */
const V1_PATH = /^\/[a-z][a-z0-9-]*(?:\/\d{1,15})?$/;

export interface V1Target {
  /** scheme://host:port of the upstream. */
  origin: string;
  /** The path prefix of UPSTREAM_URL (usually empty) with /api/v1 appended. */
  apiPrefix: string;
}

export function v1Target(upstreamUrl: string): V1Target {
  const u = new URL(upstreamUrl);
  const target = { origin: u.origin, apiPrefix: `${u.pathname.replace(/\/+$/, '')}/api/v1` };
  // The prefix, as a URL parser reads it, must be exactly what is sent: then so is every path below it that
  // V1_PATH lets through (lower-case letters, digits, hyphens, one slash before an id), and the check need
  // not be repeated on every call.
  const probe = `${target.apiPrefix}/probe/1`;
  if (new URL(probe, target.origin).pathname !== probe) throw new Error(`the upstream URL's path does not read back as written: ${u.pathname}`);
  return target;
}

/** The request path (with query) to send to the upstream origin. Throws LGW_BAD_REQUEST on anything odd. */
export function v1RequestPath(target: V1Target, path: string, query: Record<string, string>): string {
  if (!V1_PATH.test(path)) {
    throw new GatewayError('LGW_BAD_REQUEST', 'the call does not translate to a valid v1 path');
  }
  const full = `${target.apiPrefix}${path}`;
  const search = v1Search(query);
  return search === '' ? full : `${full}?${search}`;
}

/** What URLSearchParams writes as it is (the form encoding's safe set): letters, digits, `*-._`. */
const WRITTEN_AS_IS = /^[A-Za-z0-9*\-._]*$/;

/** A v1 call's query string, exactly as URLSearchParams writes it; the names and values v1 calls carry
 * (paging numbers, plain words) are joined as they are, without building one per call. */
export function v1Search(query: Record<string, string>): string {
  let search = '';
  for (const name of Object.keys(query)) {
    const value = query[name]!;
    if (!WRITTEN_AS_IS.test(name) || !WRITTEN_AS_IS.test(value)) return new URLSearchParams(query).toString();
    search += search === '' ? `${name}=${value}` : `&${name}=${value}`;
  }
  return search;
}
