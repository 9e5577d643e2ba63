import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseId, parsePage } from '../../../src/mapping/paging.js';

const paging = { default: 20, max: 100 };

describe('parsePage', () => {
  it('applies the defaults when start and limit are omitted', () => {
    expect(parsePage([], paging)).toEqual({ ok: true, page: { offset: 0, limit: 20 } });
    expect(parsePage(['40'], paging)).toEqual({ ok: true, page: { offset: 40, limit: 20 } });
  });

  it('clamps a limit above the maximum', () => {
    expect(parsePage(['0', '500'], paging)).toEqual({ ok: true, page: { offset: 0, limit: 100 } });
  });

  it.each([
    [['-1', '5'], 'start must be a whole number of 0 or more'],
    [['a', 'b'], 'start must be a whole number of 0 or more'],
    [['0', '0'], 'limit must be a whole number of 1 or more'],
    [['0', '1.5'], 'limit must be a whole number of 1 or more'],
    [['0', ' 5'], 'limit must be a whole number of 1 or more'],
    [['1e3'], 'start must be a whole number of 0 or more'],
    [['9'.repeat(16)], 'start must be a whole number of 0 or more'],
    [['0', '5', '6'], 'too many path segments: expected /{start}/{limit}'],
  ])('refuses %j', (segments, reason) => {
    expect(parsePage(segments, paging)).toEqual({ ok: false, reason });
  });

  it('always yields 1 <= limit <= max and offset >= 0 when it accepts', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 6 }), { maxLength: 3 }), (segments) => {
        const r = parsePage(segments, paging);
        if (r.ok) {
          expect(r.page.limit).toBeGreaterThanOrEqual(1);
          expect(r.page.limit).toBeLessThanOrEqual(100);
          expect(r.page.offset).toBeGreaterThanOrEqual(0);
        }
      }),
    );
  });
});

describe('parseId', () => {
  it('accepts a whole number and normalises leading zeros', () => {
    expect(parseId(['007'])).toEqual({ ok: true, id: '7' });
  });
  it.each([[['abc']], [['']], [['1', '2']], [[]], [['..']], [['%2e%2e']]])('refuses %j', (segments) => {
    expect(parseId(segments).ok).toBe(false);
  });
});
