import { describe, expect, it } from 'vitest';
import type { Integration } from '../../../../src/gateway/integrations/integration-directory.js';
import type { NoticeEvent } from '../../../../src/gateway/metrics/gateway-metrics.js';
import type { DeliveryResult } from '../../../../src/gateway/notices/notice-delivery.js';
import { createNoticeLoop, type NoticeLoop } from '../../../../src/gateway/notices/notice-loop.js';
import { createMemoryNoticeStore, type NoticeStore } from '../../../../src/gateway/notices/notice-store.js';
import { verifyNotice } from '../../../../src/gateway/notices/notice-signature.js';
import type { Timers } from '../../../../src/payment/claims/system-time.js';
import { capturedLogger } from '../../../helpers/captured-logger.js';

const SECRET = 'a-secret-of-at-least-thirty-two-characters';
const crm: Integration = { name: 'crm-sync', owner: 'CRM', notify: 'https://user:pw@hooks.example.com/legacy?token=t', fingerprints: ['a'.repeat(64)] };
const MINUTE = 60_000;

/** A clock and timers the test moves by hand. */
function fakeTime(start: number) {
  let now = start;
  const due: Array<{ at: number; run: () => void }> = [];
  const timers: Timers = {
    after(ms, run) {
      const entry = { at: now + ms, run };
      due.push(entry);
      return () => void due.splice(due.indexOf(entry), 1);
    },
  };
  return { now: () => now, timers, advance: (ms: number) => void (now += ms), pendingTimers: () => due.length };
}

interface Sent {
  body: string;
  headers: Readonly<Record<string, string>>;
}

function setup(answers: DeliveryResult[], store?: NoticeStore, time = fakeTime(Date.UTC(2026, 11, 2, 9))) {
  const sent: Sent[] = [];
  const failed: NoticeEvent[] = [];
  const log = capturedLogger();
  const loop = createNoticeLoop({
    secret: SECRET,
    store: store ?? createMemoryNoticeStore(time.now),
    integrations: () => [crm],
    windows: () => [],
    sunset: Date.UTC(2027, 5, 30),
    quietDays: 30,
    where: {},
    usage: () => Promise.resolve([]),
    deliver: (_url, body, headers) => {
      sent.push({ body, headers });
      return Promise.resolve(answers.shift() ?? { delivered: true });
    },
    metrics: { noticeFailed: (event) => void failed.push(event) },
    logger: log.logger,
    now: time.now,
    timers: time.timers,
  });
  return { loop, sent, failed, log, time };
}

const close = (...loops: NoticeLoop[]) => Promise.all(loops.map((l) => l.close()));

describe('the notices loop', () => {
  it('sends a signed sunset-call once a day for an integration that called', async () => {
    const { loop, sent, time } = setup([]);
    loop.noteCall('crm-sync');
    loop.noteCall('crm-sync');
    await loop.runOnce();
    await loop.runOnce();
    expect(sent).toHaveLength(1);
    const body = JSON.parse(sent[0]!.body) as { type: string; integration: string };
    expect(body).toMatchObject({ type: 'sunset-call', integration: 'crm-sync' });
    expect(verifyNotice(SECRET, sent[0]!.body, sent[0]!.headers['Legacy-Gateway-Signature'], time.now())).toBe(true);
    expect(sent[0]!.headers['Legacy-Gateway-Event']).toBe('sunset-call');
    await close(loop);
  });

  it('two loops sharing a store send a notice once', async () => {
    const time = fakeTime(Date.UTC(2026, 11, 2, 9));
    const store = createMemoryNoticeStore(time.now);
    const a = setup([], store, time);
    const b = setup([], store, time);
    a.loop.noteCall('crm-sync');
    b.loop.noteCall('crm-sync');
    await Promise.all([a.loop.runOnce(), b.loop.runOnce()]);
    await Promise.all([a.loop.runOnce(), b.loop.runOnce()]);
    expect(a.sent.length + b.sent.length).toBe(1);
    await close(a.loop, b.loop);
  });

  it('retries a failure with exponential backoff, counting and logging each without the URL\'s secrets', async () => {
    const { loop, sent, failed, log, time } = setup([{ delivered: false, reason: 'status 500' }, { delivered: false, reason: 'timeout' }]);
    loop.noteCall('crm-sync');
    await loop.runOnce();
    expect(sent).toHaveLength(1);
    time.advance(MINUTE - 1);
    await loop.runOnce();
    expect(sent).toHaveLength(1);
    time.advance(1);
    await loop.runOnce();
    expect(sent).toHaveLength(2);
    time.advance(2 * MINUTE);
    await loop.runOnce();
    expect(sent).toHaveLength(3);
    expect(sent[2]!.body).toBe(sent[0]!.body);
    expect(failed).toEqual(['sunset-call', 'sunset-call']);
    const warns = log.lines.filter((l) => l.level === 40);
    expect(warns.map((l) => l.msg)).toEqual([
      'notice "sunset-call" to crm-sync could not be delivered to https://hooks.example.com/legacy (status 500): tried again in 60 s',
      'notice "sunset-call" to crm-sync could not be delivered to https://hooks.example.com/legacy (timeout): tried again in 120 s',
    ]);
    expect(log.raw.join('\n')).not.toMatch(/token|pw@/);
    await close(loop);
  });

  it('gives up after 24 h of failures, with a warn line, and never sends it again', async () => {
    const down = Array.from({ length: 100 }, () => ({ delivered: false as const, reason: 'connection error (ECONNREFUSED)' }));
    const { loop, sent, log, time } = setup(down);
    loop.noteCall('crm-sync');
    for (let i = 0; i < 26 * 60; i++) {
      await loop.runOnce();
      time.advance(MINUTE);
    }
    const attempts = sent.length;
    // 1, 2, 4, ... 32 minutes, then hourly, within 24 h.
    expect(attempts).toBe(29);
    expect(log.lines.filter((l) => l.level === 40).at(-1)!.msg).toBe(
      `notice "sunset-call" to crm-sync could not be delivered to https://hooks.example.com/legacy (connection error (ECONNREFUSED)): given up after ${attempts} attempts`,
    );
    await close(loop);
  });

  it('runs its rounds on the timers it is given, and stops them on close', async () => {
    const { loop, time } = setup([]);
    expect(time.pendingTimers()).toBe(1);
    await loop.close();
    expect(time.pendingTimers()).toBe(0);
  });
});
