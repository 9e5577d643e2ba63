// Where the notices are claimed, so that each is delivered once across every replica: a port, with this
// process's store here and the shared ones beside it (Redis: notice-store-redis.ts; PostgreSQL:
// notice-store-postgres.ts), chosen once at start. A replica claims a notice before each attempt to send it
// (a lease, renewed at each attempt, so that another replica takes it over only when the one sending it is
// gone), and settles it once delivered or given up: from then on no replica sends it again. The stores also
// add up the calls each brownout window refused, per integration, for the `brownout-hit` notice.
// The contract every store keeps:
// - claim is atomic: of two replicas claiming a notice no other holds, one gets it;
// - a settled notice stays settled for KEEP_MS, far longer than any notice may still be decided;
// - an error (the store down) rejects: the caller tries again at its next round, it never sends unclaimed.
import type { Clock } from '../../payment/claims/system-time.js';

/** `claimed`: this process may send it now; `held`: another process is sending it; `done`: delivered or given up. */
export type NoticeClaim = 'claimed' | 'held' | 'done';

export interface NoticeStore {
  /** Where the claims live, for the start line. */
  readonly kind: 'in process' | 'redis' | 'postgres';
  /** Takes the notice for `owner` (or renews its lease) for `leaseMs`, unless it is settled or another owner's
   * lease still runs. */
  claim(id: string, owner: string, leaseMs: number): Promise<NoticeClaim>;
  /** The notice was delivered (or given up after its retries): no replica sends it again. */
  settle(id: string, outcome: 'delivered' | 'given-up'): Promise<void>;
  /** Adds refused calls to one window opening's counts, by integration. */
  addRefused(occurrence: string, counts: ReadonlyMap<string, number>): Promise<void>;
  /** One window opening's refused calls by integration, every replica's. */
  refused(occurrence: string): Promise<Map<string, number>>;
  close(): Promise<void>;
}

/** How long a settled notice and a window's counts are kept: past every horizon of the schedule. */
export const KEEP_MS = 14 * 24 * 3_600_000;

interface Held {
  state: 'delivered' | 'given-up' | 'lease';
  owner: string;
  until: number;
}

/** This process's store (no REDIS_URL, no PostgreSQL IDEMPOTENCY_URL): one process, so once within it. */
export function createMemoryNoticeStore(now: Clock): NoticeStore {
  const notices = new Map<string, Held>();
  const counts = new Map<string, { until: number; by: Map<string, number> }>();
  const forgetOld = (at: number) => {
    for (const [id, h] of notices) if (h.until <= at) notices.delete(id);
    for (const [key, c] of counts) if (c.until <= at) counts.delete(key);
  };
  return {
    kind: 'in process',
    claim(id, owner, leaseMs) {
      const at = now();
      forgetOld(at);
      const held = notices.get(id);
      if (held && held.state !== 'lease') return Promise.resolve('done');
      if (held && held.owner !== owner) return Promise.resolve('held');
      notices.set(id, { state: 'lease', owner, until: at + leaseMs });
      return Promise.resolve('claimed');
    },
    settle(id, outcome) {
      notices.set(id, { state: outcome, owner: '', until: now() + KEEP_MS });
      return Promise.resolve();
    },
    addRefused(occurrence, add) {
      const c = counts.get(occurrence) ?? { until: now() + KEEP_MS, by: new Map<string, number>() };
      for (const [name, n] of add) c.by.set(name, (c.by.get(name) ?? 0) + n);
      counts.set(occurrence, c);
      return Promise.resolve();
    },
    refused: (occurrence) => Promise.resolve(new Map(counts.get(occurrence)?.by ?? [])),
    close: () => Promise.resolve(),
  };
}
