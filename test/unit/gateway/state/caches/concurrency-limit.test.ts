import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createConcurrencyLimit } from '../../../../../src/gateway/state/caches/concurrency-limit.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('concurrency limit', () => {
  it('never runs more than its limit at once, runs every piece of work, first come first served', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 4 }), fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 20 }), async (max, delays) => {
        const limit = createConcurrencyLimit(max);
        let running = 0;
        let most = 0;
        const started: number[] = [];
        const done = await Promise.all(
          delays.map((delay, i) =>
            limit.run(async () => {
              started.push(i);
              most = Math.max(most, ++running);
              for (let k = 0; k < delay; k++) await tick();
              running--;
              if (delay === 3) throw new Error(`failed ${i}`);
              return i;
            }).catch((err: Error) => err.message),
          ),
        );
        expect(most).toBeLessThanOrEqual(max);
        expect(started).toEqual(delays.map((_, i) => i));
        expect(done).toEqual(delays.map((delay, i) => (delay === 3 ? `failed ${i}` : i)));
        expect(limit.waiting()).toBe(0);
      }),
      { numRuns: 100 },
    );
  });
});
