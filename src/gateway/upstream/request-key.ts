// The identity of one upstream GET, shared by the cache and single-flight: a SHA-256 of the API key, the
// v1 URL and the key's write generation of the resource read (none before any write). Two keys never share
// an entry, a read after a write never meets one made before it, and the key is never kept in clear.
import { hash } from 'node:crypto';
import type { V1GetRequest } from './v1-client.js';

export function requestKey(request: Pick<V1GetRequest, 'apiKey' | 'path' | 'query' | 'generation'>): string {
  const search = new URLSearchParams(request.query).toString();
  const generation = request.generation?.token ? `\0${request.generation.token}` : '';
  // The NUL separator cannot occur in a header value, so no (key, URL) pair can collide with another.
  // One-shot hash: this runs for every translated GET, and the streaming Hash object costs more.
  return hash('sha256', `${request.apiKey ?? ''}\0${request.path}?${search}${generation}`, 'base64url');
}
