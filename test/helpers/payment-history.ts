// The history of a randomized payment fault test, and its check (pure): every attempt a caller made (which
// replica, when sent and answered, the reply), every payment POST v1 received and the ledger it kept, every
// fault injected. Checked per payment, as a history whose outcomes may be unknown is checked against what
// the database really holds:
// - at most one POST of it made a payment at v1 (a record in the ledger). A POST v1 answered 500 without
//   recording anything made none: its claim is settled "not paid" and released, and the caller's next
//   attempt may send the payment again, as designed; any other POST after the first is a fault;
// - every "paid" answer (code 12) names the ledger record that POST made;
// - every "not paid" answer (the settlement's code 8) has no record of it in the ledger;
// and how many payments got a final answer (paid or not paid), how long the slowest took.
import type { LedgerPayment } from './ledger-upstream.js';
import type { ReceivedPaymentPost } from './faulty-ledger-upstream.js';

/** One payment a simulated caller makes, retried until it gets a final answer or its patience ends. */
export interface HistoryPayment {
  /** p<n>: its name in the history. */
  name: string;
  cluster: string;
  caller: string;
  keyed: boolean;
  clientId: number;
  /** As sent (revenue_amount); unique per payment, so the ledger's records are told apart by it. */
  amount: string;
  attempts: HistoryAttempt[];
}

/** One HTTP attempt of a payment; times in ms since the test began. */
export interface HistoryAttempt {
  replica: string;
  sentAt: number;
  answeredAt: number;
  /** The HTTP status, or what happened instead (`no answer: ...`: a reset, a refused connection, the
   * caller's own timeout). */
  status: number | string;
  /** The reply's body (secrets masked). */
  body?: string;
  replayed?: boolean;
  retryAfter?: string;
}

export interface FaultEvent {
  at: number;
  /** kill-9, pause, resume, restart... */
  action: string;
  target: string;
}

export interface PaymentHistory {
  seed: number;
  payments: HistoryPayment[];
  posts: ReceivedPaymentPost[];
  ledger: LedgerPayment[];
  faults: FaultEvent[];
}

export type Verdict = 'paid' | 'not-paid' | 'unknown';

/** What the legacy reply says of the payment: paid (code 12), not paid (the settlement's words), or nothing
 * final (a fault, a refusal to retry, an unknown outcome). */
export function answerOf(attempt: HistoryAttempt, notPaidMessage: string): Verdict {
  if (typeof attempt.status !== 'number' || attempt.body === undefined) return 'unknown';
  let body: { code?: unknown; response?: unknown };
  try {
    body = JSON.parse(attempt.body) as typeof body;
  } catch {
    return 'unknown';
  }
  if (attempt.status === 200 && body.code === 12) return 'paid';
  if (attempt.status === 200 && body.code === 8 && body.response === notPaidMessage) return 'not-paid';
  return 'unknown';
}

export interface PaymentFinding {
  payment: HistoryPayment;
  /** The v1 POSTs of it, and the ledger records they made. */
  posts: ReceivedPaymentPost[];
  records: LedgerPayment[];
  verdict: Verdict;
  /** From its first attempt to its final answer (ms); undefined without one. */
  finalAfterMs?: number;
  problems: string[];
}

const PAID = /^payment added \(payment id (\d+)\)$/;

/** Each payment's POSTs, records, final answer and what is wrong with them. */
export function checkHistory(history: PaymentHistory, notPaidMessage: string): PaymentFinding[] {
  return history.payments.map((payment) => {
    const amount = Number(payment.amount);
    const posts = history.posts.filter((p) => p.clientId === payment.clientId && p.amount === amount);
    const records = history.ledger.filter((r) => r.client_id === payment.clientId && r.amount === amount);
    const problems: string[] = [];
    if (records.length > 1) problems.push(`charged ${records.length} times (records ${records.map((r) => r.id).join(', ')})`);
    // A POST after one that made a payment, whatever it made itself, was sent for a payment already made.
    const firstCharge = posts.findIndex((p) => p.recordId !== undefined);
    if (firstCharge >= 0 && firstCharge < posts.length - 1) problems.push(`${posts.length - firstCharge - 1} payment POSTs sent after the one that charged`);
    let verdict: Verdict = 'unknown';
    let finalAfterMs: number | undefined;
    for (const attempt of payment.attempts) {
      const answer = answerOf(attempt, notPaidMessage);
      if (answer === 'unknown') continue;
      if (answer === 'paid') {
        const named = Number(PAID.exec((JSON.parse(attempt.body!) as { response: string }).response)?.[1]);
        if (records.length !== 1 || records[0]!.id !== named) {
          problems.push(`answered paid with payment id ${named} at ${attempt.answeredAt} ms, the ledger holds ${records.map((r) => r.id).join(', ') || 'none'}`);
        }
      }
      if (answer === 'not-paid' && records.length > 0) problems.push(`answered not paid at ${attempt.answeredAt} ms, the ledger holds ${records.map((r) => r.id).join(', ')}`);
      if (verdict === 'unknown') {
        verdict = answer;
        finalAfterMs = attempt.answeredAt - payment.attempts[0]!.sentAt;
      } else if (verdict !== answer) {
        problems.push(`answered ${verdict}, then ${answer}`);
      }
    }
    return { payment, posts, records, verdict, ...(finalAfterMs === undefined ? {} : { finalAfterMs }), problems };
  });
}

export interface HistorySummary {
  payments: number;
  posts: number;
  charged: number;
  paid: number;
  notPaid: number;
  unknown: number;
  slowestFinalMs: number;
}

export function summarize(history: PaymentHistory, findings: readonly PaymentFinding[]): HistorySummary {
  return {
    payments: findings.length,
    posts: history.posts.length,
    charged: history.ledger.length,
    paid: findings.filter((f) => f.verdict === 'paid').length,
    notPaid: findings.filter((f) => f.verdict === 'not-paid').length,
    unknown: findings.filter((f) => f.verdict === 'unknown').length,
    slowestFinalMs: Math.max(0, ...findings.map((f) => f.finalAfterMs ?? 0)),
  };
}

/** The one line every run prints. */
export function summaryLine(seed: number, s: HistorySummary): string {
  return (
    `payment history (seed ${seed}): ${s.payments} payments, ${s.posts} payment POSTs at v1 (${s.charged} charged), ` +
    `final answers ${s.paid + s.notPaid} (paid ${s.paid} / not paid ${s.notPaid}), still unknown ${s.unknown}, ` +
    `slowest final answer ${(s.slowestFinalMs / 1000).toFixed(1)} s`
  );
}

/** Every secret in `text` replaced by ***. */
export function masked(text: string, secrets: readonly string[]): string {
  return secrets.reduce((t, secret) => t.split(secret).join('***'), text);
}
