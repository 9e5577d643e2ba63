// The upstream budget plan and the pacer (concurrency and rate), with a fake clock.
import { describe, expect, it } from 'vitest';
import { budgetKey, formatBudgetWarning, planBudget } from '../../src/replay/run/budget.js';
import { createPacer } from '../../src/replay/run/pace.js';

describe('budget', () => {
  it('counts per verb and URL without the key', () => {
    expect(budgetKey('get', 'https://old/api/clients/0/10?api_key=k&x=1')).toBe('GET /api/clients/0/10?x=1');
  });

  it('warns with a plan when a call would exceed the hourly budget', () => {
    const counts = new Map([
      ['GET /api/clients/0/10', 2500],
      ['GET /api/staffs', 400],
    ]);
    const plan = planBudget(counts, 3000, 1000, undefined);
    expect(plan?.overBudget).toEqual([{ call: 'GET /api/clients/0/10', count: 2500 }]);
    expect(plan?.safeRatePerSecond).toBeCloseTo(((1000 / 3600) * 3000) / 2500);
    const text = formatBudgetWarning(plan!).join('\n');
    expect(text).toContain('1000 calls per hour per key');
    expect(text).toContain('GET /api/clients/0/10  2500 calls');
    expect(text).toMatch(/plan: replay with --rate 0\.33\/s \(about 2\.5 h\)/);
    // A rate slow enough needs no warning; a budget nobody exceeds neither.
    expect(planBudget(counts, 3000, 1000, 0.3)).toBeUndefined();
    expect(planBudget(counts, 3000, 5000, undefined)).toBeUndefined();
  });
});

describe('pacer', () => {
  it('holds at most `concurrency` calls in flight', async () => {
    const pacer = createPacer({ concurrency: 2 });
    const r1 = await pacer.acquire();
    const r2 = await pacer.acquire();
    let third = false;
    const p3 = pacer.acquire().then((r) => {
      third = true;
      return r;
    });
    await Promise.resolve();
    expect(third).toBe(false);
    expect(pacer.active).toBe(2);
    r1();
    r1(); // releasing twice frees one slot only
    const r3 = await p3;
    expect(third).toBe(true);
    expect(pacer.active).toBe(2);
    r2();
    r3();
    expect(pacer.active).toBe(0);
  });

  it('spaces call starts evenly for a rate', async () => {
    let now = 1000;
    const sleeps: number[] = [];
    const pacer = createPacer({
      concurrency: 10,
      ratePerSecond: 4,
      now: () => now,
      sleep: async (ms) => {
        sleeps.push(ms);
        now += ms;
      },
    });
    for (let i = 0; i < 4; i++) (await pacer.acquire())();
    expect(sleeps).toEqual([250, 250, 250]);
  });
});
