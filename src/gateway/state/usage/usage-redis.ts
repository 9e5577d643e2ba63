// GET /usage's counts shared by every replica through Redis (REDIS_URL), for the usage tracker
// (usage-tracker.ts). Per fingerprint:
//   <prefix>usage:<fingerprint>         a hash: calls, m:<legacy method> (calls per method), s:<HTTP status>,
//                                       p:<legacy payment code>, first, last (ms)
//   <prefix>usage:<fingerprint>:agents  a set of its first few user agents
//   <prefix>usage:<fingerprint>:shapes  a hash: call shape (`client?email`) -> calls, at most
//                                       `maxShapesPerKey` shapes, then `(other)`
//   <prefix>usage:<fingerprint>:days    a hash: UTC day (`2027-01-12`) -> calls; days before the batch's
//                                       oldest kept day are dropped at each flush
//   <prefix>usage:index                 the set of fingerprints, read by GET /usage
//   <prefix>usage:ack:<process id>      the last batch sequence number applied for one gateway process
// Each flush is one Lua script (EVAL, through the ClaimsRedis port the connection implements): the counts
// are added with HINCRBY, first and last seen kept as the earliest and latest, the agents added while the
// set is short, every key's TTL (90 days) renewed; a batch whose sequence number was already applied is
// skipped, so a retry after a lost answer counts nothing twice. Past `maxFingerprints` in the index, a
// new fingerprint counts under `other`, as in process. Keys expire 90 days after their integration's last
// call; reading drops the expired ones from the index. No key here ever holds an API key.
import type { ClaimsRedis, SharedRedis } from '../shared-redis.js';
import { DEFAULT_USAGE_LIMITS, OTHER_FINGERPRINT, OTHER_SHAPE, integrationOf, type IntegrationUsage, type SharedUsageStore, type UsageBatch, type UsageLimits } from './usage-tracker.js';

/** How long a process's last applied sequence number is kept: far longer than any retry of its batch. */
const ACK_TTL_MS = 24 * 3_600_000;

// KEYS: index, ack, other's hash, agents, shapes and days, then each tally's hash, agents, shapes and days.
// ARGV: seq, ttl ms, max fingerprints, max agents, tallies (JSON: [{f, c, m, s, p, h, d, first, last, a}]),
// ack ttl ms, max shapes, the oldest day kept.
const APPLY_SCRIPT = `
local seq = tonumber(ARGV[1])
local acked = tonumber(redis.call('GET', KEYS[2]) or '0')
if acked >= seq then return 0 end
local ttl = ARGV[2]
local maxF = tonumber(ARGV[3])
local maxA = tonumber(ARGV[4])
local tallies = cjson.decode(ARGV[5])
local maxS = tonumber(ARGV[7])
local oldestDay = ARGV[8]
local otherShape = '${OTHER_SHAPE}'
local function add(fp, hash, agents, shapes, days, t)
  redis.call('SADD', KEYS[1], fp)
  redis.call('HINCRBY', hash, 'calls', t.c)
  for method, n in pairs(t.m) do redis.call('HINCRBY', hash, 'm:' .. method, n) end
  for status, n in pairs(t.s) do redis.call('HINCRBY', hash, 's:' .. status, n) end
  for code, n in pairs(t.p) do redis.call('HINCRBY', hash, 'p:' .. code, n) end
  for shape, n in pairs(t.h) do
    if redis.call('HEXISTS', shapes, shape) == 1 or redis.call('HLEN', shapes) - redis.call('HEXISTS', shapes, otherShape) < maxS then
      redis.call('HINCRBY', shapes, shape, n)
    else
      redis.call('HINCRBY', shapes, otherShape, n)
    end
  end
  for day, n in pairs(t.d) do
    if day >= oldestDay then redis.call('HINCRBY', days, day, n) end
  end
  for _, day in ipairs(redis.call('HKEYS', days)) do
    if day < oldestDay then redis.call('HDEL', days, day) end
  end
  local first = tonumber(redis.call('HGET', hash, 'first'))
  if not first or tonumber(t.first) < first then redis.call('HSET', hash, 'first', t.first) end
  local last = tonumber(redis.call('HGET', hash, 'last'))
  if not last or tonumber(t.last) > last then redis.call('HSET', hash, 'last', t.last) end
  for _, agent in ipairs(t.a) do
    if redis.call('SCARD', agents) < maxA then redis.call('SADD', agents, agent) end
  end
  redis.call('PEXPIRE', hash, ttl)
  for _, key in ipairs({agents, shapes, days}) do
    if redis.call('EXISTS', key) == 1 then redis.call('PEXPIRE', key, ttl) end
  end
end
for i, t in ipairs(tallies) do
  local at = 3 + 4 * i
  if t.f ~= '${OTHER_FINGERPRINT}' and redis.call('SISMEMBER', KEYS[1], t.f) == 0 and redis.call('SCARD', KEYS[1]) - redis.call('SISMEMBER', KEYS[1], '${OTHER_FINGERPRINT}') >= maxF then
    add('${OTHER_FINGERPRINT}', KEYS[3], KEYS[4], KEYS[5], KEYS[6], t)
  else
    add(t.f, KEYS[at], KEYS[at + 1], KEYS[at + 2], KEYS[at + 3], t)
  end
end
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('SET', KEYS[2], seq, 'PX', ARGV[6])
return 1`;

// KEYS: index. ARGV: the hash keys' prefix (<prefix>usage:). Each member's hash, agents, shapes and days, or
// the member dropped from the index when its hash has expired.
const READ_SCRIPT = `
local out = {}
for _, fp in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local fields = redis.call('HGETALL', ARGV[1] .. fp)
  if #fields == 0 then
    redis.call('SREM', KEYS[1], fp)
  else
    local key = ARGV[1] .. fp
    out[#out + 1] = {fp, fields, redis.call('SMEMBERS', key .. ':agents'), redis.call('HGETALL', key .. ':shapes'), redis.call('HGETALL', key .. ':days')}
  end
end
return out`;

/** Whether a connection runs scripts (the REDIS_URL connection does; a test's fake may not). */
export function runsScripts(redis: SharedRedis): redis is ClaimsRedis {
  return typeof (redis as Partial<ClaimsRedis>).evalScript === 'function';
}

export interface RedisUsageStoreOptions {
  redis: ClaimsRedis;
  /** REDIS_KEY_PREFIX */
  prefix: string;
  limits?: Partial<UsageLimits>;
}

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : []);

/** A hash's fields and values (HGETALL's flat list) as counts. */
function counts(flat: unknown): Record<string, number> {
  const list = strings(flat);
  const out: Record<string, number> = {};
  for (let i = 0; i + 1 < list.length; i += 2) out[list[i] as string] = Number(list[i + 1]);
  return out;
}

/** One member of the read script's reply, as a report entry; undefined when it is not one. */
function integrationFrom(row: unknown): IntegrationUsage | undefined {
  if (!Array.isArray(row) || row.length !== 5) return undefined;
  const [fingerprint, rawFields, agents, shapes, days] = row as [unknown, unknown, unknown, unknown, unknown];
  const fields = strings(rawFields);
  const methods: Record<string, number> = {};
  const statuses: Record<string, number> = {};
  const paymentCodes: Record<string, number> = {};
  let calls = 0;
  let first = Number.NaN;
  let last = Number.NaN;
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const name = fields[i] as string;
    const value = Number(fields[i + 1]);
    if (name === 'calls') calls = value;
    else if (name === 'first') first = value;
    else if (name === 'last') last = value;
    else if (name.startsWith('m:')) methods[name.slice(2)] = value;
    else if (name.startsWith('s:')) statuses[name.slice(2)] = value;
    else if (name.startsWith('p:')) paymentCodes[name.slice(2)] = value;
  }
  if (!Number.isFinite(first) || !Number.isFinite(last)) return undefined;
  return integrationOf({ fingerprint: String(fingerprint), calls, methods, statuses, paymentCodes, shapes: counts(shapes), daily: counts(days), first, last, agents: strings(agents) });
}

export function createRedisUsageStore(options: RedisUsageStoreOptions): SharedUsageStore {
  const { redis, prefix } = options;
  const limits = { ...DEFAULT_USAGE_LIMITS, ...options.limits };
  const base = `${prefix}usage:`;
  const index = `${base}index`;
  return {
    isUp: () => redis.isUp(),
    async apply(batch: UsageBatch) {
      const keysOf = (fingerprint: string) => [`${base}${fingerprint}`, `${base}${fingerprint}:agents`, `${base}${fingerprint}:shapes`, `${base}${fingerprint}:days`];
      const keys = [index, `${base}ack:${batch.source}`, ...keysOf(OTHER_FINGERPRINT)];
      for (const t of batch.tallies) keys.push(...keysOf(t.fingerprint));
      // Times as strings: Lua's numbers would print a large one in exponent form.
      const tallies = batch.tallies.map((t) => ({
        f: t.fingerprint,
        c: t.calls,
        m: t.methods,
        s: t.statuses,
        p: t.paymentCodes,
        h: t.shapes,
        d: t.daily,
        first: String(t.first),
        last: String(t.last),
        a: t.agents,
      }));
      // cjson reads an empty JSON object as an empty table, and an empty array as one too: both iterate as nothing.
      await redis.evalScript(APPLY_SCRIPT, keys, [
        String(batch.seq),
        String(limits.ttlMs),
        String(limits.maxFingerprints),
        String(limits.maxAgentsPerKey),
        JSON.stringify(tallies),
        String(ACK_TTL_MS),
        String(limits.maxShapesPerKey),
        batch.oldestDay,
      ]);
    },
    async read() {
      const reply = await redis.evalScript(READ_SCRIPT, [index], [base]);
      return (Array.isArray(reply) ? reply : []).map(integrationFrom).filter((i): i is IntegrationUsage => i !== undefined);
    },
  };
}
