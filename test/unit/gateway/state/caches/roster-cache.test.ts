// The team listings' roster cache: one roster per API key, listing and write generation, kept only while
// the v1 pages it was read from stay fresh, never from a stale or uncached page, bounded by entries and
// bytes; and only a few rosters read at once, a call that waited taking the roster its key's other call
// kept meanwhile.
import { describe, expect, it } from 'vitest';
import { createRosterCache, type CallFreshness, type RosterCacheOptions } from '../../../../../src/gateway/state/caches/roster-cache.js';
import type { SortedListMapping } from '../../../../../src/mapping/schema.js';
import type { SortedRoster } from '../../../../../src/mapping/sorted-roster.js';

const listing = (method: string, resource = 'practitioners') =>
  ({ method, kind: 'sorted-list', source: { resource, pageSize: 1000, maxPages: 50 } }) as unknown as SortedListMapping;

const roster = (name: string, bytes = 10): SortedRoster => ({ pageValues: [[name]], pageStarts: Uint32Array.of(0), width: 1, order: Uint32Array.of(0), bytes });

/** A read that gives `roster` when released (at once unless held), counting its runs. */
function reader(result: SortedRoster | Error, held = false) {
  const state = { runs: 0, release: () => undefined as void };
  const gate = held ? new Promise<void>((resolve) => (state.release = resolve)) : Promise.resolve();
  const read = async () => {
    state.runs++;
    await gate;
    if (result instanceof Error) throw result;
    return result;
  };
  return Object.assign(state, { read });
}

function setup(options: Partial<RosterCacheOptions> = {}) {
  let t = 1_000_000;
  let hits = 0;
  const cache = createRosterCache({ maxEntries: 10, maxBytes: 1000, maxReads: 2, now: () => t, onHit: () => hits++, ...options });
  const team = cache.forListing(listing('meetourteam'));
  /** One call whose v1 pages are fresh until `until` (undefined: one was stale or not cached). */
  const call = (until?: number) => {
    const seen: number[] = [];
    const freshness: CallFreshness = { freshUntil: () => until, onHit: (freshUntil) => seen.push(freshUntil) };
    return { freshness, seen };
  };
  return { cache, team, call, now: () => t, advance: (ms: number) => void (t += ms), hits: () => hits };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('roster cache: what is kept', () => {
  it('serves the roster one call read to the next call with its key, until its pages stop being fresh', async () => {
    const s = setup();
    const first = reader(roster('a'));
    expect((await s.team('key-a', s.call(s.now() + 5000).freshness).roster(first.read)).pageValues).toEqual([['a']]);
    const next = s.call();
    const again = reader(roster('other'));
    expect((await s.team('key-a', next.freshness).roster(again.read)).pageValues).toEqual([['a']]);
    expect([again.runs, next.seen, s.hits()]).toEqual([0, [s.now() + 5000], 1]);
    s.advance(5000);
    expect((await s.team('key-a', s.call().freshness).roster(again.read)).pageValues).toEqual([['other']]);
    expect(again.runs).toBe(1);
  });

  it('never shares a roster across API keys, methods, v1 sources or write generations', async () => {
    const s = setup();
    await s.team('key-a', s.call(s.now() + 5000).freshness).roster(reader(roster('a')).read);
    const others = [
      s.team('key-b', s.call().freshness),
      s.team(undefined, s.call().freshness),
      s.team('key-a', s.call().freshness, 'after-a-write'),
      s.cache.forListing(listing('meetourstaff'))('key-a', s.call().freshness),
      s.cache.forListing(listing('meetourteam', 'staff'))('key-a', s.call().freshness),
    ];
    for (const store of others) expect((await store.roster(reader(roster('own')).read)).pageValues).toEqual([['own']]);
    expect(s.hits()).toBe(0);
  });

  it('keeps nothing read from a stale or uncached page, or already past its freshness', async () => {
    const s = setup();
    await s.team('key-a', s.call(undefined).freshness).roster(reader(roster('a')).read);
    await s.team('key-b', s.call(s.now()).freshness).roster(reader(roster('b')).read);
    expect(s.cache.size()).toBe(0);
  });

  it('is bounded by bytes: a roster larger than the bound is not kept, older ones make room', async () => {
    const s = setup({ maxBytes: 100 });
    await s.team('big', s.call(s.now() + 5000).freshness).roster(reader(roster('big', 101)).read);
    expect(s.cache.size()).toBe(0);
    for (const key of ['k1', 'k2', 'k3']) await s.team(key, s.call(s.now() + 5000).freshness).roster(reader(roster(key, 40)).read);
    expect((await s.team('k1', s.call().freshness).roster(reader(roster('new')).read)).pageValues).toEqual([['new']]);
    expect((await s.team('k3', s.call().freshness).roster(reader(roster('new')).read)).pageValues).toEqual([['k3']]);
  });
});

describe('roster cache: reads at once', () => {
  it('runs at most maxReads reads at once; the next waits for a slot', async () => {
    const s = setup({ maxReads: 2 });
    const reads = ['k1', 'k2', 'k3'].map((key) => ({ key, r: reader(roster(key), true) }));
    const served = reads.map(({ key, r }) => s.team(key, s.call(s.now() + 5000).freshness).roster(r.read));
    await tick();
    expect(reads.map(({ r }) => r.runs)).toEqual([1, 1, 0]);
    reads[1]!.r.release();
    await served[1];
    await tick();
    expect(reads[2]!.r.runs).toBe(1);
    reads[0]!.r.release();
    reads[2]!.r.release();
    expect((await Promise.all(served)).map((r) => r.pageValues[0]![0])).toEqual(['k1', 'k2', 'k3']);
  });

  it('a call that waited takes the roster its key kept meanwhile, reading nothing', async () => {
    const s = setup({ maxReads: 1 });
    const first = reader(roster('first'), true);
    const second = reader(roster('second'));
    const waiting = s.call();
    const served = [s.team('key-a', s.call(s.now() + 5000).freshness).roster(first.read), s.team('key-a', waiting.freshness).roster(second.read)];
    await tick();
    first.release();
    expect((await Promise.all(served)).map((r) => r.pageValues[0]![0])).toEqual(['first', 'first']);
    expect([second.runs, waiting.seen]).toEqual([0, [s.now() + 5000]]);
  });

  it('a read that fails frees its slot and keeps nothing', async () => {
    const s = setup({ maxReads: 1 });
    await expect(s.team('key-a', s.call(s.now() + 5000).freshness).roster(reader(new Error('v1 down')).read)).rejects.toThrow('v1 down');
    expect((await s.team('key-a', s.call(s.now() + 5000).freshness).roster(reader(roster('after')).read)).pageValues).toEqual([['after']]);
  });
});
