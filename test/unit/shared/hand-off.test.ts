// A hand-off gives its value once and then holds nothing of it, however long the box itself is kept.
import { describe, expect, it } from 'vitest';
import { handOff, type HandOff } from '../../../src/shared/hand-off.js';
import { isCollected } from '../../helpers/collect-garbage.js';

/** A box of a fresh object, and a weak reference to that object; nothing else holds it. */
function boxOfFresh(): { box: HandOff<object>; ref: WeakRef<object> } {
  const value = { records: Array.from({ length: 100 }, (_, i) => ({ id: i })) };
  return { box: handOff<object>(value), ref: new WeakRef(value) };
}

describe('handOff', () => {
  it('gives its value once; a second take is refused', () => {
    const value = { id: 1 };
    const box = handOff(value);
    expect(box.take()).toBe(value);
    expect(() => box.take()).toThrow('a handed-off value was taken twice');
  });

  it('gives undefined and null as they are, once', () => {
    const box = handOff<unknown>(undefined);
    expect(box.take()).toBeUndefined();
    expect(() => box.take()).toThrow();
    expect(handOff(null).take()).toBeNull();
  });

  it('keeps its value until it is taken, and nothing of it after', async () => {
    const { box, ref } = boxOfFresh();
    expect(await isCollected(ref)).toBe(false);
    box.take();
    expect(await isCollected(ref)).toBe(true);
    expect(box).toBeDefined();
  });

  it('through a promise that is kept, the value goes once it is taken', async () => {
    const { box, ref } = boxOfFresh();
    const kept = Promise.resolve(box);
    (await kept).take();
    expect(await isCollected(ref)).toBe(true);
    expect(await kept).toBe(box);
  });
});
