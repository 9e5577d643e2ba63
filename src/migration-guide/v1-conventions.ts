// What the guide says about v1 in general, the same for every resource (v1's own reference: the path prefix,
// the key header, the list envelope, the page size bounds). Nothing here is about a legacy method: everything
// per method comes from the mappings. Pure data.

/** Every v1 path starts with it, after the service's base URL. */
export const V1_PATH_PREFIX = '/api/v1';

/** The header that carries the key, on v1 as on the legacy API; v1 never takes the key in the URL. */
export const API_KEY_HEADER = 'X-API-KEY';

/** v1's page size: `limit` from 1 to `max`, `default` when the query has none. */
export const V1_PAGE_LIMIT = { default: 100, max: 1000 } as const;

/** The members of every v1 list reply, in order. */
export const V1_LIST_ENVELOPE = ['object', 'total', 'limit', 'offset', 'has_more', 'data'] as const;

/** The shell variables the example calls read: never a key written out. */
export const EXAMPLE_VARIABLES = {
  legacyBase: 'LEGACY_BASE_URL',
  legacyKey: 'LEGACY_API_KEY',
  v1Base: 'V1_BASE_URL',
  v1Key: 'V1_API_KEY',
} as const;
