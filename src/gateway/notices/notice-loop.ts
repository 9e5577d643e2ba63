// The notices' background loop: every round (every 30 s, and at once when an integration makes its first
// legacy call of a day) it decides what is due (notice-schedule.ts), claims each notice in the store the
// replicas share (notice-store.ts), sends it signed (notice-signature.ts, notice-delivery.ts) and settles it
// once delivered; a failed attempt (a non-2xx, a timeout, no connection) is counted and logged at warn, then
// retried with exponential backoff for 24 h, and given up after. Nothing here runs on a request's path: a
// request only notes that its integration called (noteCall) or was refused by a brownout (noteRefused),
// in memory. The clock and the timers are handed in, so a test drives the rounds without waiting.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { backgroundTimers, systemClock, type Clock, type Timers } from '../../payment/claims/system-time.js';
import type { BrownoutWindow } from '../brownouts/brownout-schema.js';
import type { WhereToMove } from '../brownouts/brownout-reply.js';
import type { Occurrence } from '../brownouts/brownout-windows.js';
import type { Integration } from '../integrations/integration-directory.js';
import type { GatewayMetrics } from '../metrics/gateway-metrics.js';
import { noticeHeaders, safeUrl, type DeliverNotice } from './notice-delivery.js';
import { closedOccurrences, dueNotices, noticeBody, occurrenceKey, recentCalls, utcDay, type CalledEntry, type DueNotice, type IntegrationCalls } from './notice-schedule.js';
import { signNotice } from './notice-signature.js';
import type { NoticeStore } from './notice-store.js';

export interface RetryPolicy {
  /** The first retry's delay; each next one doubles, up to `maxMs`. */
  firstMs: number;
  maxMs: number;
  /** How long after a notice is first decided it is still retried; then given up. */
  forMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { firstMs: 60_000, maxMs: 3_600_000, forMs: 24 * 3_600_000 };
/** How often a round runs (the refusals are told to the shared store at each). */
export const ROUND_EVERY_MS = 30_000;
/** How long a claim lets one replica send a notice before another may take it over. */
const LEASE_MS = 5 * 60_000;

export interface NoticeLoopOptions {
  /** GATEWAY_SECRET: the signature's key. */
  secret: string;
  store: NoticeStore;
  /** The integrations in service (a reload shows at the next round). */
  integrations: () => readonly Integration[];
  windows: () => readonly BrownoutWindow[];
  /** LEGACY_SUNSET (ms); undefined: no `sunset-call`. */
  sunset: number | undefined;
  quietDays: number;
  where: WhereToMove;
  /** The usage report's entries (every replica's with Redis); a rejection skips what needs them this round. */
  usage: () => Promise<readonly CalledEntry[]>;
  deliver: DeliverNotice;
  metrics: Pick<GatewayMetrics, 'noticeFailed'>;
  logger: Logger;
  now?: Clock;
  timers?: Timers;
  retry?: RetryPolicy;
  everyMs?: number;
}

export interface NoticeLoop {
  /** A legacy call of this integration (by name): on its first of a UTC day, a round is run at once. */
  noteCall(integration: string): void;
  /** A call of this integration refused by this opening of a window (the `brownout-hit` count). */
  noteRefused(occurrence: Occurrence, integration: string): void;
  /** One round now, after any under way: resolves once its attempts have ended. */
  runOnce(): Promise<void>;
  /** Stops the rounds, waits for the one under way, and tells the store the refusals still held. */
  close(): Promise<void>;
}

interface Pending {
  notice: DueNotice;
  body: string;
  created: number;
  attempts: number;
  nextAt: number;
}

/** Ids this process is done with, kept a while so a notice still due is not taken up again. */
const FINISHED_KEEP_MS = 8 * 24 * 3_600_000;

class Loop implements NoticeLoop {
  private readonly now: Clock;
  private readonly timers: Timers;
  private readonly retry: RetryPolicy;
  private readonly owner = randomUUID();
  private readonly pending = new Map<string, Pending>();
  private readonly finished = new Map<string, number>();
  private calledOn = { day: '', names: new Set<string>() };
  private refusals = new Map<string, Map<string, number>>();
  private chain: Promise<void> = Promise.resolve();
  private cancel: (() => void) | undefined;
  private closed = false;
  private storeFailing = false;

  constructor(private readonly o: NoticeLoopOptions) {
    this.now = o.now ?? systemClock;
    this.timers = o.timers ?? backgroundTimers;
    this.retry = o.retry ?? DEFAULT_RETRY;
    this.schedule();
  }

  private schedule(): void {
    if (this.closed) return;
    this.cancel = this.timers.after(this.o.everyMs ?? ROUND_EVERY_MS, () => void this.runOnce().finally(() => this.schedule()));
  }

  noteCall(integration: string): void {
    const day = utcDay(this.now());
    if (this.calledOn.day !== day) this.calledOn = { day, names: new Set() };
    if (this.calledOn.names.has(integration)) return;
    this.calledOn.names.add(integration);
    if (this.o.sunset !== undefined && !this.closed) this.timers.after(0, () => void this.runOnce());
  }

  noteRefused(occurrence: Occurrence, integration: string): void {
    const key = occurrenceKey(occurrence);
    const counts = this.refusals.get(key) ?? new Map<string, number>();
    counts.set(integration, (counts.get(integration) ?? 0) + 1);
    this.refusals.set(key, counts);
  }

  runOnce(): Promise<void> {
    this.chain = this.chain.then(() => this.round()).catch((err: unknown) => this.o.logger.warn({ err: (err as Error).message }, 'notices: a round failed'));
    return this.chain;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.cancel?.();
    await this.chain;
    await this.tellRefusals();
  }

  /** The refusals counted here since the last round, added to the shared counts (kept on a failure). */
  private async tellRefusals(): Promise<void> {
    const held = this.refusals;
    this.refusals = new Map();
    for (const [key, counts] of held) {
      try {
        await this.o.store.addRefused(key, counts);
      } catch (err) {
        const again = this.refusals.get(key) ?? new Map<string, number>();
        for (const [name, n] of counts) again.set(name, (again.get(name) ?? 0) + n);
        this.refusals.set(key, again);
        this.storeProblem(err);
      }
    }
  }

  private async round(): Promise<void> {
    await this.tellRefusals();
    const now = this.now();
    for (const [id, at] of this.finished) if (at < now - FINISHED_KEEP_MS) this.finished.delete(id);
    const windows = this.o.windows();
    const calls = await this.o.usage().then(
      (entries) => recentCalls(entries, now) as ReadonlyMap<string, IntegrationCalls>,
      () => undefined,
    );
    const refused = new Map<string, ReadonlyMap<string, number>>();
    for (const o of closedOccurrences(windows, now)) {
      const key = occurrenceKey(o);
      const counts = await this.o.store.refused(key).catch((err: unknown) => this.storeProblem(err));
      if (counts) refused.set(key, counts);
    }
    const due = dueNotices({
      now,
      integrations: this.o.integrations(),
      sunset: this.o.sunset,
      calledToday: this.calledOn.day === utcDay(now) ? this.calledOn.names : new Set(),
      windows,
      calls,
      refused,
      quietDays: this.o.quietDays,
      where: this.o.where,
    });
    for (const notice of due) {
      if (this.pending.has(notice.id) || this.finished.has(notice.id)) continue;
      this.pending.set(notice.id, { notice, body: noticeBody(notice, now), created: now, attempts: 0, nextAt: now });
    }
    await Promise.all([...this.pending.values()].filter((p) => p.nextAt <= now).map((p) => this.attempt(p, now)));
  }

  private finish(p: Pending, now: number): void {
    this.pending.delete(p.notice.id);
    this.finished.set(p.notice.id, now);
  }

  private async attempt(p: Pending, now: number): Promise<void> {
    const { notice } = p;
    const late = now >= p.created + this.retry.forMs;
    let claim;
    try {
      claim = await this.o.store.claim(notice.id, this.owner, LEASE_MS);
      this.storeRecovered();
    } catch (err) {
      this.storeProblem(err);
      if (late) this.finish(p, now);
      else p.nextAt = now + (this.o.everyMs ?? ROUND_EVERY_MS);
      return;
    }
    if (claim === 'done' || (claim === 'held' && late)) return this.finish(p, now);
    if (claim === 'held') {
      // Another replica is sending it: this one takes it over only if that one is gone (its lease runs out).
      p.nextAt = now + (this.o.everyMs ?? ROUND_EVERY_MS);
      return;
    }
    p.attempts += 1;
    const result = await this.o.deliver(notice.notify, p.body, noticeHeaders(signNotice(this.o.secret, p.body, this.now()), notice.type, notice.id));
    const fields = { event: notice.type, integration: notice.integration, noticeId: notice.id, url: safeUrl(notice.notify), attempt: p.attempts };
    if (result.delivered) {
      this.o.logger.info(fields, `notice "${notice.type}" delivered to ${notice.integration}`);
      await this.settle(p, 'delivered', now);
      return;
    }
    this.o.metrics.noticeFailed(notice.type);
    const delay = Math.min(this.retry.maxMs, this.retry.firstMs * 2 ** (p.attempts - 1));
    if (now + delay >= p.created + this.retry.forMs) {
      this.o.logger.warn({ ...fields, reason: result.reason }, `notice "${notice.type}" to ${notice.integration} could not be delivered to ${safeUrl(notice.notify)} (${result.reason}): given up after ${p.attempts} attempts`);
      await this.settle(p, 'given-up', now);
      return;
    }
    p.nextAt = now + delay;
    this.o.logger.warn({ ...fields, reason: result.reason, retryInS: Math.round(delay / 1000) }, `notice "${notice.type}" to ${notice.integration} could not be delivered to ${safeUrl(notice.notify)} (${result.reason}): tried again in ${Math.round(delay / 1000)} s`);
  }

  private async settle(p: Pending, outcome: 'delivered' | 'given-up', now: number): Promise<void> {
    this.finish(p, now);
    // A settle that fails leaves the lease to run out: another replica may then send the notice again,
    // which its id lets the receiver see.
    await this.o.store.settle(p.notice.id, outcome).catch((err: unknown) => this.storeProblem(err));
  }

  /** One warn line per change of the store's state, never one per notice. */
  private storeProblem(err: unknown): undefined {
    if (!this.storeFailing) this.o.logger.warn({ store: this.o.store.kind, reason: err instanceof Error ? err.name : 'unknown' }, 'notices: their store cannot be reached; they are sent once it answers');
    this.storeFailing = true;
    return undefined;
  }

  private storeRecovered(): void {
    if (this.storeFailing) this.o.logger.info({ store: this.o.store.kind }, 'notices: their store answers again');
    this.storeFailing = false;
  }
}

export function createNoticeLoop(options: NoticeLoopOptions): NoticeLoop {
  return new Loop(options);
}
