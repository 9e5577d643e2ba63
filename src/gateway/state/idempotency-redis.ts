// The Idempotency-Key store shared by every replica (REDIS_URL), through the SharedRedis port only.
// One atomic claim per (API key, Idempotency-Key): SET <prefix>idem:<hmac> NX PX 24h holding
// {state:'in-flight', fingerprint, lease}. The owner renews its lease while the payment runs, then writes
// {state:'done', fingerprint, reply} (XX KEEPTTL) and announces the key's HMAC on <prefix>idem:done.
// It must never pay twice under one key: a claim is never taken over, whatever happens to its owner; a
// claim whose owner stopped (its lease ran out with no reply) answers outcome-unknown for the rest of its
// 24 hours. When Redis cannot be asked before the claim, nothing is paid (unavailable). Keys, fingerprints
// and the announcement are HMACs under GATEWAY_SECRET; the stored reply is the route's, already scrubbed.
import { z } from 'zod';
import type { LegacyPaymentReply } from '../../payment/contract.js';
import { idempotencyDigest, type IdempotencyDigest } from './idempotency-digest.js';
import {
  IDEMPOTENCY_TTL_MS,
  UNAVAILABLE_EVENTS,
  storedReply,
  type IdempotencyEvent,
  type IdempotencyOutcome,
  type IdempotencyStore,
  type UnavailableReason,
} from './idempotency.js';
import type { SharedRedis } from './shared-redis.js';

/** How long a claim stays alive without renewal: the time a repeat takes to learn that its owner stopped. */
export const DEFAULT_LEASE_MS = 10_000;

export interface RedisIdempotencyOptions {
  redis: SharedRedis;
  /** Put before every key and channel name, so several gateways can share one Redis. */
  prefix: string;
  /** GATEWAY_SECRET, the same on every replica: they then name a key, and fingerprint a payment, alike. */
  secret: string | Buffer;
  /** The longest a repeat waits for the first call's reply: the payment's upstream timeout plus a margin. */
  waitMs: number;
  /** A claim's lease; its owner renews it every third of it (default DEFAULT_LEASE_MS). */
  leaseMs?: number;
  now?: () => number;
  onEvent?: (event: IdempotencyEvent) => void;
  /** Replies kept only a minute, not 24 hours: v1 refused the API key itself, so nothing was done under
   * the key, and made-up API keys must not fill Redis. */
  releasesKey?: (reply: LegacyPaymentReply) => boolean;
}

/** How long a reply that takes no key stays, so repeats that follow at once still replay it. */
const RELEASED_KEY_TTL_MS = 60_000;

const replySchema = z.object({
  httpStatus: z.number().int(),
  headers: z.record(z.string(), z.string()),
  body: z.object({ status: z.enum(['success', 'failure']), code: z.number().int(), response: z.string() }),
});

/** What a key holds. `lease` is a time on the owner's clock: replicas' clocks agree far better than a lease's length. */
const claimSchema = z.discriminatedUnion('state', [
  z.object({ state: z.literal('in-flight'), fingerprint: z.string(), lease: z.number() }),
  z.object({ state: z.literal('done'), fingerprint: z.string(), reply: replySchema }),
]);
type Claim = z.infer<typeof claimSchema>;

function readClaim(raw: string): Claim | undefined {
  try {
    const parsed = claimSchema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Redis refused a write for want of memory (maxmemory with noeviction): the store is full, not down. */
const isOutOfMemory = (err: unknown): boolean => err instanceof Error && /^OOM\b/.test(err.message);

/** One repeat waiting for a key's reply: woken by the key's announcement, or by its own timer. */
class Wakeup {
  private signalled = false;
  private wake: (() => void) | undefined;

  constructor(readonly release: () => void) {}

  signal(): void {
    this.signalled = true;
    this.wake?.();
  }

  /** Resolves at the next announcement (or one that came since the last call), or after `ms`. */
  next(ms: number): Promise<void> {
    if (this.signalled) {
      this.signalled = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wake = undefined;
        this.signalled = false;
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      this.wake = done;
    });
  }
}

/** The repeats waiting, by key HMAC. */
function wakeups() {
  const byId = new Map<string, Set<Wakeup>>();
  return {
    listen(id: string): Wakeup {
      const set = byId.get(id) ?? new Set<Wakeup>();
      byId.set(id, set);
      const wakeup = new Wakeup(() => {
        set.delete(wakeup);
        if (set.size === 0 && byId.get(id) === set) byId.delete(id);
      });
      set.add(wakeup);
      return wakeup;
    },
    announce(id: string): void {
      for (const wakeup of byId.get(id) ?? []) wakeup.signal();
    },
  };
}

export function createRedisIdempotencyStore(options: RedisIdempotencyOptions): IdempotencyStore {
  return new RedisIdempotencyStore(options);
}

class RedisIdempotencyStore implements IdempotencyStore {
  private readonly redis: SharedRedis;
  private readonly prefix: string;
  private readonly waitMs: number;
  private readonly leaseMs: number;
  private readonly now: () => number;
  private readonly digest: IdempotencyDigest;
  private readonly channel: string;
  private readonly waiting = wakeups();
  /** The payments this store runs, until their replies are stored. */
  private readonly owned = new Set<Promise<unknown>>();
  private subscription: Promise<void> | undefined;
  private closed = false;

  constructor(private readonly options: RedisIdempotencyOptions) {
    this.redis = options.redis;
    this.prefix = options.prefix;
    this.waitMs = options.waitMs;
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.now = options.now ?? Date.now;
    this.digest = idempotencyDigest(options.secret);
    this.channel = `${options.prefix}idem:done`;
    this.redis.onStateChange((up) => {
      if (up) void this.subscribe();
    });
    if (this.redis.isUp()) void this.subscribe();
  }

  fingerprint(fields: Readonly<Record<string, string>>): string {
    return this.digest.fingerprint(fields);
  }

  async run(apiKey: string | undefined, idempotencyKey: string, fingerprint: string, pay: () => Promise<LegacyPaymentReply>): Promise<IdempotencyOutcome> {
    if (this.closed || !this.redis.isUp()) return this.refuse('store-unreachable');
    const id = this.digest.keyId(apiKey, idempotencyKey);
    const key = `${this.prefix}idem:${id}`;
    // A key that vanishes between a refused claim and its read (it expired, or Redis lost it) is claimed anew.
    for (let attempt = 0; attempt < 3; attempt++) {
      let claimed: boolean;
      try {
        claimed = await this.redis.set(key, this.inFlight(fingerprint), { ifAbsent: true, ttlMs: IDEMPOTENCY_TTL_MS });
      } catch (err) {
        if (!isOutOfMemory(err)) return this.refuse('store-unreachable');
        // Redis refuses every write when out of memory, a claim of a key it holds included: that key is read
        // (a stored reply still replays); only a new key is refused.
        return (await this.follow(key, id, fingerprint)) ?? this.refuse('full');
      }
      if (claimed) {
        this.emit('claimed');
        const work = this.own(key, id, fingerprint, pay);
        this.owned.add(work);
        const forget = (): void => void this.owned.delete(work);
        work.then(forget, forget);
        return { kind: 'fresh', reply: await work };
      }
      const outcome = await this.follow(key, id, fingerprint);
      if (outcome !== undefined) return outcome;
    }
    return this.refuse('store-unreachable');
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.owned]);
  }

  private emit(event: IdempotencyEvent): void {
    this.options.onEvent?.(event);
  }

  private refuse(reason: UnavailableReason): IdempotencyOutcome {
    this.emit(UNAVAILABLE_EVENTS[reason]);
    return { kind: 'unavailable', reason };
  }

  private inFlight(fingerprint: string): string {
    return JSON.stringify({ state: 'in-flight', fingerprint, lease: this.now() + this.leaseMs } satisfies Claim);
  }

  // Waiting for another replica's reply: a subscription (one per store) wakes a repeat when its key is
  // announced, and the repeat re-reads the key. No polling, so no load while payments are slow. A lost
  // announcement (Redis restarted, the subscription not back yet, the owner's PUBLISH failed) is covered
  // by the re-reads each repeat makes anyway: when the lease it read would run out, and at its wait's end.
  private subscribe(): Promise<void> {
    this.subscription ??= this.redis.subscribe(this.channel, (id) => this.waiting.announce(id)).catch(() => {
      this.subscription = undefined;
    });
    return this.subscription;
  }

  /** Renews the claim's lease every third of it until stopped; a renewal that fails lets the lease run out. */
  private keepLease(key: string, fingerprint: string): { stop(): Promise<void> } {
    let stopped = false;
    let pending: Promise<unknown> = Promise.resolve();
    const every = this.leaseMs / 3;
    const renew = (): void => {
      if (stopped) return;
      pending = this.redis.set(key, this.inFlight(fingerprint), { ifPresent: true, keepTtl: true }).catch(() => false);
      timer = setTimeout(renew, every);
    };
    let timer = setTimeout(renew, every);
    return {
      async stop() {
        stopped = true;
        clearTimeout(timer);
        // A renewal already sent is applied before the reply is written, never after it.
        await pending;
      },
    };
  }

  private async own(key: string, id: string, fingerprint: string, pay: () => Promise<LegacyPaymentReply>): Promise<LegacyPaymentReply> {
    const lease = this.keepLease(key, fingerprint);
    let reply: LegacyPaymentReply;
    try {
      reply = await pay();
    } finally {
      // A payment that threw leaves its claim in flight: the lease runs out, and repeats answer outcome-unknown.
      await lease.stop();
    }
    await this.storeReply(key, id, fingerprint, reply);
    return reply;
  }

  private async storeReply(key: string, id: string, fingerprint: string, reply: LegacyPaymentReply): Promise<void> {
    // If Redis fails here (down, or the write refused), the payment ran but its reply is not stored: the
    // claim stays in flight until its lease runs out, and from then on every repeat answers outcome-unknown
    // (check the payments list), never a second payment. This call still answers with its own reply.
    try {
      const done: Claim = { state: 'done', fingerprint, reply: storedReply(reply) };
      const ttl = this.options.releasesKey?.(reply) ? { ttlMs: RELEASED_KEY_TTL_MS } : { keepTtl: true };
      if (await this.redis.set(key, JSON.stringify(done), { ifPresent: true, ...ttl })) await this.redis.publish(this.channel, id);
    } catch {
      // Nothing more to do: see above; a lost announcement is covered by the waiters' re-reads.
    }
  }

  /** A repeat: the stored reply, or the first call's after waiting for it; undefined when the key vanished. */
  private async follow(key: string, id: string, fingerprint: string): Promise<IdempotencyOutcome | undefined> {
    await this.subscribe();
    const wakeup = this.waiting.listen(id);
    const deadline = this.now() + this.waitMs;
    let waited = false;
    try {
      for (;;) {
        let raw: string | null;
        try {
          raw = await this.redis.get(key);
        } catch {
          return this.refuse('store-unreachable');
        }
        if (raw === null) return undefined;
        const claim = readClaim(raw);
        if (claim !== undefined && claim.fingerprint !== fingerprint) {
          this.emit('mismatch');
          return { kind: 'mismatch' };
        }
        if (claim?.state === 'done') {
          this.emit(waited ? 'waited' : 'replayed');
          return { kind: 'replayed', reply: claim.reply };
        }
        const t = this.now();
        // An unreadable claim is as good as one whose owner stopped: never paid again.
        if (claim === undefined || claim.lease <= t) {
          this.emit('outcome_unknown');
          return { kind: 'outcome-unknown' };
        }
        if (t >= deadline) return this.refuse('wait-expired');
        waited = true;
        await wakeup.next(Math.min(claim.lease, deadline) - t);
      }
    } finally {
      wakeup.release();
    }
  }
}
