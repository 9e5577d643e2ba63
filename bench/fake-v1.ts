// Bench baseline server: a fake v1 upstream that answers from bodies serialised once, so that it costs as
// little as possible and the bench measures what sits in front of it: client and practitioner lists (200
// practitioners, or --practitioners), one client by id (a payment's check), and POST /api/v1/payments (201
// with a new id; the body is read and dropped). Any X-API-KEY is accepted. Loopback only; it stops by itself
// after --lifetime seconds. Prints `READY <port>` when listening.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { argValue, stopAfter } from './child-args.js';

const CITIES = ['Springfield', 'Riverside', 'Fairview', 'Madison', 'Georgetown'];

function client(id: number): Record<string, unknown> {
  return {
    object: 'client',
    id,
    first_name: `First${id}`,
    last_name: `Last${id}`,
    address1: `${id} Main Street`,
    address2: id % 3 === 0 ? `Suite ${id % 50}` : null,
    city: CITIES[id % CITIES.length],
    state: 'IL',
    zipcode: String(60000 + (id % 999)),
    country: 'US',
    p_phone: `555-01${String(id % 100).padStart(2, '0')}`,
    s_phone: null,
    text_phone: id % 2 === 0 ? `555-02${String(id % 100).padStart(2, '0')}` : null,
    email: `client${id}@example.com`,
    username: `client${id}`,
    status: 'active',
    hide_costs: false,
    use_records: true,
    timezone: 'America/Chicago',
    created_at: '2024-01-02T03:04:05Z',
    updated_at: '2024-06-07T08:09:10Z',
  };
}

function practitioner(id: number): Record<string, unknown> {
  return {
    object: 'practitioner',
    id,
    admin_id: 1,
    pract_settings_id: id,
    first_name: `Name${(id * 7919) % 1000}`,
    last_name: `Family${id}`,
    position: 'Therapist',
    excerpt: 'Ten years of practice, specialising in the things a fake upstream can specialise in.',
    priority: id % 7,
    headshot_url: `https://cdn.example.com/headshots/${id}.jpg`,
  };
}

/** The team's size: 200, or --practitioners (the bench's roster rows read 2,000 and 10,000). */
const PRACTITIONERS = Number(argValue('--practitioners', '200'));
const CLIENTS = 100_000;

function list(total: number, offset: number, limit: number, make: (id: number) => Record<string, unknown>): string {
  const data = [];
  for (let id = offset + 1; id <= Math.min(total, offset + limit); id++) data.push(make(id));
  return JSON.stringify({ object: 'list', total, limit, offset, has_more: offset + limit < total, data });
}

const bodies = new Map<string, Buffer>();

function bodyFor(url: URL): Buffer | undefined {
  const key = `${url.pathname}?${url.searchParams.get('offset') ?? '0'}&${url.searchParams.get('limit') ?? '100'}`;
  let body = bodies.get(key);
  if (body) return body;
  const offset = Number(url.searchParams.get('offset') ?? 0);
  const limit = Number(url.searchParams.get('limit') ?? 100);
  const oneClient = /^\/api\/v1\/clients\/(\d+)$/.exec(url.pathname);
  const id = Number(oneClient?.[1]);
  if (oneClient) body = id >= 1 && id <= CLIENTS ? Buffer.from(JSON.stringify(client(id))) : undefined;
  else if (url.pathname === '/api/v1/clients') body = Buffer.from(list(CLIENTS, offset, limit, client));
  else if (url.pathname === '/api/v1/practitioners') body = Buffer.from(list(PRACTITIONERS, offset, limit, practitioner));
  else if (url.pathname === '/api/v1') body = Buffer.from('{"object":"api","version":"v1"}');
  if (body && bodies.size < 100) bodies.set(key, body);
  return body;
}

let paymentId = 0;

/** POST /api/v1/payments: every payment is accepted, with a new id. */
function createPayment(req: http.IncomingMessage, res: http.ServerResponse): void {
  req.resume();
  req.once('end', () => {
    const body = Buffer.from(JSON.stringify({ object: 'payment', id: ++paymentId }));
    res.writeHead(201, { 'content-type': 'application/json', 'content-length': body.length }).end(body);
  });
}

const server = http.createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
  if (req.method === 'POST' && req.url === '/api/v1/payments') {
    createPayment(req, res);
    return;
  }
  const body = bodyFor(new URL(req.url ?? '/', 'http://fake'));
  if (!body) {
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":"not_found","message":"no such resource"}}');
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
  res.end(body);
});
server.listen(Number(argValue('--port', '0')), '127.0.0.1', () => {
  process.stdout.write(`READY ${(server.address() as AddressInfo).port}\n`);
});
stopAfter(server);
