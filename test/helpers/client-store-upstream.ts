// A fake v1 that keeps clients and payments in memory, on the recording upstream (every request it received
// is recorded): lists clients (offset/limit, and the `email` filter applied as v1 would), reads one by id,
// creates clients (POST /clients, from the gateway's payment flow or a passthrough call) and payments.
// A test can hold the list replies (each body is written when its request arrives, sent when released),
// keep a read in flight across a write, and await a request arriving instead of sleeping.
import type { ServerResponse } from 'node:http';
import { json, startRecordingUpstream, v1List, type ReceivedRequest, type RecordingUpstream } from './recording-upstream.js';

export interface StoredClient {
  object: 'client';
  id: number;
  first_name: string;
  last_name: string;
  email: string;
  status: string;
}

export interface ClientStoreUpstream extends RecordingUpstream {
  clients: StoredClient[];
  /** From now on list replies wait for `release()`. */
  hold(): void;
  /** Sends the held list replies and stops holding. */
  release(): void;
  /** The HTTP status POST /payments answers with (201 creates the payment). */
  paymentStatus: number;
  /** Resolves when a request matching `what` has arrived at or after index `from` of `received`. */
  arrival(from: number, what: (request: ReceivedRequest) => boolean): Promise<void>;
  /** The requests received from index `from` on, as `METHOD url`. */
  since(from: number): string[];
}

export async function startClientStore(initial: readonly StoredClient[]): Promise<ClientStoreUpstream> {
  const clients = initial.map((c) => ({ ...c }));
  let holding = false;
  const held: Array<() => void> = [];
  const waiting: Array<{ what: (r: ReceivedRequest) => boolean; resolve: () => void }> = [];
  const arrived = (upstreamReceived: readonly ReceivedRequest[], from: number, what: (r: ReceivedRequest) => boolean) => upstreamReceived.slice(from).some(what);
  let payments = 500;

  const answer = (req: ReceivedRequest, res: ServerResponse): void => {
    const url = new URL(req.url, 'http://v1');
    const byId = /^\/api\/v1\/clients\/(\d+)$/.exec(url.pathname);
    if (req.method === 'GET' && url.pathname === '/api/v1/clients') {
      const email = url.searchParams.get('email');
      const matching = email === null ? clients : clients.filter((c) => c.email.toLowerCase() === email.toLowerCase());
      const offset = Number(url.searchParams.get('offset') ?? '0');
      const limit = Number(url.searchParams.get('limit') ?? '100');
      const body = v1List(matching.slice(offset, offset + limit), { total: matching.length, limit, offset, has_more: offset + limit < matching.length });
      // The body is what v1 held when the request arrived, whenever it is sent.
      const send = () => json(res, 200, body);
      return holding ? void held.push(send) : send();
    }
    if (req.method === 'GET' && byId) {
      const found = clients.find((c) => c.id === Number(byId[1]));
      return found ? json(res, 200, found) : json(res, 404, { error: { code: 'not_found', message: 'no such client' } });
    }
    if (req.method === 'POST' && url.pathname === '/api/v1/clients') {
      const fields = JSON.parse(req.body.toString('utf8')) as Record<string, string>;
      const created: StoredClient = { object: 'client', id: Math.max(0, ...clients.map((c) => c.id)) + 1, first_name: fields.first_name ?? '', last_name: fields.last_name ?? '', email: fields.email ?? '', status: fields.status ?? 'active' };
      clients.push(created);
      return json(res, 201, created);
    }
    if (req.method === 'POST' && url.pathname === '/api/v1/payments') {
      if (store.paymentStatus !== 201) return json(res, store.paymentStatus, { error: { code: 'server_error', message: 'the payment service failed' } });
      const body = JSON.parse(req.body.toString('utf8')) as { client_id?: number; amount?: number };
      return json(res, 201, { object: 'payment', id: ++payments, client_id: body.client_id, amount: body.amount });
    }
    json(res, 404, { error: { code: 'unknown_resource', message: 'no such resource' } });
  };

  const upstream = await startRecordingUpstream((req, res) => {
    for (const w of waiting.splice(0)) {
      if (w.what(req)) w.resolve();
      else waiting.push(w);
    }
    answer(req, res);
  });
  const store: ClientStoreUpstream = Object.assign(upstream, {
    clients,
    paymentStatus: 201,
    hold: () => {
      holding = true;
    },
    release: () => {
      holding = false;
      for (const send of held.splice(0)) send();
    },
    arrival: (from: number, what: (r: ReceivedRequest) => boolean) =>
      arrived(upstream.received, from, what) ? Promise.resolve() : new Promise<void>((resolve) => waiting.push({ what, resolve })),
    since: (from: number) => upstream.received.slice(from).map((r) => `${r.method} ${r.url}`),
  });
  return store;
}
