// The notices' claims shared by every replica through Redis (REDIS_URL), implementing notice-store.ts:
//   <prefix>notice:<id>              `lease:<process id>` (PX: the lease), then `delivered` or `given-up` (14 days)
//   <prefix>notice-refused:<window opening>  a hash: integration -> refused calls (14 days)
// A claim is one Lua script, so two replicas never both take a notice no one holds.
import type { ClaimsRedis } from '../state/shared-redis.js';
import { KEEP_MS, type NoticeClaim, type NoticeStore } from './notice-store.js';

// KEYS: the notice. ARGV: `lease:<owner>`, lease ms.
const CLAIM_SCRIPT = `
local v = redis.call('GET', KEYS[1])
if v == 'delivered' or v == 'given-up' then return 'done' end
if v and v ~= ARGV[1] then return 'held' end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 'claimed'`;

// KEYS: the counts' hash. ARGV: keep ms, then integration, count pairs.
const ADD_SCRIPT = `
for i = 2, #ARGV, 2 do redis.call('HINCRBY', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1`;

export function createRedisNoticeStore(redis: ClaimsRedis, prefix: string): NoticeStore {
  const notice = (id: string) => `${prefix}notice:${id}`;
  const counts = (occurrence: string) => `${prefix}notice-refused:${occurrence}`;
  return {
    kind: 'redis',
    async claim(id, owner, leaseMs) {
      const answer = await redis.evalScript(CLAIM_SCRIPT, [notice(id)], [`lease:${owner}`, String(leaseMs)]);
      return String(answer) as NoticeClaim;
    },
    async settle(id, outcome) {
      await redis.set(notice(id), outcome, { ttlMs: KEEP_MS });
    },
    async addRefused(occurrence, add) {
      if (add.size === 0) return;
      await redis.evalScript(ADD_SCRIPT, [counts(occurrence)], [String(KEEP_MS), ...[...add].flatMap(([name, n]) => [name, String(n)])]);
    },
    async refused(occurrence) {
      const reply = await redis.evalScript("return redis.call('HGETALL', KEYS[1])", [counts(occurrence)], []);
      const fields = Array.isArray(reply) ? reply.map(String) : [];
      const out = new Map<string, number>();
      for (let i = 0; i + 1 < fields.length; i += 2) out.set(fields[i]!, Number(fields[i + 1]));
      return out;
    },
    close: () => Promise.resolve(),
  };
}
