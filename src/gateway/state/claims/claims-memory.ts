// The payment claims of one process (neither IDEMPOTENCY_URL nor REDIS_URL): right for a single replica,
// and lost when it restarts. It must never forget an unexpired claim: a claim that is forgotten is a
// payment made twice. So nothing live is ever evicted; expired claims are swept (a claim still in flight
// is kept past its time, as it still stands for a payment), and when the store is full a new claim is
// refused (`full`) before any v1 call, while every stored claim still answers. A bound per API key keeps
// one caller from filling the store for the others. Every write wakes the repeats waiting on its claim.
import { ClaimWaiters } from '../../../payment/claims/claim-waiters.js';
import { ClaimStoreError, isOpen, isUnknown, type ClaimRecord, type ClaimResult, type ClaimStore, type UnknownClaim } from '../../../payment/claims/claim-store.js';

/** At most this many unexpired claims (each holds one legacy reply, about half a kilobyte). */
export const DEFAULT_MAX_ENTRIES = 100_000;
/** At most this many unexpired claims per API key: 50 callers are needed to fill the store. */
export const DEFAULT_MAX_ENTRIES_PER_API_KEY = 2_000;

export interface MemoryClaimStoreOptions {
  maxEntries?: number;
  maxEntriesPerApiKey?: number;
  now?: () => number;
  /** Told when the store becomes full (true) and when it can take claims again (false), once per change. */
  onFullChange?: (full: boolean) => void;
}

interface Entry {
  record: ClaimRecord;
  expiresAt: number;
}

const FULL = new ClaimStoreError('full', 'the payment claims store is full');

/** Past its time, and no payment still running under it (a claim in flight outlives its time until its lease ends). */
const expired = (entry: Entry, t: number): boolean => entry.expiresAt <= t && (entry.record.phase === 'answered' || entry.record.leaseUntil <= t);

class MemoryClaims implements ClaimStore {
  private readonly maxEntries: number;
  private readonly maxPerCaller: number;
  private readonly now: () => number;
  private readonly entries = new Map<string, Entry>();
  private readonly perCaller = new Map<string, number>();
  private readonly waiting = new ClaimWaiters();
  /** The settle leases: holder and until when, by claim. */
  private readonly leases = new Map<string, { holder: string; until: number }>();
  private full = false;
  private lastSweep = 0;

  constructor(private readonly options: MemoryClaimStoreOptions) {
    this.maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
    this.maxPerCaller = options.maxEntriesPerApiKey ?? DEFAULT_MAX_ENTRIES_PER_API_KEY;
    this.now = options.now ?? Date.now;
  }

  async claim(id: string, record: ClaimRecord, ttlMs: number, at: number): Promise<ClaimResult> {
    this.sweepNow(this.now());
    const existing = this.live(id, this.now());
    if (existing && !isOpen(existing.record, at)) return { taken: false, existing: { ...existing.record } };
    if (!existing && this.noRoomFor(record.caller)) {
      this.sweep(this.now());
      if (this.noRoomFor(record.caller)) throw FULL;
    }
    this.put(id, { record: { ...record }, expiresAt: this.now() + ttlMs });
    if (this.entries.size >= this.maxEntries) this.sweep(this.now());
    return existing ? { taken: true, replaced: { fingerprint: existing.record.fingerprint, ...(existing.record.ticket === undefined ? {} : { ticket: existing.record.ticket }) } } : { taken: true };
  }

  async update(id: string, record: ClaimRecord, options: { ttlMs?: number } = {}): Promise<boolean> {
    const entry = this.live(id, this.now());
    if (!entry || entry.record.owner !== record.owner) return false;
    this.put(id, { record: { ...record }, expiresAt: options.ttlMs === undefined ? entry.expiresAt : this.now() + options.ttlMs });
    return true;
  }

  async read(id: string): Promise<ClaimRecord | undefined> {
    const entry = this.live(id, this.now());
    return entry ? { ...entry.record } : undefined;
  }

  async settleLease(id: string, holder: string, ms: number, now: number): Promise<boolean> {
    for (const [claim, lease] of this.leases) if (lease.until <= now) this.leases.delete(claim);
    const lease = this.leases.get(id);
    if (lease !== undefined && lease.holder !== holder) return false;
    this.leases.set(id, { holder, until: now + ms });
    return true;
  }

  async listUnknown(now: number, limit: number): Promise<UnknownClaim[]> {
    const found: UnknownClaim[] = [];
    for (const [id, entry] of this.entries) if (!expired(entry, this.now()) && isUnknown(entry.record, now)) found.push({ id, record: { ...entry.record } });
    return found.sort((a, b) => a.record.ticket!.sentAt - b.record.ticket!.sentAt).slice(0, limit);
  }

  changed(id: string, ms: number): Promise<void> {
    return this.waiting.wait(id, ms);
  }

  async close(): Promise<void> {}

  private noRoomFor(caller: string): boolean {
    return this.entries.size >= this.maxEntries || (this.perCaller.get(caller) ?? 0) >= this.maxPerCaller;
  }

  private count(caller: string, by: number): void {
    const n = (this.perCaller.get(caller) ?? 0) + by;
    if (n > 0) this.perCaller.set(caller, n);
    else this.perCaller.delete(caller);
  }

  private remove(id: string, entry: Entry): void {
    this.entries.delete(id);
    this.count(entry.record.caller, -1);
  }

  /** Writes a claim and wakes the repeats waiting on it. */
  private put(id: string, entry: Entry): void {
    const before = this.entries.get(id);
    if (before) this.count(before.record.caller, -1);
    this.entries.set(id, entry);
    this.count(entry.record.caller, 1);
    this.waiting.wake(id);
  }

  private live(id: string, t: number): Entry | undefined {
    const entry = this.entries.get(id);
    if (!entry || !expired(entry, t)) return entry;
    this.remove(id, entry);
    return undefined;
  }

  /** Drops expired claims, and tells when the store's fullness changed. */
  private sweep(t: number): void {
    for (const [id, entry] of this.entries) if (expired(entry, t)) this.remove(id, entry);
    const nowFull = this.entries.size >= this.maxEntries;
    if (nowFull === this.full) return;
    this.full = nowFull;
    this.options.onFullChange?.(nowFull);
  }

  /** A sweep walks every entry: at most once a second, or whenever the store looks full. */
  private sweepNow(t: number): void {
    if (t - this.lastSweep < 1000 && this.entries.size < this.maxEntries) return;
    this.lastSweep = t;
    this.sweep(t);
  }
}

export function createMemoryClaimStore(options: MemoryClaimStoreOptions = {}): ClaimStore {
  return new MemoryClaims(options);
}
