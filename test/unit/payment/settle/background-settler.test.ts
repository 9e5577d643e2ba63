// The background settler on fake timers and a fake clock: each scan lists the unknown claims, tells their
// count and the oldest's age, and makes one attempt for each that is due (a claim whose last attempt said
// "not before t" is left until then); stop() ends the scans.
import { describe, expect, it } from 'vitest';
import type { ClaimRecord, UnknownClaim } from '../../../../src/payment/claims/claim-store.js';
import type { Timers } from '../../../../src/payment/claims/system-time.js';
import { startBackgroundSettler } from '../../../../src/payment/settle/background-settler.js';
import type { SettleAttempt } from '../../../../src/payment/settle/settle-claim.js';

function fakeTimers() {
  const pending: Array<{ at: number; run: () => void }> = [];
  let now = 1_000_000;
  const timers: Timers = {
    after(ms, run) {
      const entry = { at: now + ms, run };
      pending.push(entry);
      return () => void pending.splice(pending.indexOf(entry), 1);
    },
  };
  return {
    timers,
    now: () => now,
    /** Moves the clock on by `ms`, running what falls due. */
    async advance(ms: number) {
      now += ms;
      for (const due of pending.filter((p) => p.at <= now)) {
        pending.splice(pending.indexOf(due), 1);
        due.run();
      }
      await new Promise((resolve) => setImmediate(resolve));
    },
    pending: () => pending.length,
  };
}

const unknown = (id: string, sentAt: number): UnknownClaim => ({
  id,
  record: { phase: 'answered', fingerprint: 'f', caller: 'c', owner: 'o', leaseUntil: 0, replays: true, ticket: { sentAt, afterId: 0, filters: {}, match: {}, client: '1', amount: '5', unknown: true } } as ClaimRecord,
});

describe('startBackgroundSettler', () => {
  it('scans every everyMs, tells the count and the oldest age, and tries each claim when it is due', async () => {
    const t = fakeTimers();
    let listed = [unknown('a', t.now() - 30_000), unknown('b', t.now() - 5_000)];
    const attempts: string[] = [];
    const scans: Array<[number, number]> = [];
    const settler = startBackgroundSettler({
      claims: {
        listUnknown: async () => listed,
        settle: async (id): Promise<SettleAttempt> => {
          attempts.push(id);
          return id === 'a' ? { kind: 'paid', paymentId: 7, reply: { httpStatus: 200, headers: {}, body: { status: 'success', code: 12, response: 'x' } } } : { kind: 'unknown', nextAt: t.now() + 10_000, why: 'too-early' };
        },
      },
      everyMs: 1000,
      now: t.now,
      timers: t.timers,
      termsFor: () => undefined,
      onScan: (count, age) => scans.push([count, age]),
    });
    await t.advance(1000);
    expect(attempts).toEqual(['a', 'b']);
    expect(scans).toEqual([[2, 31_000]]);
    listed = [listed[1]!];
    await t.advance(1000);
    // b said "not before 10 s from then": not tried again yet.
    expect(attempts).toEqual(['a', 'b']);
    expect(scans.at(-1)).toEqual([1, 7_000]);
    await t.advance(9000);
    expect(attempts).toEqual(['a', 'b', 'b']);
    await settler.stop();
    expect(t.pending()).toBe(0);
  });

  it('a scan that fails is told, and the next one runs', async () => {
    const t = fakeTimers();
    const errors: unknown[] = [];
    let fail = true;
    const scans: number[] = [];
    const settler = startBackgroundSettler({
      claims: {
        listUnknown: async () => {
          if (fail) throw new Error('store down');
          return [];
        },
        settle: async () => ({ kind: 'changed' }),
      },
      everyMs: 1000,
      now: t.now,
      timers: t.timers,
      termsFor: () => undefined,
      onScan: (count) => scans.push(count),
      onError: (err) => errors.push(err),
    });
    await t.advance(1000);
    expect(errors).toHaveLength(1);
    fail = false;
    await t.advance(1000);
    expect(scans).toEqual([0]);
    await settler.stop();
  });
});
