// Bench baseline server: a fake v1 upstream that answers from bodies serialised once, so that it costs as
// little as possible and the bench measures what sits in front of it: client and practitioner lists (200
// practitioners, or --practitioners), one client by id (a payment's check), and POST /api/v1/payments (201
// with a new id; the body is read and dropped). Any X-API-KEY is accepted. Loopback only; it stops by itself
// after --lifetime seconds. Prints `READY <port>` when listening.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { argValue, stopAfter } from './child-args.js';
import { client, listText as list, practitioner } from './fake-records.js';

/** The team's size: 200, or --practitioners (the bench's roster rows read 2,000 and 10,000). */
const PRACTITIONERS = Number(argValue('--practitioners', '200'));
const CLIENTS = 100_000;

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
