// The names of the bench's rows, shared by the list of targets and the summary that pairs them into ratios.

export const direct = (records: number): string => `direct v1 ${records} records`;
export const reshaper = (records: number): string => `minimal reshaper ${records}`;
/** The same-bytes baselines (bench/same-bytes.ts): a new key per request, beside the gateway with the cache off. */
export const handwritten = (records: number): string => `hand-written reshaper ${records}`;
export const nginxLua = (records: number): string => `nginx+Lua reshaper ${records}`;
/** The floor (bench/relay.ts): v1's page sent on unchanged, not the legacy reply; beside the gateway with the cache off. */
export const relay = (records: number): string => `relay ${records}, v1 bytes`;
/** `/api/clients/0/N` with the handful of keys: after each key's first call, served from the caches. */
export const translated = (records: number): string => `gateway translated ${records}`;
/** `/api/clients/0/N` with a new API key per request and CACHE_TTL_MS=0: every call reads v1 and reshapes. */
export const translatedUncached = (records: number): string => `gateway translated ${records}, cache off`;
export const BARE_PASSTHROUGH = 'bare express+HPM passthrough';
export const PASSTHROUGH = 'gateway passthrough';
/** The team listing with a new API key per request, the fake v1 holding `members` practitioners. */
export const teamCold = (members: number): string => `gateway meetourteam cold, ${members} members`;
export const TEAM_CACHED = 'gateway meetourteam cached';
export const PAYMENT = 'gateway payment';
export const withRedis = (name: string): string => `${name}, Redis`;
export const logsOff = (name: string): string => `${name}, logs off`;
/** The same row with the gateway on Node 26. */
export const onNode26 = (name: string): string => `${name} [Node 26]`;
export const isNode26 = (name: string): boolean => name.endsWith(' [Node 26]');

export const NGINX_PLAIN = 'nginx plain proxy passthrough';
export const FRONT_PASSTHROUGH = 'nginx front passthrough';
export const FRONT_TRANSLATED = 'nginx front translated 100';
export const FRONT_TRANSLATED_UNCACHED = 'nginx front translated 100, cache off';

export const PASSTHROUGH_PATH = '/api/v1/clients?limit=100';
export const clientsPath = (records: number): string => `/api/clients/0/${records}`;
export const TEAM_PATH = '/api/meetourteam/0/20';
export const isCacheOff = (name: string): boolean => name.includes(', cache off');
