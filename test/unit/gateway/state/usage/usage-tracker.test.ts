// The usage tracker (GET /usage): fingerprints (the HMAC of the key, never the key), the bounds (fingerprints
// past the limit count under `other`, the first few user agents, cut and cleaned), and the flush to a shared
// store: one batch per flush, nothing asked of a store that is down, a failed batch sent again as it was
// (same sequence number) before anything newer, one log line per change of state.
import { createHmac } from 'node:crypto';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/gateway/logging.js';
import {
  OTHER_FINGERPRINT,
  cleanUserAgent,
  createUsageTracker,
  usageFingerprint,
  type IntegrationUsage,
  type SharedUsageStore,
  type UsageBatch,
} from '../../../../../src/gateway/state/usage/usage-tracker.js';

const SECRET = 'unit-usage-secret-0123456789';
const KEY_A = 'key-ALPHA-Secret-Value-1';
const KEY_B = 'key-BRAVO-Secret-Value-2';

describe('fingerprints', () => {
  it('is the hex HMAC-SHA256 of usage:<key> under the secret, as the documented one-liner computes it', () => {
    expect(usageFingerprint(SECRET, KEY_A)).toBe(createHmac('sha256', SECRET).update(`usage:${KEY_A}`).digest('hex'));
    expect(usageFingerprint(SECRET, KEY_A)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('is stable under one secret, differs between keys and between secrets; a missing key is the empty key', () => {
    expect(usageFingerprint(SECRET, KEY_A)).toBe(usageFingerprint(SECRET, KEY_A));
    expect(usageFingerprint(SECRET, KEY_A)).not.toBe(usageFingerprint(SECRET, KEY_B));
    expect(usageFingerprint(SECRET, KEY_A)).not.toBe(usageFingerprint('another-secret', KEY_A));
    expect(usageFingerprint(SECRET, undefined)).toBe(usageFingerprint(SECRET, ''));
  });

  it('never holds the key or a part of it in the report', async () => {
    const usage = createUsageTracker({ secret: SECRET });
    for (const apiKey of [KEY_A, KEY_B]) usage.record({ apiKey, method: 'clients', userAgent: `client/1.0 (${apiKey})` });
    const text = JSON.stringify(await usage.report());
    for (const key of [KEY_A, KEY_B]) {
      expect(text).not.toContain(key);
      // Any 8-character piece of the key.
      for (let i = 0; i + 8 <= key.length; i += 1) expect(text).not.toContain(key.slice(i, i + 8));
    }
    expect(text).toContain('client/1.0 ([api key])');
  });
});

describe('user agents', () => {
  it('removes control characters and bidi overrides, cuts to the length, drops what is empty', () => {
    expect(cleanUserAgent('curl/8.0\r\nX-Injected: 1\u0007', undefined, 200)).toBe('curl/8.0X-Injected: 1');
    expect(cleanUserAgent('a\u202eb\u0085c', undefined, 200)).toBe('abc');
    expect(cleanUserAgent('x'.repeat(500), undefined, 200)).toBe('x'.repeat(200));
    expect(cleanUserAgent(' \t\u0001 ', undefined, 200)).toBeUndefined();
    expect(cleanUserAgent(undefined, undefined, 200)).toBeUndefined();
  });

  it('keeps the first distinct agents per key, up to the bound', async () => {
    const usage = createUsageTracker({ secret: SECRET, limits: { maxAgentsPerKey: 3 } });
    for (const agent of ['a/1', 'b/1', 'a/1', 'c/1', 'd/1', undefined]) usage.record({ apiKey: KEY_A, method: 'clients', userAgent: agent });
    const [only] = (await usage.report()).integrations;
    expect(only?.userAgents).toEqual(['a/1', 'b/1', 'c/1']);
    expect(only?.calls).toBe(6);
  });
});

describe('counts in process', () => {
  it('counts calls per method, first and last seen, most recently seen first', async () => {
    let clock = Date.parse('2024-05-01T10:00:00Z');
    const usage = createUsageTracker({ secret: SECRET, now: () => clock });
    usage.record({ apiKey: KEY_A, method: 'clients', userAgent: 'a/1' });
    clock += 1000;
    usage.record({ apiKey: KEY_B, method: 'payment', userAgent: undefined });
    clock += 1000;
    usage.record({ apiKey: KEY_A, method: 'clients', userAgent: 'a/1' });
    usage.record({ apiKey: KEY_A, method: 'sessions', userAgent: 'a/1' });
    const report = await usage.report();
    expect(report).toEqual({
      shared: false,
      integrations: [
        {
          name: null,
          fingerprint: usageFingerprint(SECRET, KEY_A),
          calls: 3,
          methods: { clients: 2, sessions: 1 },
          statuses: {},
          paymentCodes: {},
          shapes: { clients: 2, sessions: 1 },
          daily: { '2024-05-01': 3 },
          firstSeen: '2024-05-01T10:00:00.000Z',
          lastSeen: '2024-05-01T10:00:02.000Z',
          userAgents: ['a/1'],
        },
        {
          name: null,
          fingerprint: usageFingerprint(SECRET, KEY_B),
          calls: 1,
          methods: { payment: 1 },
          statuses: {},
          paymentCodes: {},
          shapes: { payment: 1 },
          daily: { '2024-05-01': 1 },
          firstSeen: '2024-05-01T10:00:01.000Z',
          lastSeen: '2024-05-01T10:00:01.000Z',
          userAgents: [],
        },
      ],
    });
  });

  it('counts fingerprints past the bound under `other`, and keeps counting the known ones', async () => {
    const usage = createUsageTracker({ secret: SECRET, limits: { maxFingerprints: 3 } });
    for (let i = 0; i < 10; i += 1) usage.record({ apiKey: `key-${i}`, method: 'clients', userAgent: `agent/${i}` });
    usage.record({ apiKey: 'key-0', method: 'clients', userAgent: undefined });
    const { integrations } = await usage.report();
    expect(integrations).toHaveLength(4);
    const by = new Map(integrations.map((i) => [i.fingerprint, i]));
    expect(by.get(OTHER_FINGERPRINT)?.calls).toBe(7);
    expect(by.get(usageFingerprint(SECRET, 'key-0'))?.calls).toBe(2);
    expect(by.get(usageFingerprint(SECRET, 'key-9'))).toBeUndefined();
  });

  it('names each fingerprint by its integration when the report is made; an unknown one stays, unnamed', async () => {
    const names = new Map([[usageFingerprint(SECRET, KEY_A), 'crm-sync']]);
    const usage = createUsageTracker({ secret: SECRET, nameOf: (fingerprint) => names.get(fingerprint) });
    usage.record({ apiKey: KEY_A, method: 'clients', userAgent: undefined });
    usage.record({ apiKey: KEY_B, method: 'clients', userAgent: undefined });
    const nameOf = async (key: string) => (await usage.report()).integrations.find((i) => i.fingerprint === usageFingerprint(SECRET, key))?.name;
    expect(await nameOf(KEY_A)).toBe('crm-sync');
    expect(await nameOf(KEY_B)).toBeNull();
    // A reload of the names shows at the next report.
    names.set(usageFingerprint(SECRET, KEY_B), 'shop-widget');
    expect(await nameOf(KEY_B)).toBe('shop-widget');
  });

  it('counts the statuses, payment codes, call shapes and UTC days of each key\'s calls', async () => {
    let clock = Date.parse('2027-01-11T23:59:59Z');
    const usage = createUsageTracker({ secret: SECRET, now: () => clock });
    usage.record({ apiKey: KEY_A, method: 'client', userAgent: undefined, shape: 'client?email', status: 200 });
    clock += 1000;
    usage.record({ apiKey: KEY_A, method: 'client', userAgent: undefined, shape: 'client?email', status: 404 });
    usage.record({ apiKey: KEY_A, method: 'payment', userAgent: undefined, shape: 'payment', status: 200, paymentCode: 12 });
    usage.record({ apiKey: KEY_A, method: 'payment', userAgent: undefined, shape: 'payment', status: 200, paymentCode: 11 });
    // The caller left before any reply: counted, without a status.
    usage.record({ apiKey: KEY_A, method: 'clients', userAgent: undefined, shape: 'clients' });
    const [a] = (await usage.report()).integrations;
    expect(a).toMatchObject({
      calls: 5,
      statuses: { '200': 3, '404': 1 },
      paymentCodes: { '11': 1, '12': 1 },
      shapes: { 'client?email': 2, clients: 1, payment: 2 },
      daily: { '2027-01-11': 1, '2027-01-12': 4 },
    });
    expect(Object.keys(a!.shapes)).toEqual(['client?email', 'clients', 'payment']);
  });

  it('keeps the last 90 days: older ones are dropped as the clock moves on, and not reported', async () => {
    const DAY = 86_400_000;
    let clock = Date.parse('2027-01-01T12:00:00Z');
    const usage = createUsageTracker({ secret: SECRET, now: () => clock });
    usage.record({ apiKey: KEY_A, method: 'clients', userAgent: undefined });
    clock += 89 * DAY;
    usage.record({ apiKey: KEY_A, method: 'clients', userAgent: undefined });
    expect((await usage.report()).integrations[0]?.daily).toEqual({ '2027-01-01': 1, '2027-03-31': 1 });
    // Day 91: the first day is no longer reported, and is dropped at the next call.
    clock += DAY;
    expect((await usage.report()).integrations[0]?.daily).toEqual({ '2027-03-31': 1 });
    usage.record({ apiKey: KEY_A, method: 'clients', userAgent: undefined });
    // Asked as of ten days earlier, the first day would be reported if it were still held.
    clock -= 10 * DAY;
    expect((await usage.report()).integrations[0]?.daily).toEqual({ '2027-03-31': 1, '2027-04-01': 1 });
    expect((await usage.report()).integrations[0]?.calls).toBe(3);
  });

  it('counts a key\'s shapes past the bound under (other)', async () => {
    const usage = createUsageTracker({ secret: SECRET, limits: { maxShapesPerKey: 2 } });
    for (const shape of ['client?id', 'client?email', 'client?username', 'client?id', 'client?x']) usage.record({ apiKey: KEY_A, method: 'client', userAgent: undefined, shape });
    expect((await usage.report()).integrations[0]?.shapes).toEqual({ '(other)': 2, 'client?email': 1, 'client?id': 2 });
  });

  it('never throws out of record, whatever it is given', () => {
    const usage = createUsageTracker({ secret: SECRET });
    expect(() => usage.record({ apiKey: KEY_A, method: 'clients', userAgent: 42 as unknown as string })).not.toThrow();
  });
});

interface FakeStore extends SharedUsageStore {
  up: boolean;
  failing: boolean;
  handed: UsageBatch[];
}

/** A shared store in memory that can be down or failing, and records every batch it was handed. */
function fakeStore(): FakeStore {
  const applied = new Map<string, UsageBatch>();
  const store: FakeStore = {
    up: true,
    failing: false,
    handed: [] as UsageBatch[],
    isUp: () => store.up,
    apply(batch: UsageBatch): Promise<void> {
      store.handed.push(batch);
      if (store.failing) return Promise.reject(new Error('Redis gave no answer'));
      applied.set(`${batch.source}:${batch.seq}`, batch);
      return Promise.resolve();
    },
    read(): Promise<IntegrationUsage[]> {
      const calls = new Map<string, number>();
      for (const b of applied.values()) for (const t of b.tallies) calls.set(t.fingerprint, (calls.get(t.fingerprint) ?? 0) + t.calls);
      return Promise.resolve(
        [...calls].map(([fingerprint, n]) => ({ fingerprint, calls: n, methods: {}, statuses: {}, paymentCodes: {}, shapes: {}, daily: {}, firstSeen: '', lastSeen: '', userAgents: [] })),
      );
    },
  };
  return store;
}

function capture() {
  const lines: string[] = [];
  const logger = createLogger('info', new Writable({ write: (chunk: Buffer, _e, done) => (lines.push(chunk.toString()), done()) }));
  return { lines, logger };
}

describe('flushes to a shared store', () => {
  it('hands the counts over in one batch per flush, and nothing when there is nothing new', async () => {
    const store = fakeStore();
    const usage = createUsageTracker({ secret: SECRET, shared: store });
    for (let i = 0; i < 50; i += 1) usage.record({ apiKey: i % 2 ? KEY_A : KEY_B, method: 'clients', userAgent: 'a/1' });
    expect(store.handed).toHaveLength(0);
    await usage.flush();
    expect(store.handed).toHaveLength(1);
    expect(store.handed[0]?.tallies.map((t) => t.calls)).toEqual([25, 25]);
    await usage.flush();
    expect(store.handed).toHaveLength(1);
    expect(await usage.report()).toMatchObject({ shared: true });
    expect((await usage.report()).integrations).toHaveLength(2);
    await usage.close();
  });

  it('asks nothing of a store that is down, and flushes what it counted once it is back', async () => {
    const store = fakeStore();
    store.up = false;
    const usage = createUsageTracker({ secret: SECRET, shared: store });
    usage.record({ apiKey: KEY_A, method: 'clients', userAgent: undefined });
    await usage.flush();
    expect(store.handed).toHaveLength(0);
    store.up = true;
    await usage.flush();
    expect(store.handed).toHaveLength(1);
    await usage.close();
  });

  it('sends a failed batch again as it was (same sequence number) before the newer counts; logs once per change', async () => {
    const store = fakeStore();
    const { lines, logger } = capture();
    const usage = createUsageTracker({ secret: SECRET, shared: store, logger });
    usage.record({ apiKey: KEY_A, method: 'clients', userAgent: undefined });
    store.failing = true;
    await usage.flush();
    usage.record({ apiKey: KEY_B, method: 'payment', userAgent: undefined });
    await usage.flush();
    await usage.flush();
    expect(lines.filter((l) => l.includes('cannot be written to Redis'))).toHaveLength(1);
    store.failing = false;
    await usage.flush();
    const seqs = store.handed.map((b) => b.seq);
    // The first batch, tried three times, then again with success, then the newer counts.
    expect(seqs).toEqual([1, 1, 1, 1, 2]);
    expect(store.handed.at(-1)?.tallies.map((t) => t.fingerprint)).toEqual([usageFingerprint(SECRET, KEY_B)]);
    expect(lines.filter((l) => l.includes('written to Redis again'))).toHaveLength(1);
    const report = await usage.report();
    expect(report.integrations.map((i) => i.calls).sort()).toEqual([1, 1]);
    await usage.close();
    for (const key of [KEY_A, KEY_B]) expect(lines.join('')).not.toContain(key);
  });

  it('flushes what is left on close', async () => {
    const store = fakeStore();
    const usage = createUsageTracker({ secret: SECRET, shared: store });
    usage.record({ apiKey: KEY_A, method: 'clients', userAgent: undefined });
    await usage.close();
    expect(store.handed).toHaveLength(1);
  });
});
