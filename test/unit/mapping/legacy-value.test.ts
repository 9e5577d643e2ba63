import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toHourMinute, toLegacyValue, toMoney } from '../../../src/mapping/legacy-value.js';

describe('toLegacyValue', () => {
  it('writes numbers and booleans as strings', () => {
    expect(toLegacyValue(5, 'text', 'keep')).toBe('5');
    expect(toLegacyValue(12.5, 'text', 'keep')).toBe('12.5');
    expect(toLegacyValue(0, 'text', 'keep')).toBe('0');
    expect(toLegacyValue(true, 'text', 'keep')).toBe('1');
    expect(toLegacyValue(false, 'text', 'keep')).toBe('0');
    expect(toLegacyValue('abc', 'text', 'keep')).toBe('abc');
  });

  it('keeps null as null, or "" under the empty policy; absent is null too', () => {
    expect(toLegacyValue(null, 'text', 'keep')).toBeNull();
    expect(toLegacyValue(undefined, 'money', 'keep')).toBeNull();
    expect(toLegacyValue(null, 'hhmm', 'empty')).toBe('');
  });

  it('writes money with two decimals', () => {
    expect(toLegacyValue(45.5, 'money', 'keep')).toBe('45.50');
    expect(toLegacyValue(60, 'money', 'keep')).toBe('60.00');
    expect(toLegacyValue('72.25', 'money', 'keep')).toBe('72.25');
    expect(toMoney(1.005)).toBe('1.01');
    expect(toMoney(-0.001)).toBe('0.00');
    expect(toMoney(-12.345)).toBe('-12.35');
    expect(toLegacyValue('n/a', 'money', 'keep')).toBe('n/a');
  });

  it('cuts HH:MM:SS to HH:MM and leaves anything else alone', () => {
    expect(toLegacyValue('09:30:00', 'hhmm', 'keep')).toBe('09:30');
    expect(toHourMinute('09:30')).toBe('09:30');
    expect(toHourMinute('9:30 am')).toBe('9:30 am');
    expect(toHourMinute('23:59:59.123')).toBe('23:59');
  });

  it('never throws and always answers a string or null, whatever v1 sends', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom('text', 'money', 'hhmm' as const), fc.constantFrom('keep', 'empty' as const), (v, format, nulls) => {
        const out = toLegacyValue(v, format, nulls);
        expect(out === null || typeof out === 'string').toBe(true);
      }),
    );
  });
});
