// The team listings' roster cache: one roster per API key and listing, kept only while the v1 pages it was
// read from stay fresh, never from a stale or uncached page, bounded by entries and bytes.
import { describe, expect, it } from 'vitest';
import { createRosterCache, type CallFreshness, type RosterCacheOptions } from '../../../../src/gateway/state/roster-cache.js';
import type { SortedListMapping } from '../../../../src/mapping/schema.js';
import type { SortedRoster } from '../../../../src/mapping/sorted-roster.js';

const listing = (method: string, resource = 'practitioners') =>
  ({ method, kind: 'sorted-list', source: { resource, pageSize: 1000, maxPages: 50 } }) as unknown as SortedListMapping;

const roster = (text: string, bytes = text.length + 8): SortedRoster => ({ text, ends: new Uint32Array([text.length]), bytes });

function setup(options: Partial<RosterCacheOptions> = {}) {
  let t = 1_000_000;
  let hits = 0;
  const cache = createRosterCache({ maxEntries: 10, maxBytes: 1000, now: () => t, onHit: () => hits++, ...options });
  const team = cache.forListing(listing('meetourteam'));
  /** One call, whose v1 pages are fresh until `until` (undefined: one was stale or not cached). */
  const call = (until: number | undefined) => {
    const seen: number[] = [];
    const freshness: CallFreshness = { freshUntil: () => until, onHit: (freshUntil) => seen.push(freshUntil) };
    return { freshness, seen };
  };
  return { cache, team, call, now: () => t, advance: (ms: number) => void (t += ms), hits: () => hits };
}

describe('roster cache', () => {
  it('serves the roster a call kept to the next call with the same key, until its pages stop being fresh', () => {
    const s = setup();
    const kept = roster('{"id":"1"}');
    s.team('key-a', s.call(s.now() + 5000).freshness).keep(kept);
    const next = s.call(undefined);
    expect(s.team('key-a', next.freshness).get()).toBe(kept);
    expect([next.seen, s.hits()]).toEqual([[s.now() + 5000], 1]);
    s.advance(4999);
    expect(s.team('key-a', s.call(undefined).freshness).get()).toBe(kept);
    s.advance(1);
    expect(s.team('key-a', s.call(undefined).freshness).get()).toBeUndefined();
    expect(s.cache.size()).toBe(0);
  });

  it('never shares a roster across API keys, methods or v1 sources', () => {
    const s = setup();
    s.team('key-a', s.call(s.now() + 5000).freshness).keep(roster('a'));
    expect(s.team('key-b', s.call(undefined).freshness).get()).toBeUndefined();
    expect(s.team(undefined, s.call(undefined).freshness).get()).toBeUndefined();
    expect(s.cache.forListing(listing('meetourstaff'))('key-a', s.call(undefined).freshness).get()).toBeUndefined();
    expect(s.cache.forListing(listing('meetourteam', 'staff'))('key-a', s.call(undefined).freshness).get()).toBeUndefined();
    expect(s.hits()).toBe(0);
  });

  it('keeps nothing built from a stale or uncached page, or already past its freshness', () => {
    const s = setup();
    s.team('key-a', s.call(undefined).freshness).keep(roster('a'));
    s.team('key-b', s.call(s.now()).freshness).keep(roster('b'));
    expect(s.cache.size()).toBe(0);
  });

  it('is bounded by bytes: a roster larger than the bound is not kept, older ones make room', () => {
    const s = setup({ maxBytes: 100 });
    s.team('big', s.call(s.now() + 5000).freshness).keep(roster('x', 101));
    expect(s.cache.size()).toBe(0);
    for (const key of ['k1', 'k2', 'k3']) s.team(key, s.call(s.now() + 5000).freshness).keep(roster(key, 40));
    expect(s.team('k1', s.call(undefined).freshness).get()).toBeUndefined();
    expect(s.team('k3', s.call(undefined).freshness).get()?.text).toBe('k3');
  });
});
