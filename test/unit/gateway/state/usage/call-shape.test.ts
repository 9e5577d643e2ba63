// A call's shape: its legacy method and the sorted names of its query parameters, never their values; plain
// names only, at most 10; and the UTC days calls are counted under.
import { describe, expect, it } from 'vitest';
import { callShape, oldestKeptDay, utcDay } from '../../../../../src/gateway/state/usage/call-shape.js';

describe('callShape', () => {
  it('is the method alone without a query, else the method and the sorted, distinct names', () => {
    expect(callShape('clients', [])).toBe('clients');
    expect(callShape('client', ['email'])).toBe('client?email');
    expect(callShape('client', ['last_name', 'first_name', 'last_name'])).toBe('client?first_name&last_name');
  });

  it('leaves out names that are not plain, and cuts past 10 names', () => {
    expect(callShape('client', ['id', 'a b', 'x'.repeat(41), 'é', '', 'ids[]'])).toBe('client?id&ids[]');
    const many = Array.from({ length: 12 }, (_, i) => `p${String(i).padStart(2, '0')}`);
    expect(callShape('client', many)).toBe(`client?${many.slice(0, 10).join('&')}&…`);
  });
});

describe('days', () => {
  it('are UTC days; 90 kept means today and the 89 before', () => {
    expect(utcDay(Date.parse('2027-01-12T23:59:59.999Z'))).toBe('2027-01-12');
    expect(utcDay(Date.parse('2027-01-13T00:30:00+01:00'))).toBe('2027-01-12');
    expect(oldestKeptDay(Date.parse('2027-03-31T08:00:00Z'), 90)).toBe('2027-01-01');
    expect(oldestKeptDay(Date.parse('2027-03-31T08:00:00Z'), 1)).toBe('2027-03-31');
  });

  it('are the day of each moment, whatever day was asked before (the text of a day is kept between calls)', () => {
    const moments = ['2027-01-12T23:59:59.999Z', '2027-01-13T00:00:00.000Z', '2027-01-12T00:00:00.000Z', '2027-01-12T12:00:00.000Z', '1969-12-31T23:59:59.999Z', '1970-01-01T00:00:00.000Z'];
    expect(moments.map((m) => utcDay(Date.parse(m)))).toEqual(['2027-01-12', '2027-01-13', '2027-01-12', '2027-01-12', '1969-12-31', '1970-01-01']);
    expect(() => utcDay(Number.NaN)).toThrow(RangeError);
  });
});
