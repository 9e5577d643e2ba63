// Keeps the sorted roster of a team listing (the whole listing in order, each record reduced to what its
// legacy fields are written from) for as long as every v1 page it was read from stays fresh in the response
// cache, so another cut of the same listing for the same API key is a slice: no page read, no sort. The
// engine is a pure function of the mapping and the v1 pages, so a kept roster is exactly what it would
// build again. The reply cache's rules hold: keyed by a hash of the API key, the legacy method, its v1
// source and the key's write generation of it, never shared across keys, the key never kept in clear, never
// served after a write of what it lists; never a roster built from a stale page or
// from a page the response cache did not keep (so nothing with CACHE_TTL_MS=0); bounded by entries and
// approximate bytes. It also bounds how many rosters are read at once: a listing being read holds its
// whole roster and a v1 page in memory, and is bound by this process's CPU (parsing every page), so fifty
// keys listing at once wait their turn instead of holding fifty rosters. A call that waited takes the
// roster another call of its key kept meanwhile.
import { cacheKey } from './cache-key.js';
import { LRUCache } from 'lru-cache';
import type { SortedListMapping } from '../../../mapping/schema.js';
import type { RosterStore, SortedRoster } from '../../../mapping/sorted-roster.js';
import { createConcurrencyLimit } from './concurrency-limit.js';

/** What the route knows of one call's v1 replies. */
export interface CallFreshness {
  /** Until when every v1 reply the call used stays fresh (cache clock); undefined when one was stale or
   * not cached. */
  freshUntil(): number | undefined;
  /** The call is served from a kept roster, itself fresh until `freshUntil`. */
  onHit(freshUntil: number): void;
}

/** The engine's roster port for one call of one listing, by the call's API key and its write generation
 * of the listing's resource. */
export type RosterPortFor = (apiKey: string | undefined, call: CallFreshness, generation?: string) => RosterStore;

export interface RosterCache {
  /** For one sorted-list mapping, once (when its route is built). */
  forListing(mapping: SortedListMapping): RosterPortFor;
  size(): number;
}

export interface RosterCacheOptions {
  maxEntries: number;
  /** Upper bound of the kept rosters' approximate size. */
  maxBytes: number;
  /** How many rosters may be read from v1 at once. */
  maxReads: number;
  now?: () => number;
  /** A call answered from a kept roster (a cache hit, for the metrics). */
  onHit?: () => void;
}

/** A 10,000-member roster is about 3 MB: 16 MB keeps a few of those, or hundreds of ordinary teams. Four
 * reads at once keep the CPU busy while pages are on the wire, and the other rosters wait their turn rather
 * than all hold their v1 pages at once: fifty listings of 10,000 wide v1 records at once then stay within
 * the team listing's memory target (docs/benchmarks.md). */
export const DEFAULT_ROSTER_CACHE_LIMITS = { maxEntries: 500, maxBytes: 16 * 1024 * 1024, maxReads: 4 } as const;

interface Entry {
  roster: SortedRoster;
  freshUntil: number;
}

export function createRosterCache(options: RosterCacheOptions): RosterCache {
  const now = options.now ?? Date.now;
  const entries = new LRUCache<string, Entry>({
    max: options.maxEntries,
    maxSize: options.maxBytes,
    sizeCalculation: (entry) => Math.max(1, entry.roster.bytes),
  });
  const reads = createConcurrencyLimit(options.maxReads);
  /** The roster kept under `key` while fresh, told to the call as a hit. */
  const kept = (key: string, call: CallFreshness): SortedRoster | undefined => {
    const entry = entries.get(key);
    if (!entry) return undefined;
    if (now() >= entry.freshUntil) {
      entries.delete(key);
      return undefined;
    }
    options.onHit?.();
    call.onHit(entry.freshUntil);
    return entry.roster;
  };
  const keep = (key: string, roster: SortedRoster, call: CallFreshness): void => {
    const freshUntil = call.freshUntil();
    if (freshUntil !== undefined && freshUntil > now() && roster.bytes <= options.maxBytes) entries.set(key, { roster, freshUntil });
  };
  return {
    forListing(mapping) {
      // The v1 source is part of the key: a listing read from other pages is another roster.
      const listing = `${mapping.method}\0${JSON.stringify(mapping.source)}`;
      return (apiKey, call, generation = '') => {
        const key = cacheKey(apiKey, listing, generation);
        return {
          async roster(read) {
            const ready = kept(key, call);
            if (ready) return ready;
            return reads.run(async () => {
              const meanwhile = kept(key, call);
              if (meanwhile) return meanwhile;
              const roster = await read();
              keep(key, roster, call);
              return roster;
            });
          },
        };
      };
    },
    size: () => entries.size,
  };
}
