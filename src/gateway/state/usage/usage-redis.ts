// GET /usage's counts shared by every replica through Redis (REDIS_URL), for the usage tracker
// (usage-tracker.ts). Per fingerprint:
//   <prefix>usage:<fingerprint>         a hash: calls, m:<legacy method> (calls per method), first, last (ms)
//   <prefix>usage:<fingerprint>:agents  a set of its first few user agents
//   <prefix>usage:index                 the set of fingerprints, read by GET /usage
//   <prefix>usage:ack:<process id>      the last batch sequence number applied for one gateway process
// Each flush is one Lua script (EVAL, through the ClaimsRedis port the connection implements): the counts
// are added with HINCRBY, first and last seen kept as the earliest and latest, the agents added while the
// set is short, every key's TTL (90 days) renewed; a batch whose sequence number was already applied is
// skipped, so a retry after a lost answer counts nothing twice. Past `maxFingerprints` in the index, a
// new fingerprint counts under `other`, as in process. Keys expire 90 days after their integration's last
// call; reading drops the expired ones from the index. No key here ever holds an API key.
import type { ClaimsRedis, SharedRedis } from '../shared-redis.js';
import { DEFAULT_USAGE_LIMITS, OTHER_FINGERPRINT, integrationOf, type IntegrationUsage, type SharedUsageStore, type UsageBatch, type UsageLimits } from './usage-tracker.js';

/** How long a process's last applied sequence number is kept: far longer than any retry of its batch. */
const ACK_TTL_MS = 24 * 3_600_000;

// KEYS: index, ack, other's hash, other's agents, then each tally's hash and agents.
// ARGV: seq, ttl ms, max fingerprints, max agents, tallies (JSON: [{f, c, m, first, last, a}]), ack ttl ms.
const APPLY_SCRIPT = `
local seq = tonumber(ARGV[1])
local acked = tonumber(redis.call('GET', KEYS[2]) or '0')
if acked >= seq then return 0 end
local ttl = ARGV[2]
local maxF = tonumber(ARGV[3])
local maxA = tonumber(ARGV[4])
local tallies = cjson.decode(ARGV[5])
local function add(fp, hash, agents, t)
  redis.call('SADD', KEYS[1], fp)
  redis.call('HINCRBY', hash, 'calls', t.c)
  for method, n in pairs(t.m) do redis.call('HINCRBY', hash, 'm:' .. method, n) end
  local first = tonumber(redis.call('HGET', hash, 'first'))
  if not first or tonumber(t.first) < first then redis.call('HSET', hash, 'first', t.first) end
  local last = tonumber(redis.call('HGET', hash, 'last'))
  if not last or tonumber(t.last) > last then redis.call('HSET', hash, 'last', t.last) end
  for _, agent in ipairs(t.a) do
    if redis.call('SCARD', agents) < maxA then redis.call('SADD', agents, agent) end
  end
  redis.call('PEXPIRE', hash, ttl)
  if redis.call('EXISTS', agents) == 1 then redis.call('PEXPIRE', agents, ttl) end
end
for i, t in ipairs(tallies) do
  local hash, agents = KEYS[3 + 2 * i], KEYS[4 + 2 * i]
  if t.f ~= '${OTHER_FINGERPRINT}' and redis.call('SISMEMBER', KEYS[1], t.f) == 0 and redis.call('SCARD', KEYS[1]) - redis.call('SISMEMBER', KEYS[1], '${OTHER_FINGERPRINT}') >= maxF then
    add('${OTHER_FINGERPRINT}', KEYS[3], KEYS[4], t)
  else
    add(t.f, hash, agents, t)
  end
end
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('SET', KEYS[2], seq, 'PX', ARGV[6])
return 1`;

// KEYS: index. ARGV: the hash keys' prefix (<prefix>usage:). Each member's hash and agents, or the member
// dropped from the index when its hash has expired.
const READ_SCRIPT = `
local out = {}
for _, fp in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local fields = redis.call('HGETALL', ARGV[1] .. fp)
  if #fields == 0 then
    redis.call('SREM', KEYS[1], fp)
  else
    out[#out + 1] = {fp, fields, redis.call('SMEMBERS', ARGV[1] .. fp .. ':agents')}
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

/** One member of the read script's reply, as a report entry; undefined when it is not one. */
function integrationFrom(row: unknown): IntegrationUsage | undefined {
  if (!Array.isArray(row) || row.length !== 3) return undefined;
  const [fingerprint, rawFields, agents] = row as [unknown, unknown, unknown];
  const fields = strings(rawFields);
  const methods: Record<string, number> = {};
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
  }
  if (!Number.isFinite(first) || !Number.isFinite(last)) return undefined;
  return integrationOf({ fingerprint: String(fingerprint), calls, methods, first, last, agents: strings(agents) });
}

export function createRedisUsageStore(options: RedisUsageStoreOptions): SharedUsageStore {
  const { redis, prefix } = options;
  const limits = { ...DEFAULT_USAGE_LIMITS, ...options.limits };
  const base = `${prefix}usage:`;
  const index = `${base}index`;
  return {
    isUp: () => redis.isUp(),
    async apply(batch: UsageBatch) {
      const keys = [index, `${base}ack:${batch.source}`, `${base}${OTHER_FINGERPRINT}`, `${base}${OTHER_FINGERPRINT}:agents`];
      for (const t of batch.tallies) keys.push(`${base}${t.fingerprint}`, `${base}${t.fingerprint}:agents`);
      // Times as strings: Lua's numbers would print a large one in exponent form.
      const tallies = batch.tallies.map((t) => ({ f: t.fingerprint, c: t.calls, m: t.methods, first: String(t.first), last: String(t.last), a: t.agents }));
      // cjson reads an empty JSON object as an empty table, and an empty array as one too: both iterate as nothing.
      await redis.evalScript(APPLY_SCRIPT, keys, [
        String(batch.seq),
        String(limits.ttlMs),
        String(limits.maxFingerprints),
        String(limits.maxAgentsPerKey),
        JSON.stringify(tallies),
        String(ACK_TTL_MS),
      ]);
    },
    async read() {
      const reply = await redis.evalScript(READ_SCRIPT, [index], [base]);
      return (Array.isArray(reply) ? reply : []).map(integrationFrom).filter((i): i is IntegrationUsage => i !== undefined);
    },
  };
}
