// The identity of one upstream GET, shared by the cache and single-flight: the one cache key
// (state/caches/cache-key.ts) of the API key, the v1 URL and the key's write generation of the resource read.
import { cacheKey } from '../state/caches/cache-key.js';
import type { V1GetRequest } from './v1-client.js';
import { v1Search } from './v1-url.js';

export function requestKey(request: Pick<V1GetRequest, 'apiKey' | 'path' | 'query' | 'generation'>): string {
  return cacheKey(request.apiKey, `${request.path}?${v1Search(request.query)}`, request.generation?.token ?? '');
}
