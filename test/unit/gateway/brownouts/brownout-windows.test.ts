// The brownout window math, at given moments (no clock): when a window and its repeats are open, whom and
// what they refuse, what is coming, and the Retry-After to an occurrence's end; and the file's schema.
import { describe, expect, it } from 'vitest';
import { brownoutsFileSchema, brownoutWindows, type BrownoutWindow } from '../../../../src/gateway/brownouts/brownout-schema.js';
import { comingOccurrences, coversIntegration, coversMethod, openOccurrence, refusingOccurrence, secondsToEnd } from '../../../../src/gateway/brownouts/brownout-windows.js';

const T = (iso: string) => Date.parse(iso);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

function windows(brownouts: unknown[]): BrownoutWindow[] {
  return brownoutWindows(brownoutsFileSchema.parse({ brownouts }));
}

const weekly = windows([
  { name: 'weekly', start: '2027-01-12T14:00:00Z', end: '2027-01-12T15:00:00Z', integrations: ['crm-sync', 'shop-widget'], except: ['shop-widget'], methods: ['clients'], repeat: { every: '7d', until: '2027-01-26T14:00:00Z' } },
])[0]!;

describe('openOccurrence', () => {
  it('is open from start (included) to end (excluded), on every repeat up to until', () => {
    expect(openOccurrence(weekly, T('2027-01-12T13:59:59.999Z'))).toBeUndefined();
    expect(openOccurrence(weekly, T('2027-01-12T14:00:00Z'))).toMatchObject({ start: T('2027-01-12T14:00:00Z'), end: T('2027-01-12T15:00:00Z') });
    expect(openOccurrence(weekly, T('2027-01-12T15:00:00Z'))).toBeUndefined();
    expect(openOccurrence(weekly, T('2027-01-19T14:30:00Z'))).toMatchObject({ start: T('2027-01-19T14:00:00Z') });
    // The opening at until itself is the last.
    expect(openOccurrence(weekly, T('2027-01-26T14:59:00Z'))).toMatchObject({ start: T('2027-01-26T14:00:00Z') });
    expect(openOccurrence(weekly, T('2027-02-02T14:30:00Z'))).toBeUndefined();
  });

  it('a window without repeat opens once', () => {
    const once = windows([{ name: 'once', start: '2027-01-12T14:00:00+01:00', end: '2027-01-12T16:00:00+01:00', all: true }])[0]!;
    expect(openOccurrence(once, T('2027-01-12T13:30:00Z'))).toMatchObject({ start: T('2027-01-12T13:00:00Z'), end: T('2027-01-12T15:00:00Z') });
    expect(openOccurrence(once, T('2027-01-19T13:30:00Z'))).toBeUndefined();
  });
});

describe('whom and what a window refuses', () => {
  it('named integrations less except; every integration, named or not, with all', () => {
    expect(coversIntegration(weekly, 'crm-sync')).toBe(true);
    expect(coversIntegration(weekly, 'shop-widget')).toBe(false);
    expect(coversIntegration(weekly, undefined)).toBe(false);
    const all = windows([{ name: 'all', start: '2027-01-12T14:00:00Z', end: '2027-01-12T15:00:00Z', all: true, except: ['crm-sync'] }])[0]!;
    expect(coversIntegration(all, undefined)).toBe(true);
    expect(coversIntegration(all, 'other')).toBe(true);
    expect(coversIntegration(all, 'crm-sync')).toBe(false);
  });

  it('the listed read methods (every one by default), the payment only with payments: true', () => {
    expect(coversMethod(weekly, 'read', 'clients')).toBe(true);
    expect(coversMethod(weekly, 'read', 'client')).toBe(false);
    expect(coversMethod(weekly, 'payment', 'payment')).toBe(false);
    const [reads, pays] = windows([
      { name: 'reads', start: '2027-01-12T14:00:00Z', end: '2027-01-12T15:00:00Z', all: true },
      { name: 'pays', start: '2027-01-12T14:00:00Z', end: '2027-01-12T15:00:00Z', all: true, payments: true },
    ]);
    expect(coversMethod(reads!, 'read', 'anything')).toBe(true);
    expect(coversMethod(reads!, 'payment', 'payment')).toBe(false);
    expect(coversMethod(pays!, 'payment', 'payment')).toBe(true);
  });

  it('refusingOccurrence: the first open window, in the file\'s order, that covers the call', () => {
    const list = windows([
      { name: 'a', start: '2027-01-12T14:00:00Z', end: '2027-01-12T15:00:00Z', integrations: ['x'] },
      { name: 'b', start: '2027-01-12T14:30:00Z', end: '2027-01-12T16:00:00Z', all: true },
    ]);
    expect(refusingOccurrence(list, { integration: 'x', kind: 'read', method: 'clients' }, T('2027-01-12T14:45:00Z'))?.window.name).toBe('a');
    expect(refusingOccurrence(list, { integration: 'y', kind: 'read', method: 'clients' }, T('2027-01-12T14:45:00Z'))?.window.name).toBe('b');
    expect(refusingOccurrence(list, { integration: 'y', kind: 'read', method: 'clients' }, T('2027-01-12T14:15:00Z'))).toBeUndefined();
  });
});

describe('comingOccurrences and secondsToEnd', () => {
  it('lists the openings that begin within the span, by start', () => {
    const coming = comingOccurrences([weekly], T('2027-01-12T14:30:00Z'), T('2027-01-12T14:30:00Z') + 30 * DAY);
    expect(coming.map((o) => new Date(o.start).toISOString())).toEqual(['2027-01-19T14:00:00.000Z', '2027-01-26T14:00:00.000Z']);
  });

  it('rounds the seconds left up, never below 1', () => {
    const o = openOccurrence(weekly, T('2027-01-12T14:00:00Z'))!;
    expect(secondsToEnd(o, T('2027-01-12T14:00:00Z'))).toBe(3600);
    expect(secondsToEnd(o, T('2027-01-12T14:59:59.500Z'))).toBe(1);
    expect(secondsToEnd(o, T('2027-01-12T14:00:00.200Z'))).toBe(3600);
  });
});

describe('the schema', () => {
  const problem = (brownouts: unknown[]) => {
    const parsed = brownoutsFileSchema.safeParse({ brownouts });
    return parsed.success ? undefined : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
  };
  const base = { name: 'w', start: '2027-01-12T14:00:00Z', end: '2027-01-12T15:00:00Z' };

  it('refuses a window that ends before it starts, one without a scope or with both, a local time, an unknown key', () => {
    expect(problem([{ ...base, end: '2027-01-12T13:00:00Z', all: true }])).toEqual(['brownouts.0.end: must be after start']);
    expect(problem([base])?.[0]).toMatch(/^brownouts\.0\.all: say `all: true` or list `integrations`/);
    expect(problem([{ ...base, all: true, integrations: ['x'] }])?.[0]).toMatch(/^brownouts\.0\.all:/);
    expect(problem([{ ...base, start: '2027-01-12T14:00:00', all: true }])?.[0]).toMatch(/^brownouts\.0\.start: must be a date and time with its offset/);
    expect(problem([{ ...base, all: true, payment: true }])?.[0]).toMatch(/^brownouts\.0: Unrecognized key/);
  });

  it('refuses a repeat shorter than the window, an until before the start, two windows of one name, payment in methods', () => {
    expect(problem([{ ...base, all: true, repeat: { every: '0h', until: '2027-02-01T00:00:00Z' } }])?.[0]).toMatch(/^brownouts\.0\.repeat\.every: must be a number of days or hours/);
    expect(problem([{ ...base, end: '2027-01-12T17:00:00Z', all: true, repeat: { every: '2h', until: '2027-02-01T00:00:00Z' } }])).toEqual(["brownouts.0.repeat.every: must be at least the window's length (occurrences may not overlap)"]);
    expect(problem([{ ...base, all: true, repeat: { every: '7d', until: '2027-01-01T00:00:00Z' } }])).toEqual(['brownouts.0.repeat.until: must not be before start']);
    expect(problem([{ ...base, all: true }, { ...base, all: true }])).toEqual(['brownouts.1.name: "w" names two windows']);
    expect(problem([{ ...base, all: true, methods: ['payment'] }])).toEqual(['brownouts.0.methods: the payment is refused with `payments: true`, not in methods']);
  });
});
