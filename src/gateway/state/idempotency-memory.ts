// The Idempotency-Key store of one process (no REDIS_URL): right for a single replica. It must never
// forget an unexpired key: a key that is forgotten is a payment made twice. So nothing live is ever
// evicted; expired keys are swept (oldest first: the TTL is the same for all, so the oldest expire first),
// and when the store is full a new key is refused (`unavailable: full`) before any v1 call, while every
// stored key still replays. A bound per API key keeps one caller from filling the store for the others:
// that caller's new keys are refused, everyone else's are taken. A repeat that arrives while the first
// call with its key is in flight waits for that call's reply (bounded by the payment's own timeouts).
import { randomBytes } from 'node:crypto';
import type { LegacyPaymentReply } from '../../payment/contract.js';
import { idempotencyDigest } from './idempotency-digest.js';
import { IDEMPOTENCY_TTL_MS, storedReply, type IdempotencyEvent, type IdempotencyOutcome, type IdempotencyStore } from './idempotency.js';

/** At most this many unexpired keys (each holds one legacy reply, about half a kilobyte). */
export const DEFAULT_MAX_ENTRIES = 100_000;
/** At most this many unexpired keys per API key: 50 callers are needed to fill the store. */
export const DEFAULT_MAX_ENTRIES_PER_API_KEY = 2_000;

export interface MemoryIdempotencyOptions {
  maxEntries?: number;
  maxEntriesPerApiKey?: number;
  ttlMs?: number;
  /** The HMAC secret; by default a random one of this process (keys do not outlive it anyway). */
  secret?: string | Buffer;
  now?: () => number;
  onEvent?: (event: IdempotencyEvent) => void;
  /** Told when the store becomes full (true) and when it can take keys again (false), once per change. */
  onFullChange?: (full: boolean) => void;
  /** Replies that take no key: v1 refused the API key itself, so nothing was done under the key, and
   * made-up API keys must not fill the store. Such a key is released once its waiters have the reply. */
  releasesKey?: (reply: LegacyPaymentReply) => boolean;
}

interface Entry {
  fingerprint: string;
  caller: string;
  expiresAt: number;
  /** The reply to replay; undefined when the payment threw, so its outcome is unknown. */
  reply: Promise<LegacyPaymentReply | undefined>;
  settled: boolean;
}

/** A repeat: the first call's reply, once it has one. */
async function followEntry(entry: Entry, fingerprint: string, emit: (event: IdempotencyEvent) => void): Promise<IdempotencyOutcome> {
  if (entry.fingerprint !== fingerprint) {
    emit('mismatch');
    return { kind: 'mismatch' };
  }
  const waited = !entry.settled;
  const reply = await entry.reply;
  if (reply === undefined) {
    emit('outcome_unknown');
    return { kind: 'outcome-unknown' };
  }
  emit(waited ? 'waited' : 'replayed');
  return { kind: 'replayed', reply };
}

export function createMemoryIdempotencyStore(options: MemoryIdempotencyOptions = {}): IdempotencyStore {
  const maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
  const maxPerCaller = options.maxEntriesPerApiKey ?? DEFAULT_MAX_ENTRIES_PER_API_KEY;
  const ttlMs = options.ttlMs ?? IDEMPOTENCY_TTL_MS;
  const now = options.now ?? Date.now;
  const digest = idempotencyDigest(options.secret ?? randomBytes(32));
  // Insertion order is claim order, and so expiry order: the sweep reads from the head.
  const entries = new Map<string, Entry>();
  const perCaller = new Map<string, number>();
  let full = false;

  const emit = (event: IdempotencyEvent): void => options.onEvent?.(event);
  const follow = (entry: Entry, fingerprint: string) => followEntry(entry, fingerprint, emit);

  function remove(id: string, entry: Entry): void {
    entries.delete(id);
    const left = (perCaller.get(entry.caller) ?? 1) - 1;
    if (left > 0) perCaller.set(entry.caller, left);
    else perCaller.delete(entry.caller);
  }

  /** Drops expired keys whose payment has answered; a payment still in flight is never dropped. */
  function sweep(t: number): void {
    for (const [id, entry] of entries) {
      if (entry.expiresAt > t || !entry.settled) break;
      remove(id, entry);
    }
  }

  function noteFullness(): void {
    const nowFull = entries.size >= maxEntries;
    if (nowFull === full) return;
    full = nowFull;
    options.onFullChange?.(full);
  }

  async function claim(id: string, caller: string, fingerprint: string, pay: () => Promise<LegacyPaymentReply>): Promise<IdempotencyOutcome> {
    let settle!: (reply: LegacyPaymentReply | undefined) => void;
    const entry: Entry = { fingerprint, caller, expiresAt: now() + ttlMs, settled: false, reply: new Promise((resolve) => (settle = resolve)) };
    // Taken before the first await, so a concurrent repeat finds it and waits for this reply.
    entries.set(id, entry);
    perCaller.set(caller, (perCaller.get(caller) ?? 0) + 1);
    noteFullness();
    emit('claimed');
    let reply: LegacyPaymentReply;
    try {
      reply = await pay();
    } catch (err) {
      entry.settled = true;
      settle(undefined);
      throw err;
    }
    entry.settled = true;
    settle(storedReply(reply));
    if (options.releasesKey?.(reply)) remove(id, entry);
    return { kind: 'fresh', reply };
  }

  return {
    fingerprint: (fields) => digest.fingerprint(fields),

    async run(apiKey, idempotencyKey, fingerprint, pay) {
      const t = now();
      sweep(t);
      noteFullness();
      const id = digest.keyId(apiKey, idempotencyKey);
      const existing = entries.get(id);
      // An expired key held back by an older payment still in flight (the sweep stops there) counts as gone.
      if (existing && existing.settled && existing.expiresAt <= t) remove(id, existing);
      else if (existing) return follow(existing, fingerprint);
      const caller = digest.callerId(apiKey);
      if (entries.size >= maxEntries || (perCaller.get(caller) ?? 0) >= maxPerCaller) {
        emit('refused_full');
        return { kind: 'unavailable', reason: 'full' };
      }
      return claim(id, caller, fingerprint, pay);
    },

    async close() {},
  };
}
