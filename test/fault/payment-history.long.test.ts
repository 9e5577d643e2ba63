// Payments under randomized faults, checked as a history. Two groups of three `node dist/cli.js serve`
// replicas run side by side against one fake v1 that keeps a real ledger (test/helpers/faulty-ledger-
// upstream.ts): `pg-claims` keeps its payment claims in a real PostgreSQL (IDEMPOTENCY_URL), `redis-claims` in
// a real redis-server with its append-only file (REDIS_URL). Side by side rather than one phase per store:
// each store gets the whole schedule, and the run takes the time of one phase (the machine's two cores
// are shared by everything here, so the groups stay small).
//
// A seeded schedule (test/helpers/fault-schedule.ts) kills replicas (SIGKILL, started again a moment later)
// and pauses them (SIGSTOP/SIGCONT; each group gets a pause longer than the claim's 10 s lease), kills and
// pauses PostgreSQL and Redis; v1 answers some payment POSTs late (within the gateway's timeout or past
// it), drops the connection after charging, or answers 500 after charging or without. Simulated callers
// (keyed with an Idempotency-Key, or keyless) send each payment to a replica and, when they get no answer
// (a reset, a refused connection, their own timeout) or a 5xx with legacy code 8, send it again to another
// replica, within a bounded patience (attempts and time), honouring Retry-After.
//
// Then, per payment: at most one POST made a payment at v1, and none was sent after it (a POST v1 answered
// 500 without recording anything made none: its claim is settled "not paid" and released, so a caller's
// later attempt pays, as designed); every "paid" answer (code 12) names the record that POST made; every
// "not paid" answer (the settlement's code 8) has no record in the ledger; and at least 95% of payments
// got a final answer (paid or not paid). One line is printed on every run: payments, POSTs, final
// answers (paid / not paid), still unknown, and the slowest time to a final answer.
//
// The seed is printed; PAYMENT_FAULT_SEED=<seed> runs the same schedule and v1 faults again (the timing of
// the processes still varies). The whole history (every attempt: caller, replica, times, status, body with
// secrets masked; v1's POSTs and ledger; the faults) is written to
// test-results/payment-history/seed-<seed>.json (gitignored), and the replicas' log lines beside it
// (seed-<seed>.log); when a check fails, the test's output names that file and prints the offending
// payments' entries.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPrng, type Prng } from '../../src/sandbox/prng.js';
import { faultSchedule, type FaultGroup, type ScheduledFault } from '../helpers/fault-schedule.js';
import { startFaultyLedgerUpstream, type FaultyLedgerUpstream, type FaultyPostBehaviour } from '../helpers/faulty-ledger-upstream.js';
import { startGatewayProcess, until, type GatewayProcess } from '../helpers/gateway-process.js';
import { checkHistory, masked, summarize, summaryLine, type FaultEvent, type HistoryAttempt, type HistoryPayment, type PaymentHistory } from '../helpers/payment-history.js';
import { startTestPostgres, type TestPostgres } from '../helpers/postgres-server.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';

const SEED = process.env.PAYMENT_FAULT_SEED === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(process.env.PAYMENT_FAULT_SEED);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const HISTORY_DIR = path.join(ROOT, 'test-results', 'payment-history');

const GATEWAY_SECRET = 'payment-history-gateway-secret-0123456789abcdef';
const callerKey = (caller: string) => `caller-key-HISTORY-${caller}`;
const tokenOf = (payment: string) => `tok_visa_HISTORY_${payment}_SECRET`;

/** The gateway's settings: a v1 call waits 2 s, an unknown outcome may be settled "not paid" 4 s after its
 * POST (and a second read 4 s later); a repeat waits up to 3 x 2 s + 2 s. */
const UPSTREAM_TIMEOUT_MS = 2000;
const SETTLE_AFTER_S = 4;
/** The claim's lease (DEFAULT_LEASE_MS): each replica group is paused once for longer. */
const LEASE_MS = 10_000;

/** The callers: per group, CALLERS callers each make PAYMENTS_EACH payments one after another. */
const CALLERS = 6;
const PAYMENTS_EACH = 6;
/** A caller gives up an attempt after this (then tries another replica), and a payment after MAX_ATTEMPTS
 * attempts or PATIENCE_MS from its first. */
const CALLER_TIMEOUT_MS = 10_000;
const MAX_ATTEMPTS = 15;
const PATIENCE_MS = 100_000;
/** Faults are injected from FAULTS_FROM_MS to FAULTS_UNTIL_MS of the traffic; payments start until
 * TRAFFIC_UNTIL_MS. */
const FAULTS_FROM_MS = 2000;
const FAULTS_UNTIL_MS = 45_000;
const TRAFFIC_UNTIL_MS = 40_000;

const NOT_PAID = "payment error: the payment's outcome was unknown, and v1's payments list shows that no payment was made; it can be sent again";

const REPLICAS = 3;
const GROUPS: readonly FaultGroup[] = [
  { name: 'pg-claims', slots: REPLICAS, pauseMs: [2000, 8000], downMs: [500, 3000], longPauseMs: LEASE_MS },
  { name: 'redis-claims', slots: REPLICAS, pauseMs: [2000, 8000], downMs: [500, 3000], longPauseMs: LEASE_MS },
  { name: 'postgres', slots: 0, pauseMs: [1000, 5000], downMs: [500, 3000] },
  { name: 'redis', slots: 0, pauseMs: [1000, 5000], downMs: [500, 3000] },
];

const started = Date.now();
const now = () => Date.now() - started;
const faults: FaultEvent[] = [];
const event = (action: string, target: string) => void faults.push({ at: now(), action, target });

/** What v1 does with each payment's first POST: a seeded shuffle of a pool holding every fault, so that
 * every fault is dealt whatever the seed. */
function v1Faults(prng: Prng, count: number): FaultyPostBehaviour[] {
  const pool: Array<() => FaultyPostBehaviour> = [
    () => ({ kind: 'pay' }),
    () => ({ kind: 'pay' }),
    () => ({ kind: 'pay' }),
    () => ({ kind: 'pay' }),
    () => ({ kind: 'pay' }),
    () => ({ kind: 'pay' }),
    () => ({ kind: 'late', delayMs: prng.int(UPSTREAM_TIMEOUT_MS * 0.2, UPSTREAM_TIMEOUT_MS * 0.7) }),
    () => ({ kind: 'late', delayMs: prng.int(UPSTREAM_TIMEOUT_MS + 300, UPSTREAM_TIMEOUT_MS + 2000) }),
    () => ({ kind: 'charge-then-drop' }),
    () => ({ kind: 'charge-then-500' }),
    () => ({ kind: '500' }),
  ];
  const dealt: FaultyPostBehaviour[] = [];
  while (dealt.length < count) {
    const round = pool.map((make) => ({ make, order: prng.next() })).sort((a, b) => a.order - b.order);
    dealt.push(...round.map((r) => r.make()));
  }
  return dealt.slice(0, count);
}

interface Replica {
  name: string;
  process: GatewayProcess;
}

interface Group {
  name: string;
  env: Record<string, string>;
  slots: Replica[];
  /** Every replica it ran, the killed ones included (their log lines are kept). */
  all: Replica[];
  generation: number;
}

let v1: FaultyLedgerUpstream;
let postgres: TestPostgres;
let redis: TestRedis;
const groups: Group[] = [];
const payments: HistoryPayment[] = [];
const secrets: string[] = [GATEWAY_SECRET];

/** Starts a replica for a slot, again while its claims store is down or the machine is slow (bounded). */
async function startReplica(group: Group, slot: number): Promise<Replica> {
  let lastError: unknown;
  for (let attempt = 0; attempt < 10; attempt++) {
    try {
      const gateway = await startGatewayProcess(v1.url, group.env);
      const replica = { name: `${group.name}/${slot + 1}#${++group.generation}`, process: gateway };
      group.all.push(replica);
      return replica;
    } catch (err) {
      lastError = err;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
  throw lastError;
}

/** Runs one group's faults in order, each from its time on (a fault waits for the one before it to end). */
async function runFaults(schedule: readonly ScheduledFault[]): Promise<void> {
  const waitUntil = (at: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, at - now())));
  for (const fault of schedule) {
    await waitUntil(trafficStart + fault.at);
    const [groupName, slotText] = fault.target.split('/');
    if (slotText !== undefined) {
      const group = groups.find((g) => g.name === groupName)!;
      const slot = Number(slotText) - 1;
      const replica = group.slots[slot]!;
      if (fault.action === 'kill-9') {
        event('kill-9', replica.name);
        await replica.process.stop('SIGKILL');
        await waitUntil(now() + fault.forMs);
        group.slots[slot] = await startReplica(group, slot);
        event('started', group.slots[slot].name);
      } else {
        event(`pause ${fault.forMs} ms`, replica.name);
        replica.process.child.kill('SIGSTOP');
        await waitUntil(now() + fault.forMs);
        replica.process.child.kill('SIGCONT');
        event('resume', replica.name);
      }
      continue;
    }
    const server = fault.target === 'postgres' ? postgres : redis;
    if (fault.action === 'kill-9') {
      event('kill-9', fault.target);
      await server.kill();
      await waitUntil(now() + fault.forMs);
      await server.start();
      event('started', fault.target);
    } else {
      event(`pause ${fault.forMs} ms`, fault.target);
      server.pause();
      await waitUntil(now() + fault.forMs);
      server.resume();
      event('resume', fault.target);
    }
  }
}

let trafficStart = 0;

/** One HTTP attempt of a payment: its record in the history. */
async function attempt(payment: HistoryPayment, replica: Replica, fields: Record<string, string>): Promise<HistoryAttempt> {
  const sentAt = now();
  const headers: Record<string, string> = { 'x-api-key': callerKey(payment.caller) };
  if (payment.keyed) headers['idempotency-key'] = `order-${SEED}-${payment.name}`;
  try {
    const res = await fetch(`${replica.process.url}/api/payment`, {
      method: 'POST',
      body: new URLSearchParams(fields),
      headers,
      signal: AbortSignal.timeout(CALLER_TIMEOUT_MS),
    });
    const text = await res.text();
    const retryAfter = res.headers.get('retry-after');
    return {
      replica: replica.name,
      sentAt,
      answeredAt: now(),
      status: res.status,
      body: masked(text, secrets),
      ...(res.headers.get('idempotent-replayed') === 'true' ? { replayed: true } : {}),
      ...(retryAfter === null ? {} : { retryAfter }),
    };
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
    return { replica: replica.name, sentAt, answeredAt: now(), status: `no answer: ${cause}` };
  }
}

/** Whether a caller sends the payment again: no answer, or a 5xx with code 8. */
function retries(a: HistoryAttempt): boolean {
  if (typeof a.status !== 'number') return true;
  if (a.status < 500) return false;
  try {
    return (JSON.parse(a.body ?? '') as { code?: unknown }).code === 8;
  } catch {
    return false;
  }
}

/** A payment sent until it gets an answer it need not repeat, or the caller's patience ends; each retry to
 * another replica than the last. */
async function pay(prng: Prng, group: Group, payment: HistoryPayment): Promise<void> {
  const fields = { client_id: String(payment.clientId), revenue_amount: payment.amount, send_email: '0', token: tokenOf(payment.name) };
  const giveUpAt = now() + PATIENCE_MS;
  let last = -1;
  for (let n = 1; n <= MAX_ATTEMPTS; n++) {
    const choices = group.slots.map((_, i) => i).filter((i) => i !== last);
    last = prng.pick(choices);
    const a = await attempt(payment, group.slots[last]!, fields);
    payment.attempts.push(a);
    if (!retries(a)) return;
    const retryAfterMs = a.retryAfter === undefined ? undefined : Number(a.retryAfter) * 1000;
    const delay = Math.min(retryAfterMs ?? Math.min(300 * n, 3000), 5000) + prng.int(0, 500);
    if (now() + delay >= giveUpAt) return;
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

/** A caller: its payments one after another, with a pause between them (spread over the traffic time). */
async function caller(prng: Prng, group: Group, name: string, first: number, keyedShare: number): Promise<void> {
  for (let i = 0; i < PAYMENTS_EACH; i++) {
    const n = first + i;
    const payment: HistoryPayment = {
      name: `p${n}`,
      cluster: group.name,
      caller: name,
      keyed: prng.chance(keyedShare),
      clientId: 1 + (n % 4),
      amount: `${10 + n}.${String(prng.int(10, 99))}`,
      attempts: [],
    };
    secrets.push(tokenOf(payment.name));
    payments.push(payment);
    await pay(prng, group, payment);
    const pause = prng.int(0, Math.floor(TRAFFIC_UNTIL_MS / PAYMENTS_EACH));
    if (now() - trafficStart + pause >= TRAFFIC_UNTIL_MS) continue;
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}

function writeHistory(history: PaymentHistory): { json: string; log: string } {
  mkdirSync(HISTORY_DIR, { recursive: true });
  const json = path.join(HISTORY_DIR, `seed-${SEED}.json`);
  const log = path.join(HISTORY_DIR, `seed-${SEED}.log`);
  writeFileSync(json, `${masked(JSON.stringify(history, null, 1), secrets)}\n`);
  const lines = groups.flatMap((g) => g.all.flatMap((r) => r.process.lines.map((l) => `${r.name} ${l}`)));
  writeFileSync(log, `${masked(lines.join('\n'), secrets)}\n`);
  return { json, log };
}

beforeAll(async () => {
  console.log(`payment history: seed ${SEED} (PAYMENT_FAULT_SEED=${SEED} runs this schedule again)`);
  const prng = createPrng(SEED);
  const dealt = v1Faults(prng, 2 * CALLERS * PAYMENTS_EACH);
  // The payments are told apart by client and amount: the one dealt to each is found by its amount's whole
  // part (10 + its number).
  v1 = await startFaultyLedgerUpstream({
    clients: 4,
    now,
    decide: (body, nth) => (nth === 0 ? dealt[Math.floor(body.amount as number) - 10] ?? { kind: 'pay' } : { kind: 'pay' }),
  });
  [postgres, redis] = await Promise.all([startTestPostgres(), startTestRedis()]);
  const common = { UPSTREAM_TIMEOUT_MS: String(UPSTREAM_TIMEOUT_MS), PAYMENT_SETTLE_AFTER_S: String(SETTLE_AFTER_S), GATEWAY_SECRET, LOG_LEVEL: 'info' };
  for (const [name, store] of [['pg-claims', { IDEMPOTENCY_URL: postgres.url }], ['redis-claims', { REDIS_URL: redis.url }]] as const) {
    const group: Group = { name, env: { ...common, ...store }, slots: [], all: [], generation: 0 };
    groups.push(group);
  }
  for (const group of groups) for (let slot = 0; slot < REPLICAS; slot++) group.slots.push(await startReplica(group, slot));
  for (const caller of Array.from({ length: CALLERS }, (_, i) => `c${i}`)) secrets.push(callerKey(caller));
}, 120_000);

afterAll(async () => {
  for (const group of groups) for (const replica of group.all) replica.process.child.kill('SIGCONT');
  await Promise.all(groups.flatMap((g) => g.all.map((r) => r.process.stop('SIGKILL'))));
  redis?.resume();
  postgres?.resume();
  await v1?.close();
  await redis?.close();
  await postgres?.close();
}, 60_000);

describe('payments under randomized faults, checked as a history', () => {
  it('at most one payment made per payment, every paid answer names it, every not-paid answer has none, 95% answered', async () => {
    const prng = createPrng(SEED ^ 0x5eed);
    const schedule = faultSchedule(SEED, GROUPS, FAULTS_FROM_MS, FAULTS_UNTIL_MS);
    trafficStart = now();
    const byGroup = GROUPS.map((g) => runFaults(schedule.filter((f) => f.target === g.name || f.target.startsWith(`${g.name}/`))));
    const callers = groups.flatMap((group, g) =>
      Array.from({ length: CALLERS }, (_, c) => {
        // Each caller its own generator, seeded from the run's: its choices do not depend on the others' timing.
        const own = createPrng(prng.int(0, 2 ** 31));
        return caller(own, group, `c${c}`, (g * CALLERS + c) * PAYMENTS_EACH, c % 2 === 0 ? 0.8 : 0.2);
      }),
    );
    await Promise.all([...callers, ...byGroup]);

    // Every replica drains (SIGTERM: a payment in flight always answers), so that a call still running on
    // one (its caller gave up) has made its POSTs; then v1 answers what it holds.
    for (const group of groups) await Promise.all(group.slots.map((r) => r.process.stop('SIGTERM')));
    await until('v1 answered every payment POST it held', () => v1.held() === 0, 30_000);

    const history: PaymentHistory = { seed: SEED, payments, posts: v1.paymentPosts, ledger: v1.ledger, faults };
    const findings = checkHistory(history, NOT_PAID);
    const summary = summarize(history, findings);
    const files = writeHistory(history);
    console.log(summaryLine(SEED, summary));
    const wrong = findings.filter((f) => f.problems.length > 0);
    const answered = (summary.paid + summary.notPaid) / summary.payments;
    if (wrong.length > 0 || answered < 0.95) {
      const unknown = answered < 0.95 ? findings.filter((f) => f.verdict === 'unknown') : [];
      console.error(`payment history check failed (seed ${SEED}): the history is in ${files.json}, the replicas' logs in ${files.log}`);
      for (const f of [...wrong, ...unknown]) console.error(masked(JSON.stringify(f, null, 1), secrets));
    }
    expect(wrong.map((f) => `${f.payment.name} (${f.payment.cluster}, ${f.payment.keyed ? 'keyed' : 'keyless'}): ${f.problems.join('; ')}`)).toEqual([]);
    expect(answered, `final answers: ${summary.paid + summary.notPaid} of ${summary.payments}`).toBeGreaterThanOrEqual(0.95);

    // Every fault was dealt: each group's kill and pause (a pause past the lease for the replicas), and each
    // of v1's.
    for (const g of GROUPS) {
      const own = schedule.filter((f) => f.target === g.name || f.target.startsWith(`${g.name}/`));
      expect(own.map((f) => f.action)).toEqual(expect.arrayContaining(['kill-9', 'pause']));
      if (g.longPauseMs !== undefined) expect(own.some((f) => f.action === 'pause' && f.forMs > LEASE_MS)).toBe(true);
    }
    expect(new Set(v1.paymentPosts.map((p) => p.behaviour.kind))).toEqual(new Set(['pay', 'late', 'charge-then-drop', 'charge-then-500', '500']));
    // No log line of any replica holds a secret.
    const logs = groups.flatMap((g) => g.all.flatMap((r) => r.process.lines)).join('\n');
    for (const secret of secrets) expect(logs).not.toContain(secret);
  }, 400_000);
});
