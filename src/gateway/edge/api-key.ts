// Which API key a call carries to v1: the incoming X-API-KEY header as is, else the `api_key` query
// parameter, else UPSTREAM_API_KEY (docs/configuration.md: API keys). The key is only ever passed on in a
// header, so no URL sent to v1 holds it.
import type { IncomingHttpHeaders } from 'node:http';
import { API_KEY_NAMES } from '../../legacy-surface/legacy-surface.js';

export const API_KEY_PARAM = API_KEY_NAMES.queryParam;

export function apiKeyOf(
  headers: IncomingHttpHeaders,
  query: ReadonlyArray<readonly [string, string]>,
  fallback: string | undefined,
): string | undefined {
  const header = headers['x-api-key'];
  const fromHeader = Array.isArray(header) ? header[0] : header;
  if (fromHeader) return fromHeader;
  const fromQuery = query.find(([k]) => k === API_KEY_PARAM)?.[1];
  if (fromQuery) return fromQuery;
  return fallback;
}

/** Whether a query string (with or without its `?`) may name `api_key`: false means it certainly does not.
 * Any percent-escape may spell it (`api%5Fkey`, `%61pi_key`), so those queries are parsed to be sure. */
export function queryMayHoldApiKey(search: string): boolean {
  return search !== '' && (search.includes(API_KEY_PARAM) || search.includes('%'));
}

/** The query string without `api_key`, re-encoded only when it had one (so other URLs pass unchanged). */
export function withoutApiKeyParam(search: string): string {
  if (!queryMayHoldApiKey(search)) return search;
  const params = new URLSearchParams(search);
  if (!params.has(API_KEY_PARAM)) return search;
  params.delete(API_KEY_PARAM);
  const rest = params.toString();
  return rest === '' ? '' : `?${rest}`;
}
