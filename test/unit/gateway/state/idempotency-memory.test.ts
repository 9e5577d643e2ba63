// The in-process Idempotency-Key store: one payment per key, a repeat in flight waits, a reused key with
// another payment is a mismatch, a live key is never forgotten (a full store refuses new keys instead),
// one caller cannot fill the store for the others, and nothing is kept in clear.
import { describe, expect, it } from 'vitest';
import { refusedTheApiKey, reply, type LegacyPaymentReply } from '../../../../src/payment/contract.js';
import type { IdempotencyEvent } from '../../../../src/gateway/state/idempotency.js';
import { createMemoryIdempotencyStore, type MemoryIdempotencyOptions } from '../../../../src/gateway/state/idempotency-memory.js';

const DAY = 24 * 3600 * 1000;

function setup(options: MemoryIdempotencyOptions = {}) {
  let t = 1_000_000;
  const events: IdempotencyEvent[] = [];
  const fullChanges: boolean[] = [];
  const store = createMemoryIdempotencyStore({ now: () => t, onEvent: (e) => events.push(e), onFullChange: (f) => fullChanges.push(f), ...options });
  let payments = 0;
  const pay = async (): Promise<LegacyPaymentReply> => reply(12, `payment added (payment id ${++payments})`);
  const fp = store.fingerprint({ client_id: '1', revenue_amount: '5' });
  return {
    store,
    events,
    fullChanges,
    pay,
    fp,
    payments: () => payments,
    advance: (ms: number) => void (t += ms),
    run: (apiKey: string | undefined, key: string) => store.run(apiKey, key, fp, pay),
  };
}

describe('one payment per key', () => {
  it('concurrent runs with one key pay once; the repeat waits and gets the same reply', async () => {
    const s = setup();
    let release!: () => void;
    const slowPay = async () => {
      await new Promise<void>((resolve) => (release = resolve));
      return s.pay();
    };
    const first = s.store.run('k', 'order-1', s.fp, slowPay);
    const second = s.store.run('k', 'order-1', s.fp, slowPay);
    release();
    const [a, b] = await Promise.all([first, second]);
    expect(a).toEqual({ kind: 'fresh', reply: reply(12, 'payment added (payment id 1)') });
    expect(b).toEqual({ kind: 'replayed', reply: reply(12, 'payment added (payment id 1)') });
    expect(s.payments()).toBe(1);
    expect(s.events).toEqual(['claimed', 'waited']);
  });

  it('replays later, catches another payment under the key, and keeps keys apart per API key', async () => {
    const s = setup();
    expect((await s.run('k', 'order-1')).kind).toBe('fresh');
    expect(await s.run('k', 'order-1')).toEqual({ kind: 'replayed', reply: reply(12, 'payment added (payment id 1)') });
    expect(await s.store.run('k', 'order-1', s.store.fingerprint({ client_id: '1', revenue_amount: '6' }), s.pay)).toEqual({ kind: 'mismatch' });
    expect((await s.run('other-key', 'order-1')).kind).toBe('fresh');
    expect((await s.run(undefined, 'order-1')).kind).toBe('fresh');
    expect(s.payments()).toBe(3);
    expect(s.events).toEqual(['claimed', 'replayed', 'mismatch', 'claimed', 'claimed']);
  });

  it('stores what is sent, never the internal error kept for the first call\'s log line', async () => {
    const s = setup();
    const faulty = { ...reply(8, 'outcome unknown', 500), internalError: new Error('boom') };
    expect(await s.store.run('k', 'order-1', s.fp, async () => faulty)).toEqual({ kind: 'fresh', reply: faulty });
    expect(await s.store.run('k', 'order-1', s.fp, s.pay)).toEqual({ kind: 'replayed', reply: reply(8, 'outcome unknown', 500) });
  });

  it('a payment that threw leaves its outcome unknown: never run again under that key', async () => {
    const s = setup();
    let fail!: (err: Error) => void;
    const first = s.store.run('k', 'order-1', s.fp, () => new Promise((_resolve, reject) => (fail = reject)));
    const waiting = s.run('k', 'order-1');
    fail(new Error('boom'));
    await expect(first).rejects.toThrow('boom');
    expect(await waiting).toEqual({ kind: 'outcome-unknown' });
    expect(await s.run('k', 'order-1')).toEqual({ kind: 'outcome-unknown' });
    expect(s.payments()).toBe(0);
    expect(s.events).toEqual(['claimed', 'outcome_unknown', 'outcome_unknown']);
  });
});

describe('a live key is never forgotten', () => {
  it('past maxEntries a new key is refused (full), and every stored key still replays', async () => {
    const s = setup({ maxEntries: 3 });
    for (const key of ['a', 'b', 'c']) expect((await s.run('k', key)).kind).toBe('fresh');
    expect(s.fullChanges).toEqual([true]);
    for (let i = 0; i < 50; i++) expect(await s.run(`junk-${i % 5}`, `junk-${i}`)).toEqual({ kind: 'unavailable', reason: 'full' });
    for (const key of ['a', 'b', 'c']) expect((await s.run('k', key)).kind).toBe('replayed');
    expect(s.payments()).toBe(3);
    // Told once per change, however many refusals.
    expect(s.fullChanges).toEqual([true]);
    expect(s.events.filter((e) => e === 'refused_full')).toHaveLength(50);
  });

  it('expired keys are swept: the store takes new keys again, and says so once', async () => {
    const s = setup({ maxEntries: 2, ttlMs: DAY });
    await s.run('k', 'a');
    s.advance(1000);
    await s.run('k', 'b');
    expect((await s.run('k', 'c')).kind).toBe('unavailable');
    s.advance(DAY - 1000);
    // 'a' expired; 'b' is one second short of it.
    expect((await s.run('k', 'c')).kind).toBe('fresh');
    expect((await s.run('k', 'b')).kind).toBe('replayed');
    expect(s.fullChanges).toEqual([true, false, true]);
    s.advance(1000);
    expect((await s.run('k', 'b')).kind).toBe('fresh');
    expect(s.payments()).toBe(4);
  });

  it('a payment still in flight is never swept, however late', async () => {
    const s = setup({ maxEntries: 10, ttlMs: 1000 });
    let release!: () => void;
    const first = s.store.run('k', 'slow', s.fp, async () => {
      await new Promise<void>((resolve) => (release = resolve));
      return s.pay();
    });
    s.advance(5000);
    const repeat = s.run('k', 'slow');
    release();
    expect((await first).kind).toBe('fresh');
    expect((await repeat).kind).toBe('replayed');
    expect(s.payments()).toBe(1);
  });
});

describe('one caller cannot fill the store for the others', () => {
  it('past maxEntriesPerApiKey that caller\'s new keys are refused; its stored keys replay; other callers go on', async () => {
    const s = setup({ maxEntries: 100, maxEntriesPerApiKey: 3, ttlMs: DAY });
    expect((await s.run('victim', 'order-1')).kind).toBe('fresh');
    for (let i = 0; i < 3; i++) expect((await s.run('flooder', `junk-${i}`)).kind).toBe('fresh');
    for (let i = 3; i < 40; i++) expect(await s.run('flooder', `junk-${i}`)).toEqual({ kind: 'unavailable', reason: 'full' });
    expect((await s.run('flooder', 'junk-0')).kind).toBe('replayed');
    expect((await s.run('victim', 'order-1')).kind).toBe('replayed');
    expect((await s.run('victim', 'order-2')).kind).toBe('fresh');
    // The store itself is not full: nothing to tell the operator.
    expect(s.fullChanges).toEqual([]);
    s.advance(DAY);
    expect((await s.run('flooder', 'junk-40')).kind).toBe('fresh');
    expect(s.payments()).toBe(6);
  });
});

describe('nothing in clear', () => {
  it('fingerprints are HMACs: no field value in them, the same under one secret, different under another', () => {
    const fields = { token: 'tok_secret', password: 'hunter2', revenue_amount: '5' };
    const a = createMemoryIdempotencyStore({ secret: 's1' });
    const fp = a.fingerprint(fields);
    expect(fp).not.toContain('tok_secret');
    expect(fp).not.toContain('hunter2');
    expect(createMemoryIdempotencyStore({ secret: 's1' }).fingerprint({ revenue_amount: '5', password: 'hunter2', token: 'tok_secret' })).toBe(fp);
    expect(createMemoryIdempotencyStore({ secret: 's2' }).fingerprint(fields)).not.toBe(fp);
    // Without a secret, each process (each store) draws its own.
    expect(createMemoryIdempotencyStore().fingerprint(fields)).not.toBe(createMemoryIdempotencyStore().fingerprint(fields));
  });
});

describe('replies that take no key (v1 refused the API key itself)', () => {
  it('releases the key: made-up API keys cannot fill the store, and a repeat runs again', async () => {
    const s = setup({ maxEntries: 3, releasesKey: refusedTheApiKey });
    const refused = async () => reply(8, 'payment error: the service could not be reached or refused the request (invalid key); no payment was made', 401);
    for (let i = 0; i < 10; i++) {
      expect(await s.store.run(`made-up-key-${i}`, 'order-1', s.fp, refused)).toMatchObject({ kind: 'fresh', reply: { httpStatus: 401 } });
    }
    // The store is not full: another caller's payment takes its key and pays.
    expect(await s.run('real-key', 'order-1')).toEqual({ kind: 'fresh', reply: reply(12, 'payment added (payment id 1)') });
    expect(s.fullChanges).toEqual([]);
    expect(await s.store.run('made-up-key-0', 'order-1', s.fp, refused)).toMatchObject({ kind: 'fresh' });
  });
});
