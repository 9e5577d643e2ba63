// The brownout dry run's judgement, pure, at a fixed moment: the openings of a window (open now, to come, over),
// whom it would refuse among a usage report's entries (scope by name, `except`, unnamed keys only with
// `all: true`, read methods and the payment), and the calls counted from the report's best counts: per day and
// method, per day split by the method shares, or per method when the report counts no days (then only for an
// integration called in the last 7 days). The report's `daily` is read in each spelling it may take.
import { describe, expect, it } from 'vitest';
import { brownoutWindows, brownoutsFileSchema } from '../../../src/gateway/brownouts/brownout-schema.js';
import { forecastBrownouts } from '../../../src/retirement/brownout-forecast.js';
import { dailyCalls, lastDays, usageEntries } from '../../../src/retirement/usage-entries.js';

const NOW = Date.parse('2027-01-12T14:30:00Z');
const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

const windows = (yaml: object[]) => brownoutWindows(brownoutsFileSchema.parse({ brownouts: yaml }));

const entry = (name: string | null, fingerprint: string, methods: Record<string, number>, lastSeen: number, daily?: unknown) => ({
  name, fingerprint, calls: Object.values(methods).reduce((a, b) => a + b, 0), methods, firstSeen: iso(lastSeen - 30 * DAY), lastSeen: iso(lastSeen), userAgents: [], ...(daily === undefined ? {} : { daily }),
});

describe('usage entries', () => {
  it('reads daily in each spelling: counts, counts per method, { calls, methods }, a list of days; drops what is not a day', () => {
    expect(dailyCalls({ '2027-01-11': 3, '2027-01-10': { clients: 2, payment: 1 }, '2027-01-09': { calls: 4, methods: { client: 4 } }, 'x': 1, '2027-02-30': 1 })).toEqual([
      { day: '2027-01-09', calls: 4, methods: { client: 4 } },
      { day: '2027-01-10', calls: 3, methods: { clients: 2, payment: 1 } },
      { day: '2027-01-11', calls: 3, methods: undefined },
    ]);
    expect(dailyCalls([{ day: '2027-01-11', calls: 2 }, { date: '2027-01-10', calls: 1 }, { calls: 5 }])).toEqual([
      { day: '2027-01-10', calls: 1, methods: undefined },
      { day: '2027-01-11', calls: 2, methods: undefined },
    ]);
    expect(dailyCalls('nope')).toBeUndefined();
  });

  it('keeps the entries with a fingerprint and a readable last call; a null name is no name', () => {
    const list = usageEntries([entry(null, 'a', { clients: 1 }, NOW), { fingerprint: 'b', lastSeen: 'yesterday' }, null, entry('crm', 'c', {}, NOW, { '2027-01-12': 1 })]);
    expect(list.map((e) => [e.name, e.fingerprint, e.daily?.length])).toEqual([[undefined, 'a', undefined], ['crm', 'c', 1]]);
  });

  it('the last 7 days end with the moment\'s own UTC day', () => {
    expect(lastDays(NOW, 7)).toEqual(['2027-01-06', '2027-01-07', '2027-01-08', '2027-01-09', '2027-01-10', '2027-01-11', '2027-01-12']);
  });
});

describe('the forecast of a window', () => {
  const ws = windows([
    { name: 'open', start: '2027-01-12T14:00:00Z', end: '2027-01-12T15:00:00Z', all: true, methods: ['clients'], repeat: { every: '1d', until: '2027-01-15T14:00:00Z' } },
    { name: 'named', start: '2027-01-20T00:00:00Z', end: '2027-01-20T12:00:00Z', integrations: ['crm', 'ghost'], payments: true },
    { name: 'over', start: '2026-01-01T00:00:00Z', end: '2026-01-02T00:00:00Z', all: true },
  ]);
  const report = usageEntries([
    // Per day and method: 10 days ago does not count.
    entry('crm', 'f1', { clients: 100, payment: 10 }, NOW - DAY, { [iso(NOW - 10 * DAY).slice(0, 10)]: { clients: 90 }, '2027-01-11': { clients: 84, payment: 7 } }),
    // Per day only: 3/4 of its calls are clients.
    entry('shop', 'f2', { clients: 30, services: 10 }, NOW - DAY, { '2027-01-11': 28 }),
    // No days: its per-method counts, as it called in the last 7 days.
    entry(null, 'f3', { clients: 5, client: 2 }, NOW - 2 * DAY),
    // No days, and quiet for 8 days: not hit.
    entry(null, 'f4', { clients: 50 }, NOW - 8 * DAY),
  ]);
  const [open, named, over] = forecastBrownouts(ws, report, NOW);

  it('an opening under way, and those to come', () => {
    expect(open!.openNow).toMatchObject({ start: Date.parse('2027-01-12T14:00:00Z'), end: Date.parse('2027-01-12T15:00:00Z') });
    expect(open!.coming).toBe(3);
    expect(open!.next.map((o) => iso(o.start))).toEqual(['2027-01-13T14:00:00.000Z', '2027-01-14T14:00:00.000Z', '2027-01-15T14:00:00.000Z']);
    expect(over).toMatchObject({ openNow: undefined, coming: 0, hits: [], next: [] });
  });

  it('every integration by its best counts, most calls first; the quiet one not at all', () => {
    expect(open!.hits).toEqual([
      { name: 'crm', fingerprint: 'f1', calls: 84, methods: [['clients', 84]], basis: 'daily', perOpening: 1 },
      { name: 'shop', fingerprint: 'f2', calls: 21, methods: [['clients', 21]], basis: 'daily-share', perOpening: 0 },
      { name: undefined, fingerprint: 'f3', calls: 5, methods: [['clients', 5]], basis: 'methods', perOpening: undefined },
    ]);
  });

  it('a window of named integrations: those alone, the payment with payments: true, the names the report lacks', () => {
    expect(named!.hits.map((h) => [h.name, h.calls, h.methods])).toEqual([['crm', 91, [['clients', 84], ['payment', 7]]]]);
    expect(named!.hits[0]!.perOpening).toBe(Math.round((91 * 12) / (7 * 24)));
    expect(named!.unseen).toEqual(['ghost']);
  });

  it('without a report: the openings and no hits', () => {
    const [alone] = forecastBrownouts(ws, undefined, NOW);
    expect(alone).toMatchObject({ coming: 3, hits: [], unseen: [] });
  });

  it('except spares an integration by name', () => {
    const [spared] = forecastBrownouts(windows([{ name: 'w', start: '2027-01-13T00:00:00Z', end: '2027-01-13T01:00:00Z', all: true, except: ['crm'] }]), report, NOW);
    expect(spared!.hits.map((h) => h.fingerprint)).toEqual(['f2', 'f3']);
  });
});
