// Which API key a call carries to v1 (DESIGN: Key): the incoming X-API-KEY header as is, else the
// `api_key` query parameter, else UPSTREAM_API_KEY. The key is only ever passed on in a header.
import type { IncomingHttpHeaders } from 'node:http';

export const API_KEY_PARAM = 'api_key';

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

/** The query string without `api_key`, re-encoded only when it had one (so other URLs pass unchanged). */
export function withoutApiKeyParam(search: string): string {
  // `api%5Fkey` decodes to api_key too, so the quick test looks for both spellings.
  if (!/(?:^|[?&])api(?:_|%5f)key(?:=|&|$)/i.test(search)) return search;
  const params = new URLSearchParams(search);
  params.delete(API_KEY_PARAM);
  const rest = params.toString();
  return rest === '' ? '' : `?${rest}`;
}
