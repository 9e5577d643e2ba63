// The identity of one upstream GET, shared by the cache and single-flight: the one cache key
// (state/cache-key.ts) of the API key, the v1 URL and the key's write generation of the resource read.
import { cacheKey } from '../state/cache-key.js';
import type { V1GetRequest } from './v1-client.js';

export function requestKey(request: Pick<V1GetRequest, 'apiKey' | 'path' | 'query' | 'generation'>): string {
  const search = new URLSearchParams(request.query).toString();
  return cacheKey(request.apiKey, `${request.path}?${search}`, request.generation?.token ?? '');
}
