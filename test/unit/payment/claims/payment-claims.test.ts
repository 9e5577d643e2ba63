// The claims engine over the in-process store: one payment per Idempotency-Key; a keyless payment is not
// paid again while its twin is in flight, when its twin's reply was lost or its outcome unknown, and is
// paid again after a twin answered normally; a claim is moved to `sent` before any write, and a store that
// cannot keep that refuses; a claim whose owner stopped is taken over only when nothing was sent.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { refusedTheApiKey, reply, type LegacyPaymentReply } from '../../../../src/payment/contract.js';
import { ClaimStoreError, type ClaimRecord, type ClaimStore } from '../../../../src/payment/claims/claim-store.js';
import { createMemoryClaimStore, type MemoryClaimStoreOptions } from '../../../../src/gateway/state/claims/claims-memory.js';
import { createPaymentClaims, keylessHolds, normalisedFields, type Charge, type PaidReply, type PaymentClaimsOptions, type SendGate } from '../../../../src/payment/claims/payment-claims.js';
import type { IdempotencyEvent } from '../../../../src/payment/claims/idempotency.js';

const DAY = 24 * 3600 * 1000;
const FIELDS = { client_id: '1', revenue_amount: '5.00', send_email: '0' };

/** A store that records every write, so a test can see what was kept. */
function recorded(store: ClaimStore) {
  const writes: Array<{ op: string; id: string; record: ClaimRecord }> = [];
  const wrapped: ClaimStore = {
    claim: (id, record, ttl, now) => (writes.push({ op: 'claim', id, record }), store.claim(id, record, ttl, now)),
    update: (id, record, options) => (writes.push({ op: 'update', id, record }), store.update(id, record, options)),
    read: (id) => store.read(id),
    settleLease: (...a) => store.settleLease(...a),
    listUnknown: (...a) => store.listUnknown(...a),
    changed: (id, ms) => store.changed(id, ms),
    close: () => store.close(),
  };
  return { store: wrapped, writes };
}

function setup(options: Partial<PaymentClaimsOptions> & { memory?: MemoryClaimStoreOptions } = {}) {
  let t = 1_000_000;
  const now = () => t;
  const events: string[] = [];
  const logged: string[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void logged.push(JSON.parse(line).msg) });
  const { store, writes } = recorded(options.store ?? createMemoryClaimStore({ now, ...options.memory }));
  const claims = createPaymentClaims({
    secret: 'a-secret-of-at-least-thirty-two-characters',
    waitMs: 5_000,
    keylessWindowMs: 600_000,
    logger,
    now,
    onEvent: (e: IdempotencyEvent, keyless: boolean) => events.push(`${keyless ? 'keyless' : 'key'}:${e}`),
    releasesKey: refusedTheApiKey,
    ...options,
    store,
  });
  let payments = 0;
  /** A payment that sends its POST (through the gate) and ends with `charge`. */
  const payWith =
    (charge: Charge, build: (n: number) => LegacyPaymentReply = (n) => reply(12, `payment added (payment id ${n})`)) =>
    async (gate: SendGate): Promise<PaidReply> => {
      await gate.beforeSend();
      return { reply: build(++payments), charge };
    };
  return { claims, store, writes, events, logged, payWith, payments: () => payments, advance: (ms: number) => void (t += ms) };
}

/** A promise and its resolver, to hold a payment in flight. */
function gate<T = void>() {
  let open!: (value: T) => void;
  const opened = new Promise<T>((resolve) => (open = resolve));
  return { open, opened };
}

describe('Idempotency-Key: one payment per key', () => {
  it('concurrent runs with one key pay once; the repeat waits and gets the same reply', async () => {
    const s = setup();
    const hold = gate();
    const slow = async (g: SendGate): Promise<PaidReply> => {
      await hold.opened;
      return s.payWith('paid')(g);
    };
    const first = s.claims.run({ apiKey: 'k', idempotencyKey: 'order-1', fields: FIELDS }, slow);
    const second = s.claims.run({ apiKey: 'k', idempotencyKey: 'order-1', fields: FIELDS }, slow);
    hold.open();
    const a = await first;
    expect(a.kind).toBe('fresh');
    if (a.kind !== 'fresh') return;
    expect(a.reply).toEqual(reply(12, 'payment added (payment id 1)'));
    await a.answered(true);
    expect(await second).toEqual({ kind: 'replayed', reply: reply(12, 'payment added (payment id 1)'), waited: true });
    expect(s.payments()).toBe(1);
    expect(s.events).toEqual(['key:claimed', 'key:waited']);
  });

  it('replays later, catches another payment under the key, and keeps keys apart per API key', async () => {
    const s = setup();
    const run = async (apiKey: string | undefined, fields = FIELDS) => {
      const outcome = await s.claims.run({ apiKey, idempotencyKey: 'order-1', fields }, s.payWith('paid'));
      if (outcome.kind === 'fresh') await outcome.answered(true);
      return outcome;
    };
    expect((await run('k')).kind).toBe('fresh');
    expect(await run('k')).toEqual({ kind: 'replayed', reply: reply(12, 'payment added (payment id 1)'), waited: false });
    expect(await run('k', { ...FIELDS, revenue_amount: '6.00' })).toEqual({ kind: 'mismatch' });
    expect((await run('other-key')).kind).toBe('fresh');
    expect((await run(undefined)).kind).toBe('fresh');
    expect(s.payments()).toBe(3);
    expect(s.events).toEqual(['key:claimed', 'key:replayed', 'key:mismatch', 'key:claimed', 'key:claimed']);
  });

  it("stores what is sent, never the internal error kept for the first call's log line", async () => {
    const s = setup();
    const faulty = { ...reply(8, 'outcome unknown', 500), internalError: new Error('boom') };
    const first = await s.claims.run({ apiKey: 'k', idempotencyKey: 'order-1', fields: FIELDS }, async () => ({ reply: faulty, charge: 'unknown' }));
    if (first.kind === 'fresh') await first.answered(true);
    expect(await s.claims.run({ apiKey: 'k', idempotencyKey: 'order-1', fields: FIELDS }, s.payWith('paid'))).toEqual({
      kind: 'replayed',
      reply: reply(8, 'outcome unknown', 500),
      waited: false,
    });
  });

  it('a payment that threw after its claim was sent: never run again under the key (outcome unknown)', async () => {
    const s = setup();
    const first = s.claims.run({ apiKey: 'k', idempotencyKey: 'order-1', fields: FIELDS }, async (g) => {
      await g.beforeSend();
      throw new Error('boom');
    });
    await expect(first).rejects.toThrow('boom');
    expect(await s.claims.run({ apiKey: 'k', idempotencyKey: 'order-1', fields: FIELDS }, s.payWith('paid'))).toEqual({ kind: 'outcome-unknown' });
    expect(s.payments()).toBe(0);
    expect(s.events).toEqual(['key:claimed', 'key:outcome_unknown']);
  });

  it('a payment that threw before anything was sent leaves its key to the next call, which pays', async () => {
    const s = setup();
    await expect(s.claims.run({ apiKey: 'k', idempotencyKey: 'order-1', fields: FIELDS }, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    const next = await s.claims.run({ apiKey: 'k', idempotencyKey: 'order-1', fields: FIELDS }, s.payWith('paid'));
    expect(next.kind).toBe('fresh');
    expect(s.payments()).toBe(1);
  });

  it('the claim is `sent` before the payment writes, and answered with the reply after', async () => {
    const s = setup();
    let phaseAtSend: string | undefined;
    const outcome = await s.claims.run({ apiKey: 'k', idempotencyKey: 'order-1', fields: FIELDS }, async (g) => {
      await g.beforeSend();
      phaseAtSend = s.writes.at(-1)!.record.phase;
      return { reply: reply(12, 'paid'), charge: 'paid' };
    });
    if (outcome.kind === 'fresh') await outcome.answered(true);
    expect(phaseAtSend).toBe('sent');
    expect(s.writes.map((w) => `${w.op}:${w.record.phase}`)).toEqual(['claim:claimed', 'update:sent', 'update:answered']);
    expect(s.writes.at(-1)!.record).toMatchObject({ phase: 'answered', replays: true, reply: reply(12, 'paid') });
  });

  it('a key expires after 24 hours; a reply refusing the API key is kept a minute only', async () => {
    const s = setup();
    const first = await s.claims.run({ apiKey: 'k', idempotencyKey: 'order-1', fields: FIELDS }, s.payWith('paid'));
    if (first.kind === 'fresh') await first.answered(true);
    s.advance(DAY + 1);
    expect((await s.claims.run({ apiKey: 'k', idempotencyKey: 'order-1', fields: FIELDS }, s.payWith('paid'))).kind).toBe('fresh');
    const refused = await s.claims.run({ apiKey: 'bad', idempotencyKey: 'order-2', fields: FIELDS }, async () => ({ reply: reply(8, 'no key', 401), charge: 'none' }));
    if (refused.kind === 'fresh') await refused.answered(true);
    expect((await s.claims.run({ apiKey: 'bad', idempotencyKey: 'order-2', fields: FIELDS }, s.payWith('paid'))).kind).toBe('replayed');
    s.advance(60_001);
    expect((await s.claims.run({ apiKey: 'bad', idempotencyKey: 'order-2', fields: FIELDS }, s.payWith('paid'))).kind).toBe('fresh');
  });
});

describe('keyless payments: the duplicate window', () => {
  const keyless = (apiKey = 'k', fields: Record<string, string> = FIELDS) => ({ apiKey, idempotencyKey: undefined, fields });

  it('two identical payments each answered normally are both paid: the second is meant', async () => {
    const s = setup();
    for (let i = 0; i < 2; i++) {
      const outcome = await s.claims.run(keyless(), s.payWith('paid'));
      expect(outcome.kind).toBe('fresh');
      if (outcome.kind === 'fresh') await outcome.answered(true);
    }
    expect(s.payments()).toBe(2);
    expect(s.events).toEqual(['keyless:claimed', 'keyless:claimed']);
  });

  it('a payment whose reply never reached its caller is answered to its repeat, not paid again', async () => {
    const s = setup();
    const first = await s.claims.run(keyless(), s.payWith('paid'));
    if (first.kind === 'fresh') await first.answered(false);
    expect(await s.claims.run(keyless(), s.payWith('paid'))).toEqual({ kind: 'replayed', reply: reply(12, 'payment added (payment id 1)'), waited: false });
    expect(s.payments()).toBe(1);
    expect(s.events).toEqual(['keyless:claimed', 'keyless:replayed']);
  });

  it('a payment whose outcome is unknown is answered to its repeats, even when its reply was delivered', async () => {
    const s = setup();
    const first = await s.claims.run(keyless(), s.payWith('unknown', () => reply(8, 'outcome unknown (timeout)', 504)));
    if (first.kind === 'fresh') await first.answered(true);
    for (let i = 0; i < 2; i++) expect(await s.claims.run(keyless(), s.payWith('paid'))).toMatchObject({ kind: 'replayed', reply: reply(8, 'outcome unknown (timeout)', 504) });
    expect(s.payments()).toBe(1);
  });

  it.each(['refused', 'none'] as const)('a payment that paid nothing (%s) lets its repeat go to v1, delivered or not', async (charge) => {
    const s = setup();
    const first = await s.claims.run(keyless(), s.payWith(charge, () => reply(8, 'maintenance', 503)));
    if (first.kind === 'fresh') await first.answered(false);
    expect((await s.claims.run(keyless(), s.payWith('paid'))).kind).toBe('fresh');
    expect(s.payments()).toBe(2);
  });

  it('a repeat while the first is in flight waits and gets its reply, even though the first then releases its claim', async () => {
    const s = setup();
    const hold = gate();
    const first = s.claims.run(keyless(), async (g) => {
      await hold.opened;
      return s.payWith('paid')(g);
    });
    const second = s.claims.run(keyless(), s.payWith('paid'));
    hold.open();
    const a = await first;
    if (a.kind === 'fresh') await a.answered(true);
    expect(await second).toEqual({ kind: 'replayed', reply: reply(12, 'payment added (payment id 1)'), waited: true });
    expect(s.payments()).toBe(1);
    // A third, after both were answered: meant, paid.
    expect((await s.claims.run(keyless(), s.payWith('paid'))).kind).toBe('fresh');
  });

  it('the window: a held claim is forgotten after it; other fields or another API key are another payment', async () => {
    const s = setup();
    const first = await s.claims.run(keyless(), s.payWith('paid'));
    if (first.kind === 'fresh') await first.answered(false);
    expect((await s.claims.run(keyless('k', { ...FIELDS, revenue_amount: '6.00' }), s.payWith('paid'))).kind).toBe('fresh');
    expect((await s.claims.run(keyless('other'), s.payWith('paid'))).kind).toBe('fresh');
    s.advance(600_001);
    expect((await s.claims.run(keyless(), s.payWith('paid'))).kind).toBe('fresh');
    expect(s.payments()).toBe(4);
  });

  it('fields are compared trimmed, without empty ones', async () => {
    expect(normalisedFields({ a: ' 1 ', b: '', c: 'x' })).toEqual({ a: '1', c: 'x' });
    const s = setup();
    const first = await s.claims.run(keyless(), s.payWith('paid'));
    if (first.kind === 'fresh') await first.answered(false);
    expect((await s.claims.run(keyless('k', { ...FIELDS, revenue_amount: ' 5.00', discount: '' }), s.payWith('paid'))).kind).toBe('replayed');
  });

  it('window 0: keyless payments take no claim', async () => {
    const s = setup({ keylessWindowMs: 0 });
    const hold = gate();
    const slow = async (g: SendGate): Promise<PaidReply> => {
      await hold.opened;
      return s.payWith('paid')(g);
    };
    const both = Promise.all([s.claims.run(keyless(), slow), s.claims.run(keyless(), slow)]);
    hold.open();
    expect((await both).map((o) => o.kind)).toEqual(['fresh', 'fresh']);
    expect(s.payments()).toBe(2);
    expect(s.writes).toEqual([]);
  });

  it('what holds a claim: unknown, or paid and not delivered', () => {
    expect([keylessHolds('unknown', true), keylessHolds('unknown', false), keylessHolds('paid', false)]).toEqual([true, true, true]);
    expect([keylessHolds('paid', true), keylessHolds('refused', false), keylessHolds('none', false)]).toEqual([false, false, false]);
  });
});

describe('a store that cannot keep a claim', () => {
  it('refuses at the send gate when the claim cannot be made durable: nothing is written', async () => {
    const memory = createMemoryClaimStore();
    const store: ClaimStore = {
      ...memory,
      claim: (...a) => memory.claim(...a),
      update: async (id, record, options) => {
        if (options?.durable) throw new ClaimStoreError('not-durable', 'Redis replicas did not acknowledge the claim');
        return memory.update(id, record, options);
      },
    };
    const s = setup({ store, now: Date.now });
    let wrote = false;
    const outcome = s.claims.run({ apiKey: 'k', idempotencyKey: 'order-1', fields: FIELDS }, async (g) => {
      await g.beforeSend();
      wrote = true;
      return { reply: reply(12, 'paid'), charge: 'paid' };
    });
    await expect(outcome).rejects.toThrow('Redis replicas did not acknowledge the claim');
    expect(wrote).toBe(false);
  });

  it('a keyed payment refused at the send gate keeps no answer: the retry under the same key pays once the store keeps claims', async () => {
    const memory = createMemoryClaimStore();
    let acknowledges = false;
    const store: ClaimStore = {
      ...memory,
      claim: (...a) => memory.claim(...a),
      update: async (id, record, options) => {
        if (options?.durable && !acknowledges) throw new ClaimStoreError('not-durable', 'Redis replicas did not acknowledge the payment claim');
        return memory.update(id, record, options);
      },
    };
    const s = setup({ store, now: Date.now });
    const refusing = async (g: SendGate): Promise<PaidReply> => {
      try {
        await g.beforeSend();
      } catch {
        return { reply: reply(8, 'refused before sending', 503), charge: 'none' };
      }
      return s.payWith('paid')(g);
    };
    const first = await s.claims.run({ apiKey: 'k', idempotencyKey: 'order-1', fields: FIELDS }, refusing);
    expect(first).toMatchObject({ kind: 'fresh', reply: reply(8, 'refused before sending', 503) });
    if (first.kind === 'fresh') await first.answered(true);
    acknowledges = true;
    const retry = await s.claims.run({ apiKey: 'k', idempotencyKey: 'order-1', fields: FIELDS }, refusing);
    expect(retry).toMatchObject({ kind: 'fresh', reply: reply(12, 'payment added (payment id 1)') });
    expect(s.payments()).toBe(1);
  });

  it.each([
    ['unreachable', 'down', { kind: 'unavailable', reason: 'store-unreachable' }],
    ['not-durable', 'Redis keeps no append-only file', { kind: 'unavailable', reason: 'not-durable', detail: 'Redis keeps no append-only file' }],
  ] as const)('a store refusing the claim (%s): nothing is run; only why it cannot be trusted is told in its own words', async (fault, detail, expected) => {
    const store: ClaimStore = {
      ...createMemoryClaimStore(),
      claim: () => Promise.reject(new ClaimStoreError(fault, detail)),
    };
    const s = setup({ store });
    expect(await s.claims.run({ apiKey: 'k', idempotencyKey: undefined, fields: FIELDS }, s.payWith('paid'))).toEqual(expected);
    expect(s.payments()).toBe(0);
    expect(s.events).toEqual([fault === 'unreachable' ? 'keyless:refused_unavailable' : 'keyless:refused_not_durable']);
  });

  it('a reply whose claim vanished is stored all the same, and logged at error', async () => {
    let inner = createMemoryClaimStore();
    const store: ClaimStore = {
      claim: (...a) => inner.claim(...a),
      update: (...a) => inner.update(...a),
      read: (id) => inner.read(id),
      settleLease: (...a) => inner.settleLease(...a),
      listUnknown: (...a) => inner.listUnknown(...a),
      changed: (id, ms) => inner.changed(id, ms),
      close: () => inner.close(),
    };
    const s = setup({ store, now: Date.now });
    const first = await s.claims.run({ apiKey: 'k', idempotencyKey: 'order-1', fields: FIELDS }, s.payWith('paid'));
    // The store forgets everything while the payment is answered (a Redis restarted empty, say).
    inner = createMemoryClaimStore();
    if (first.kind === 'fresh') await first.answered(true);
    expect(s.logged).toContain('a payment claim vanished from the claims store before its reply was stored: the reply was stored again, so repeats replay it');
    expect(await s.claims.run({ apiKey: 'k', idempotencyKey: 'order-1', fields: FIELDS }, s.payWith('paid'))).toMatchObject({ kind: 'replayed', reply: reply(12, 'payment added (payment id 1)') });
    expect(s.payments()).toBe(1);
  });

  it('close waits for the reply of a payment in flight to be stored', async () => {
    const memory = createMemoryClaimStore();
    const held = gate<boolean>();
    const store: ClaimStore = {
      ...memory,
      claim: (...a) => memory.claim(...a),
      update: async (id, record, options) => (record.phase === 'answered' ? (await held.opened) && memory.update(id, record, options) : memory.update(id, record, options)),
    };
    const s = setup({ store, now: Date.now });
    const first = await s.claims.run({ apiKey: 'k', idempotencyKey: 'order-1', fields: FIELDS }, s.payWith('paid'));
    if (first.kind === 'fresh') void first.answered(true);
    let closed = false;
    const closing = s.claims.close().then(() => (closed = true));
    await Promise.resolve();
    expect(closed).toBe(false);
    held.open(true);
    await closing;
    expect(await memory.read(s.writes[0]!.id)).toMatchObject({ phase: 'answered' });
  });
});

describe('the in-process store', () => {
  it('a full store refuses new claims before any payment, while stored ones still replay; one caller cannot fill it', async () => {
    const s = setup({ memory: { maxEntries: 3, maxEntriesPerApiKey: 2 } });
    const run = async (apiKey: string, key: string) => {
      const o = await s.claims.run({ apiKey, idempotencyKey: key, fields: FIELDS }, s.payWith('paid'));
      if (o.kind === 'fresh') await o.answered(true);
      return o.kind === 'unavailable' ? o.reason : o.kind;
    };
    expect([await run('a', '1'), await run('a', '2'), await run('a', '3')]).toEqual(['fresh', 'fresh', 'full']);
    expect([await run('b', '1'), await run('c', '1')]).toEqual(['fresh', 'full']);
    expect(await run('a', '1')).toBe('replayed');
    s.advance(DAY + 1);
    expect(await run('c', '1')).toBe('fresh');
  });

  it('keeps HMACs only: no API key, Idempotency-Key or field in clear', async () => {
    const s = setup();
    const secretFields = { ...FIELDS, token: 'tok_visa_4242', password: 'hunter2' };
    const o = await s.claims.run({ apiKey: 'api-key-123', idempotencyKey: 'order-77', fields: secretFields }, s.payWith('paid'));
    if (o.kind === 'fresh') await o.answered(true);
    const kept = JSON.stringify(s.writes);
    for (const value of ['api-key-123', 'order-77', 'tok_visa_4242', 'hunter2', '5.00']) expect(kept).not.toContain(value);
  });
});
