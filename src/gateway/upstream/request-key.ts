// The identity of one upstream GET, shared by the cache and single-flight: a SHA-256 of the API key and
// the v1 URL. Two keys never share an entry, and the key itself is never kept in clear in memory maps.
import { hash } from 'node:crypto';
import type { V1GetRequest } from './v1-client.js';

export function requestKey(request: Pick<V1GetRequest, 'apiKey' | 'path' | 'query'>): string {
  const search = new URLSearchParams(request.query).toString();
  // The NUL separator cannot occur in a header value, so no (key, URL) pair can collide with another.
  // One-shot hash: this runs for every translated GET, and the streaming Hash object costs more.
  return hash('sha256', `${request.apiKey ?? ''}\0${request.path}?${search}`, 'base64url');
}
