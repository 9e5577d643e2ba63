// The settlement's decisions, pure and on a fake clock: which records are the payment sent (newer than the
// mark, every matched field as sent, in one spelling), what a verdict means at a given time (paid at once;
// "not paid" only past the window and on a second read later; anything else unknown), how the list is read
// back from its end, and one attempt against the in-process claims store (the settle lease, a ledger id
// never the answer of two claims).
import { describe, expect, it } from 'vitest';
import { createMemoryClaimStore } from '../../../../src/gateway/state/claims/claims-memory.js';
import type { ClaimRecord, LedgerTicket } from '../../../../src/payment/claims/claim-store.js';
import { idempotencyDigest } from '../../../../src/payment/claims/idempotency-digest.js';
import { reply } from '../../../../src/payment/contract.js';
import type { SettleMapping } from '../../../../src/payment/payment-mapping.js';
import { judgeLedger, ledgerValue, matchDigests, nextStep } from '../../../../src/payment/settle/ledger-match.js';
import { ledgerSince, newestLedgerId, type LedgerGet } from '../../../../src/payment/settle/ledger-read.js';
import { ledgerTicket } from '../../../../src/payment/settle/ledger-ticket.js';
import { settleClaim, type SettleDeps, type SettleTerms } from '../../../../src/payment/settle/settle-claim.js';

const digest = idempotencyDigest('unit-settle-secret');
const hash = (field: string, value: string) => digest.ledgerValue(field, value);
const SETTLE: SettleMapping = {
  list: 'payments',
  idField: 'id',
  filters: { client_id: 'client_id' },
  match: { client_id: 'client_id', amount: 'amount', note: 'note' },
  shown: { client: 'client_id', amount: 'amount' },
  notPaid: 'not paid',
};
const SENT = { client_id: 7, amount: 45.5, note: 'Tom & Jerry', token: 'tok_secret' };
const record = (id: number, extra: Record<string, unknown> = {}) => ({ object: 'payment', id, client_id: 7, amount: 45.5, note: 'Tom &amp; Jerry', ...extra });

describe('ledgerValue: one spelling for both sides', () => {
  it('numbers as numbers, text trimmed and case-folded, v1 entities read back, nothing as empty', () => {
    expect(['45.50', 45.5, ' 45.5 '].map(ledgerValue)).toEqual(['45.5', '45.5', '45.5']);
    expect([ledgerValue('Tom &amp; Jerry'), ledgerValue(' tom & jerry ')]).toEqual(['tom & jerry', 'tom & jerry']);
    expect([null, undefined, ''].map(ledgerValue)).toEqual(['', '', '']);
  });
});

describe('the ticket', () => {
  it('keeps the filters, the client and amount shown, and the matched fields as HMACs only (never the token)', () => {
    const ticket = ledgerTicket(SETTLE, { afterId: 10, body: SENT }, 5000, hash);
    expect(ticket).toMatchObject({ sentAt: 5000, afterId: 10, filters: { client_id: '7' }, client: '7', amount: '45.5' });
    expect(Object.keys(ticket.match)).toEqual(['client_id', 'amount', 'note']);
    expect(JSON.stringify(ticket)).not.toContain('Jerry');
    expect(JSON.stringify(ticket)).not.toContain('tok_secret');
  });
});

describe('judgeLedger', () => {
  const ticket = { afterId: 10, match: matchDigests({ client_id: 7, amount: 45.5, note: 'Tom & Jerry' }, hash) };
  it('one newer record carrying every field as sent is the payment', () => {
    expect(judgeLedger(ticket, [record(9), record(11), record(12, { amount: 45.51 })], 'id', hash)).toEqual({ kind: 'paid', id: 11 });
  });
  it('records not newer than the mark never count', () => {
    expect(judgeLedger(ticket, [record(9), record(10)], 'id', hash)).toEqual({ kind: 'none' });
  });
  it('two matches are ambiguous; an id already another claim\'s answer is passed over', () => {
    expect(judgeLedger(ticket, [record(11), record(12)], 'id', hash)).toEqual({ kind: 'ambiguous', ids: [11, 12] });
    expect(judgeLedger(ticket, [record(11), record(12)], 'id', hash, new Set([11]))).toEqual({ kind: 'paid', id: 12 });
  });
  it('a field sent empty matches only an empty field', () => {
    const noNote = { afterId: 0, match: matchDigests({ client_id: 7, amount: 45.5, note: undefined }, hash) };
    expect(judgeLedger(noNote, [record(1), record(2, { note: null })], 'id', hash)).toEqual({ kind: 'paid', id: 2 });
  });
});

describe('nextStep on a fake clock', () => {
  const timing = { afterMs: 60_000, recheckMs: 10_000 };
  const sentAt = 1_000_000;
  it('paid at once, whatever the time', () => {
    expect(nextStep({ kind: 'paid', id: 3 }, { sentAt }, sentAt + 1, timing)).toEqual({ kind: 'paid', id: 3 });
  });
  it('none before the window ends: unknown until then', () => {
    expect(nextStep({ kind: 'none' }, { sentAt }, sentAt + 5_000, timing)).toEqual({ kind: 'unknown', nextAt: sentAt + 60_000, why: 'too-early' });
  });
  it('none past the window: noted, read again later; "not paid" only on that second read', () => {
    const at = sentAt + 61_000;
    expect(nextStep({ kind: 'none' }, { sentAt }, at, timing)).toEqual({ kind: 'note-none', nextAt: at + 10_000 });
    expect(nextStep({ kind: 'none' }, { sentAt, noneAt: at }, at + 9_999, timing)).toEqual({ kind: 'unknown', nextAt: at + 10_000, why: 'recheck' });
    expect(nextStep({ kind: 'none' }, { sentAt, noneAt: at }, at + 10_000, timing)).toEqual({ kind: 'not-paid' });
  });
  it('a "none" noted inside the window does not count as the first read', () => {
    expect(nextStep({ kind: 'none' }, { sentAt, noneAt: sentAt + 1 }, sentAt + 70_000, timing).kind).toBe('note-none');
  });
  it('ambiguous or unreadable: unknown, tried again later', () => {
    expect(nextStep({ kind: 'ambiguous', ids: [1, 2] }, { sentAt }, sentAt + 99_000, timing)).toEqual({ kind: 'unknown', nextAt: sentAt + 109_000, why: 'ambiguous' });
    expect(nextStep('unreadable', { sentAt }, sentAt, timing)).toEqual({ kind: 'unknown', nextAt: sentAt + 10_000, why: 'unreadable' });
  });
});

/** A list of `count` records with ids 1..count, as v1 pages it; every read noted. */
function fakeList(count: number) {
  const reads: string[] = [];
  const get: LedgerGet = async (path, query) => {
    reads.push(`${path}?${new URLSearchParams(query).toString()}`);
    const offset = Number(query.offset);
    const limit = Number(query.limit);
    const ids = Array.from({ length: count }, (_, i) => i + 1).slice(offset, offset + limit);
    return { object: 'list', total: count, limit, offset, has_more: offset + ids.length < count, data: ids.map((id) => ({ id })) };
  };
  return { get, reads };
}

describe('reading the list from its end', () => {
  const list = { path: '/payments', filters: { client_id: '7' }, idField: 'id' };
  it('the newest id: one read for a list of one, two otherwise, 0 for an empty list', async () => {
    expect(await newestLedgerId(fakeList(0).get, list)).toBe(0);
    expect(await newestLedgerId(fakeList(1).get, list)).toBe(1);
    const many = fakeList(250);
    expect(await newestLedgerId(many.get, list)).toBe(250);
    expect(many.reads).toEqual(['/payments?client_id=7&offset=0&limit=1', '/payments?client_id=7&offset=249&limit=1']);
  });
  it('every record newer than the mark, page by page backwards until the mark is reached', async () => {
    const l = fakeList(250);
    const newer = await ledgerSince(l.get, list, 120);
    expect(newer.map((r) => r.id)).toEqual([...Array.from({ length: 100 }, (_, i) => 151 + i), ...Array.from({ length: 30 }, (_, i) => 121 + i)]);
    expect(l.reads).toEqual(['/payments?client_id=7&offset=0&limit=1', '/payments?client_id=7&offset=150&limit=100', '/payments?client_id=7&offset=50&limit=100']);
  });
  it('a reply that is not a list is unreadable, never empty', async () => {
    await expect(ledgerSince(async () => ({ data: 'nope' }), list, 0)).rejects.toThrow('not a list');
    await expect(ledgerSince(async () => Promise.reject(new Error('down')), list, 0)).rejects.toThrow('could not be read');
  });
});

describe('settleClaim against the in-process store', () => {
  const timing = { afterMs: 60_000, recheckMs: 10_000 };
  function setup(ledger: Array<Record<string, unknown>>) {
    let t = 1_000_000;
    const store = createMemoryClaimStore({ now: () => t });
    const deps = (holder: string): SettleDeps => ({ store, digest: hash, ledgerId: (id) => digest.ledgerId(id), timing, holder, leaseMs: 30_000, now: () => t });
    const get: LedgerGet = async (_path, query) => {
      const data = ledger.slice(Number(query.offset), Number(query.offset) + Number(query.limit));
      return { object: 'list', total: ledger.length, data };
    };
    const terms: SettleTerms = { settle: SETTLE, get, paidReply: (id) => reply(12, `payment added (payment id ${id})`), notPaidReply: () => reply(8, 'not paid') };
    const ticket: LedgerTicket = { ...ledgerTicket(SETTLE, { afterId: 10, body: SENT }, t, hash), unknown: true };
    const unknown = (owner: string): ClaimRecord => ({ phase: 'answered', fingerprint: owner, caller: 'c', owner, leaseUntil: 0, replays: true, reply: reply(8, 'unknown', 502), ticket });
    return { store, deps, terms, unknown, advance: (ms: number) => void (t += ms), now: () => t };
  }

  it('one match: answered with the paid reply, durably; every repeat replays it', async () => {
    const s = setup([record(9), record(11)]);
    await s.store.claim('a', s.unknown('a'), 600_000, s.now());
    const attempt = await settleClaim(s.deps('r1'), 'a', (await s.store.read('a'))!, s.terms);
    expect(attempt).toMatchObject({ kind: 'paid', paymentId: 11 });
    expect(await s.store.read('a')).toMatchObject({ phase: 'answered', replays: true, reply: { body: { code: 12, response: 'payment added (payment id 11)' } }, ticket: { unknown: false } });
  });

  it('a ledger id already the answer of another claim is not taken twice', async () => {
    const s = setup([record(11)]);
    await s.store.claim('a', s.unknown('a'), 600_000, s.now());
    await s.store.claim('b', s.unknown('b'), 600_000, s.now());
    expect((await settleClaim(s.deps('r1'), 'a', (await s.store.read('a'))!, s.terms)).kind).toBe('paid');
    expect(await settleClaim(s.deps('r1'), 'b', (await s.store.read('b'))!, s.terms)).toEqual({ kind: 'unknown', nextAt: s.now() + 60_000, why: 'too-early' });
  });

  it('none: unknown in the window, noted past it, "not paid" (released) on the second read', async () => {
    const s = setup([record(9)]);
    await s.store.claim('a', s.unknown('a'), 600_000, s.now());
    const read = async () => (await s.store.read('a'))!;
    expect((await settleClaim(s.deps('r1'), 'a', await read(), s.terms)).kind).toBe('unknown');
    s.advance(60_000);
    expect(await settleClaim(s.deps('r1'), 'a', await read(), s.terms)).toEqual({ kind: 'unknown', nextAt: s.now() + 10_000, why: 'recheck' });
    s.advance(10_000);
    expect((await settleClaim(s.deps('r1'), 'a', await read(), s.terms)).kind).toBe('not-paid');
    expect(await read()).toMatchObject({ phase: 'answered', replays: false, reply: { body: { code: 8, response: 'not paid' } } });
  });

  it('one attempt at a time per claim: another holder waits for the lease', async () => {
    const s = setup([record(11)]);
    await s.store.claim('a', s.unknown('a'), 600_000, s.now());
    expect(await s.store.settleLease('a', 'r2', 30_000, s.now())).toBe(true);
    expect(await settleClaim(s.deps('r1'), 'a', (await s.store.read('a'))!, s.terms)).toEqual({ kind: 'unknown', nextAt: s.now() + 1000, why: 'leased' });
    s.advance(30_000);
    expect((await settleClaim(s.deps('r1'), 'a', (await s.store.read('a'))!, s.terms)).kind).toBe('paid');
  });
});
