// The list of what is in flight: entries in and out in any order, each counted once, the values listed
// newest first and readable while entries are taken out.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InFlightList, type InFlightEntry } from '../../../src/gateway/in-flight-list.js';

describe('InFlightList', () => {
  it('lists what was added and not taken out, newest first, and counts it', () => {
    const list = new InFlightList<string>();
    const a = list.add('a');
    const b = list.add('b');
    const c = list.add('c');
    expect(list.values()).toEqual(['c', 'b', 'a']);
    expect(list.size).toBe(3);
    list.remove(b);
    expect(list.values()).toEqual(['c', 'a']);
    list.remove(c);
    expect(list.values()).toEqual(['a']);
    list.remove(a);
    expect(list.values()).toEqual([]);
    expect(list.size).toBe(0);
  });

  it('ignores an entry taken out twice', () => {
    const list = new InFlightList<number>();
    const one = list.add(1);
    list.add(2);
    list.remove(one);
    list.remove(one);
    expect(list.values()).toEqual([2]);
    expect(list.size).toBe(1);
  });

  it('finds the newest value that matches, and nothing once it is taken out', () => {
    const list = new InFlightList<{ id: number }>();
    const first = list.add({ id: 1 });
    list.add({ id: 2 });
    expect(list.find((v) => v.id === 1)).toBe(first.value);
    expect(list.find((v) => v.id > 0)?.id).toBe(2);
    list.remove(first);
    expect(list.find((v) => v.id === 1)).toBeUndefined();
  });

  it('gives a copy of the values: entries may be taken out while it is read', () => {
    const list = new InFlightList<number>();
    const entries = [1, 2, 3, 4].map((n) => list.add(n));
    const seen: number[] = [];
    for (const value of list.values()) {
      seen.push(value);
      for (const entry of entries) list.remove(entry);
    }
    expect(seen).toEqual([4, 3, 2, 1]);
    expect(list.size).toBe(0);
  });

  it('matches a plain model over any sequence of adds and removes', () => {
    const step = fc.oneof(fc.record({ add: fc.integer() }), fc.record({ remove: fc.nat(20) }));
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        const list = new InFlightList<number>();
        const added: Array<{ entry: InFlightEntry<number>; live: boolean }> = [];
        for (const s of steps) {
          if ('add' in s) added.push({ entry: list.add(s.add), live: true });
          else if (added.length > 0) {
            const picked = added[s.remove % added.length]!;
            list.remove(picked.entry);
            picked.live = false;
          }
        }
        const live = added.filter((a) => a.live).map((a) => a.entry.value);
        expect(list.values()).toEqual(live.reverse());
        expect(list.size).toBe(live.length);
      }),
      { numRuns: 500 },
    );
  });
});
