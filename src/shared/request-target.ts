// A request target split into its path and its query string, as they came (nothing decoded).
// Every route reads the raw target this way: the legacy routes, the payment route, the passthrough.

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
