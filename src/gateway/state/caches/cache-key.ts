// The one key of every per-caller store: the response cache and single-flight (a v1 URL), the reply cache
// (a legacy call), the roster cache (a team listing) and the write generations (a resource). A SHA-256 of
// the API key, what is kept, and the key's write generation of what it reads (none before any write): two
// API keys never share an entry, a read after a write never meets one made before it, and the API key is
// never kept in clear. The NUL separator cannot occur in a header value (the key), so no two inputs collide.
import { hash } from 'node:crypto';

export function cacheKey(apiKey: string | undefined, what: string, generation = ''): string {
  // One-shot hash: this runs for every translated GET, and the streaming Hash object costs more.
  return hash('sha256', `${apiKey ?? ''}\0${what}${generation === '' ? '' : `\0${generation}`}`, 'base64url');
}
