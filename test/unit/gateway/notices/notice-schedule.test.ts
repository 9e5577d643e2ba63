import { describe, expect, it } from 'vitest';
import type { BrownoutWindow } from '../../../../src/gateway/brownouts/brownout-schema.js';
import type { Integration } from '../../../../src/gateway/integrations/integration-directory.js';
import { DAY_MS, HIT_GRACE_MS, calledEntries, dueNotices, noticeBody, noticeId, recentCalls, type CalledEntry, type IntegrationCalls, type ScheduleInputs } from '../../../../src/gateway/notices/notice-schedule.js';

const NOW = Date.UTC(2027, 0, 11, 15, 0, 0);
const crm: Integration = { name: 'crm-sync', owner: 'CRM', notify: 'https://hooks.example.com/legacy', fingerprints: ['a'.repeat(64)] };
const shop: Integration = { name: 'shop-widget', owner: 'Shop', notify: undefined, fingerprints: ['b'.repeat(64)] };

function windowOf(overrides: Partial<BrownoutWindow> = {}): BrownoutWindow {
  return { name: 'first-warning', start: Date.UTC(2027, 0, 12, 14), end: Date.UTC(2027, 0, 12, 15), integrations: undefined, except: new Set(), methods: undefined, payments: false, repeat: undefined, ...overrides };
}

const calls = (lastSeenMs: number, methods: string[]): Map<string, IntegrationCalls> => new Map([['crm-sync', { lastSeenMs, recentMethods: new Set(methods) }]]);

function inputs(overrides: Partial<ScheduleInputs> = {}): ScheduleInputs {
  return { now: NOW, integrations: [crm, shop], sunset: undefined, calledToday: new Set(), windows: [], calls: undefined, refused: new Map(), quietDays: 30, where: { guidesUrl: 'https://guides.example.com/legacy/' }, ...overrides };
}

describe('which notices are due', () => {
  it('sunset-call: for an integration that called today, while LEGACY_SUNSET is set; its id is per day', () => {
    const sunset = Date.UTC(2027, 5, 30);
    const due = dueNotices(inputs({ sunset, calledToday: new Set(['crm-sync', 'shop-widget']) }));
    expect(due).toEqual([
      {
        id: noticeId('crm-sync', 'sunset-call', '2027-01-11'),
        type: 'sunset-call',
        integration: 'crm-sync',
        notify: 'https://hooks.example.com/legacy',
        data: { day: '2027-01-11', sunset: '2027-06-30T00:00:00.000Z', guide: 'https://guides.example.com/legacy/crm-sync.html' },
      },
    ]);
    expect(dueNotices(inputs({ calledToday: new Set(['crm-sync']) }))).toEqual([]);
    expect(dueNotices(inputs({ sunset, calledToday: new Set(['crm-sync']), now: NOW + DAY_MS }))[0]!.id).not.toBe(due[0]!.id);
  });

  it('brownout-upcoming: within 24 h of an opening that would refuse a method it called in the last 7 days', () => {
    const w = windowOf({ methods: new Set(['clients']) });
    const recent = calls(NOW - 3 * DAY_MS, ['clients', 'payment']);
    const [notice] = dueNotices(inputs({ windows: [w], calls: recent }));
    expect(notice).toMatchObject({ type: 'brownout-upcoming', id: noticeId('crm-sync', 'brownout-upcoming', 'first-warning@2027-01-12T14:00:00Z') });
    expect(notice!.data).toEqual({ window: 'first-warning', start: '2027-01-12T14:00:00Z', end: '2027-01-12T15:00:00Z', methods: ['clients'], payments: false, guide: 'https://guides.example.com/legacy/crm-sync.html' });
    // More than 24 h before: not yet.
    expect(dueNotices(inputs({ windows: [w], calls: recent, now: w.start - DAY_MS - 1 }))).toEqual([]);
    // Only the payment called, and the window spares payments.
    expect(dueNotices(inputs({ windows: [w], calls: calls(NOW - DAY_MS, ['payment']) }))).toEqual([]);
    // Its last call more than 7 days ago.
    expect(dueNotices(inputs({ windows: [w], calls: calls(NOW - 8 * DAY_MS, ['clients']) }))).toEqual([]);
    // Out of the window's scope.
    expect(dueNotices(inputs({ windows: [windowOf({ except: new Set(['crm-sync']) })], calls: recent }))).toEqual([]);
    expect(dueNotices(inputs({ windows: [windowOf({ integrations: new Set(['other']) })], calls: recent }))).toEqual([]);
    // The payment, with payments: true.
    expect(dueNotices(inputs({ windows: [windowOf({ methods: new Set(['staff']), payments: true })], calls: calls(NOW - DAY_MS, ['payment']) }))).toHaveLength(1);
  });

  it('brownout-upcoming: each opening of a repeated window is its own notice', () => {
    const w = windowOf({ repeat: { everyMs: 7 * DAY_MS, until: Date.UTC(2027, 2, 1) } });
    const recent = calls(NOW, ['clients']);
    const first = dueNotices(inputs({ windows: [w], calls: recent }));
    const second = dueNotices(inputs({ windows: [w], calls: calls(NOW + 7 * DAY_MS, ['clients']), now: NOW + 7 * DAY_MS }));
    expect(first[0]!.data.start).toBe('2027-01-12T14:00:00Z');
    expect(second[0]!.data.start).toBe('2027-01-19T14:00:00Z');
    expect(second[0]!.id).not.toBe(first[0]!.id);
  });

  it('brownout-hit: once the window has closed (and its grace passed), with its refused calls', () => {
    const w = windowOf({ start: NOW - 2 * 3_600_000, end: NOW - HIT_GRACE_MS });
    const refused = new Map([['first-warning@2027-01-11T13:00:00Z', new Map([['crm-sync', 7]])]]);
    const [notice] = dueNotices(inputs({ windows: [w], refused }));
    expect(notice).toMatchObject({ type: 'brownout-hit', data: { window: 'first-warning', start: '2027-01-11T13:00:00Z', end: '2027-01-11T14:58:00Z', refusedCalls: 7 } });
    expect(dueNotices(inputs({ windows: [w], refused, now: NOW - 1 }))).toEqual([]);
    expect(dueNotices(inputs({ windows: [w], refused: new Map() }))).toEqual([]);
    expect(dueNotices(inputs({ windows: [w], refused, now: NOW + DAY_MS }))).toEqual([]);
  });

  it('quiet: QUIET_DAYS after its last call, and not long after that', () => {
    const last = NOW - 30 * DAY_MS;
    const [notice] = dueNotices(inputs({ calls: calls(last, ['clients']) }));
    expect(notice).toMatchObject({ type: 'quiet', id: noticeId('crm-sync', 'quiet', String(last)), data: { lastCall: new Date(last).toISOString(), quietDays: 30 } });
    expect(dueNotices(inputs({ calls: calls(last + 1, ['clients']) }))).toEqual([]);
    expect(dueNotices(inputs({ calls: calls(NOW - 40 * DAY_MS, ['clients']) }))).toEqual([]);
    expect(dueNotices(inputs({ calls: calls(NOW - 10 * DAY_MS, ['clients']), quietDays: 10 }))).toHaveLength(1);
  });

  it('the body: id, type, integration, created, data; never a key or a fingerprint', () => {
    const [notice] = dueNotices(inputs({ sunset: NOW + DAY_MS, calledToday: new Set(['crm-sync']) }));
    const body = noticeBody(notice!, NOW);
    expect(Object.keys(JSON.parse(body) as object)).toEqual(['id', 'type', 'integration', 'created', 'data']);
    expect(body).not.toContain('a'.repeat(64));
  });
});

describe('recent calls from the usage report', () => {
  it('joins an integration\'s keys; the days\' methods when the report counts them, else every method of a recent last call', () => {
    const entries: CalledEntry[] = [
      { name: 'crm-sync', lastSeenMs: NOW - DAY_MS, methods: { clients: 5 }, daily: undefined },
      { name: 'crm-sync', lastSeenMs: NOW - 2 * DAY_MS, methods: { staff: 1, payment: 2 }, daily: [{ day: '2026-12-01', methods: { staff: 1 } }, { day: '2027-01-09', methods: { payment: 2 } }] },
      { name: undefined, lastSeenMs: NOW, methods: { session: 1 }, daily: undefined },
      { name: 'old', lastSeenMs: NOW - 9 * DAY_MS, methods: { clients: 1 }, daily: undefined },
    ];
    const out = recentCalls(entries, NOW);
    expect([...out.keys()]).toEqual(['crm-sync', 'old']);
    expect(out.get('crm-sync')).toEqual({ lastSeenMs: NOW - DAY_MS, recentMethods: new Set(['clients', 'payment']) });
    expect(out.get('old')!.recentMethods.size).toBe(0);
  });
});

describe("the gateway's usage report, as the schedule reads it", () => {
  it('takes the days\' methods when the report counts them, else none', () => {
    const base = { name: 'crm-sync', fingerprint: 'a'.repeat(64), calls: 3, methods: { clients: 3 }, firstSeen: '2027-01-01T00:00:00.000Z', lastSeen: '2027-01-10T00:00:00.000Z', userAgents: [] };
    expect(calledEntries([base])).toEqual([{ name: 'crm-sync', lastSeenMs: Date.UTC(2027, 0, 10), methods: { clients: 3 }, daily: undefined }]);
    expect(calledEntries([{ ...base, daily: { '2027-01-10': { calls: 3, methods: { clients: 3 } } } }])[0]!.daily).toEqual([{ day: '2027-01-10', methods: { clients: 3 } }]);
    expect(calledEntries([{ ...base, daily: { '2027-01-10': 3 } }])[0]!.daily).toBeUndefined();
    expect(calledEntries([{ ...base, name: null, lastSeen: 'never' }])).toEqual([]);
  });
});
