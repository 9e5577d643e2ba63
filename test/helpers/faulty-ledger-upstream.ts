// A fake v1 for a randomized fault test of payments: a recording upstream (recording-upstream.ts) that keeps
// a real ledger and misbehaves on payment POSTs as a function it is given decides, per POST:
// - `pay`: recorded, answered 201 with the record at once;
// - `late`: recorded at once, answered 201 after a delay (longer than the gateway's timeout, or not);
// - `charge-then-drop`: recorded, then the connection is dropped before any reply;
// - `charge-then-500`: recorded, then answered 500;
// - `500`: answered 500, nothing recorded.
// A payment is recorded when its POST arrives (a late answer never means a late write), so a record missing
// from the ledger means the payment was not made. GET /api/v1/payments lists the ledger as v1 does: the
// mapping's filter (client_id), ordered by id, a new record at the end, offset/limit/total. Clients 1 to
// `clients` exist. Every payment POST is kept with when it arrived, what was done and when it was answered,
// and a test can wait until none is held.
import type { ServerResponse } from 'node:http';
import { ledgerPage, ledgerPayment, type LedgerPayment } from './ledger-upstream.js';
import { json, startRecordingUpstream, type RecordingUpstream } from './recording-upstream.js';

export type FaultyPostBehaviour = { kind: 'pay' } | { kind: 'late'; delayMs: number } | { kind: 'charge-then-drop' } | { kind: 'charge-then-500' } | { kind: '500' };

/** One payment POST as the fake saw it; times in ms from `since`. */
export interface ReceivedPaymentPost {
  clientId: number;
  amount: number;
  behaviour: FaultyPostBehaviour;
  receivedAt: number;
  /** When the reply (or the dropped connection) went out; undefined while held. */
  answeredAt?: number;
  /** The ledger record it made, if any. */
  recordId?: number;
}

export interface FaultyLedgerUpstream extends RecordingUpstream {
  ledger: LedgerPayment[];
  paymentPosts: ReceivedPaymentPost[];
  /** How many payment POSTs are held (late answers not sent yet). */
  held(): number;
}

export interface FaultyLedgerOptions {
  /** Clients 1..clients exist. */
  clients: number;
  /** What to do with a payment POST; `nth` counts the POSTs of the same client and amount before it. */
  decide(body: Readonly<Record<string, unknown>>, nth: number): FaultyPostBehaviour;
  /** The clock the times are read on (ms). */
  now(): number;
}

export async function startFaultyLedgerUpstream(options: FaultyLedgerOptions): Promise<FaultyLedgerUpstream> {
  const ledger: LedgerPayment[] = [];
  const paymentPosts: ReceivedPaymentPost[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let nextId = 5000;
  const record = (body: Record<string, unknown>): LedgerPayment => {
    const payment = ledgerPayment(++nextId, body);
    ledger.push(payment);
    return payment;
  };
  const answered = (post: ReceivedPaymentPost, res: ServerResponse, send: () => void): void => {
    post.answeredAt = options.now();
    res.on('error', () => undefined);
    send();
  };
  const upstream = await startRecordingUpstream((req, res) => {
    const url = new URL(req.url, 'http://v1');
    const client = /^\/api\/v1\/clients\/(\d+)$/.exec(url.pathname);
    if (req.method === 'GET' && client) {
      const id = Number(client[1]);
      if (id >= 1 && id <= options.clients) return json(res, 200, { object: 'client', id, first_name: `First${id}`, last_name: `Last${id}` });
      return json(res, 404, { error: { code: 'not_found', message: 'no such client' } });
    }
    if (req.method === 'GET' && url.pathname === '/api/v1/payments') {
      return json(res, 200, ledgerPage(ledger, url));
    }
    if (req.method === 'POST' && url.pathname === '/api/v1/payments') {
      const body = JSON.parse(req.body.toString('utf8')) as Record<string, unknown>;
      const same = paymentPosts.filter((p) => p.clientId === body.client_id && p.amount === body.amount).length;
      const behaviour = options.decide(body, same);
      const post: ReceivedPaymentPost = { clientId: body.client_id as number, amount: body.amount as number, behaviour, receivedAt: options.now() };
      paymentPosts.push(post);
      if (behaviour.kind === '500') return answered(post, res, () => json(res, 500, { error: { code: 'internal', message: 'something broke' } }));
      const payment = record(body);
      post.recordId = payment.id;
      switch (behaviour.kind) {
        case 'pay':
          return answered(post, res, () => json(res, 201, payment));
        case 'charge-then-drop':
          return answered(post, res, () => res.socket?.destroy());
        case 'charge-then-500':
          return answered(post, res, () => json(res, 500, { error: { code: 'internal', message: 'something broke' } }));
        case 'late': {
          const timer = setTimeout(() => {
            timers.delete(timer);
            answered(post, res, () => json(res, 201, payment));
          }, behaviour.delayMs);
          timers.add(timer);
          return;
        }
      }
    }
    json(res, 404, { error: { code: 'unknown_resource', message: 'no such resource' } });
  });
  const closeServer = upstream.close;
  return Object.assign(upstream, {
    ledger,
    paymentPosts,
    held: () => timers.size,
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await closeServer();
    },
  });
}
