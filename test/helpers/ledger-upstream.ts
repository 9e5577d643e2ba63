// A fake v1 that keeps a payments ledger, on a recording upstream (recording-upstream.ts): client 1 exists,
// and POST /api/v1/clients creates another (ids from 701), which GET /api/v1/clients/{id} then finds;
// POST /api/v1/payments records the payment and answers 201, unless the test told it what to do with the
// next POSTs (record then drop the connection, record then answer 500, drop without recording, record a
// twin as well, decline the card); GET /api/v1/payments lists the ledger as v1 does (client_id filter,
// ordered by id, offset/limit, total). Every request is recorded, so a test counts the client and payment
// POSTs that reached it.
import type { ServerResponse } from 'node:http';
import { json, startRecordingUpstream, type RecordingUpstream } from './recording-upstream.js';

export interface LedgerPayment {
  object: 'payment';
  id: number;
  client_id: number;
  service_id: number | null;
  amount: number;
  discount_code: string | null;
  note: string | null;
  send_email: number;
  timezone: string;
  status: string;
  created: string;
}

/** A payment as v1 records it from a POST's body. */
export function ledgerPayment(id: number, body: Record<string, unknown>): LedgerPayment {
  return {
    object: 'payment',
    id,
    client_id: body.client_id as number,
    service_id: (body.service_id as number | undefined) ?? null,
    amount: body.amount as number,
    discount_code: (body.discount_code as string | undefined) ?? null,
    note: (body.note as string | undefined) ?? null,
    send_email: (body.send_email as number | undefined) ?? 0,
    timezone: (body.timezone as string | undefined) ?? 'America/New_York',
    status: 'completed',
    created: '2026-12-02',
  };
}

/** GET /api/v1/payments as v1 answers it: the client_id filter, ordered by id, offset/limit, total. */
export function ledgerPage(ledger: readonly LedgerPayment[], url: URL): Record<string, unknown> {
  const client = url.searchParams.get('client_id');
  const all = ledger.filter((p) => client === null || String(p.client_id) === client);
  const offset = Number(url.searchParams.get('offset') ?? 0);
  const limit = Number(url.searchParams.get('limit') ?? 100);
  const data = all.slice(offset, offset + limit);
  return { object: 'list', total: all.length, limit, offset, has_more: offset + data.length < all.length, data };
}

/** What the fake does with one payment POST. */
export type PostBehaviour =
  | 'pay'
  /** recorded, then the connection is dropped before any reply */
  | 'charge-then-drop'
  /** recorded, then answered 500 */
  | 'charge-then-500'
  /** dropped before anything was recorded */
  | 'drop'
  /** recorded twice (a twin lands with it), then dropped */
  | 'charge-twice-then-drop'
  /** not recorded: answered 402 card_declined */
  | 'decline';

export interface LedgerUpstream extends RecordingUpstream {
  ledger: LedgerPayment[];
  /** The behaviours of the next payment POSTs, in order; then `pay`. */
  next(...behaviours: PostBehaviour[]): void;
  /** How many payment POSTs reached it. */
  posts(): number;
  /** The ids of the clients POST /api/v1/clients created, in order. */
  createdClients: number[];
  /** The list reads answer 500 while on. */
  failList(on: boolean): void;
}

export async function startLedgerUpstream(): Promise<LedgerUpstream> {
  const ledger: LedgerPayment[] = [];
  const queue: PostBehaviour[] = [];
  let nextId = 900;
  const createdClients: number[] = [];
  const state = { listFails: false };
  const record = (body: Record<string, unknown>): LedgerPayment => {
    const payment = ledgerPayment(++nextId, body);
    ledger.push(payment);
    return payment;
  };
  const drop = (res: ServerResponse): void => void res.socket?.destroy();
  const upstream = await startRecordingUpstream((req, res) => {
    const url = new URL(req.url, 'http://v1');
    if (req.method === 'GET' && url.pathname === '/api/v1/clients/1') return json(res, 200, { object: 'client', id: 1, first_name: 'Ada', last_name: 'Lovelace' });
    const clientPath = /^\/api\/v1\/clients\/(\d+)$/.exec(url.pathname);
    if (req.method === 'GET' && clientPath && createdClients.includes(Number(clientPath[1]))) return json(res, 200, { object: 'client', id: Number(clientPath[1]) });
    if (req.method === 'POST' && url.pathname === '/api/v1/clients') {
      const id = 701 + createdClients.length;
      createdClients.push(id);
      return json(res, 201, { object: 'client', id });
    }
    if (req.method === 'GET' && url.pathname === '/api/v1/timezones') return json(res, 200, { object: 'list', total: 1, limit: 1000, offset: 0, has_more: false, data: [{ object: 'timezone', id: 1, name: 'America/New_York', utc_offset: '-05:00' }] });
    if (req.method === 'GET' && url.pathname === '/api/v1/payments') {
      if (state.listFails) return json(res, 500, { error: { code: 'internal', message: 'list down' } });
      return json(res, 200, ledgerPage(ledger, url));
    }
    if (req.method === 'POST' && url.pathname === '/api/v1/payments') {
      const body = JSON.parse(req.body.toString('utf8')) as Record<string, unknown>;
      const behaviour = queue.shift() ?? 'pay';
      if (behaviour === 'drop') return drop(res);
      if (behaviour === 'decline') return json(res, 402, { error: { code: 'card_declined', message: 'the card was declined' } });
      const payment = record(body);
      if (behaviour === 'charge-twice-then-drop') record(body);
      if (behaviour === 'charge-then-drop' || behaviour === 'charge-twice-then-drop') return drop(res);
      if (behaviour === 'charge-then-500') return json(res, 500, { error: { code: 'internal', message: 'something broke' } });
      return json(res, 201, payment);
    }
    json(res, 404, { error: { code: 'unknown_resource', message: 'no such resource' } });
  });
  return Object.assign(upstream, {
    ledger,
    createdClients,
    next: (...behaviours: PostBehaviour[]) => void queue.push(...behaviours),
    posts: () => upstream.received.filter((r) => r.method === 'POST' && new URL(r.url, 'http://v1').pathname === '/api/v1/payments').length,
    failList: (on: boolean) => void (state.listFails = on),
  });
}
