// Serves `GET /metrics` (Prometheus text format), `GET /usage` (the legacy calls per API key
// fingerprint, JSON: state/usage/usage-tracker.ts, docs/usage.md), and the payments whose outcome is unknown
// (`GET /payments/unknown`, `POST /payments/settle`: payments-admin.ts, docs/payments.md) on METRICS_PORT, a
// listener of its own: the public port never publishes any of them, so a DNS-swapped gateway does not expose
// them to the internet. It answers nothing else, and never writes a request value into its reply.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { http } from '../node-http.js';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import type { UsageReport } from '../state/usage/usage-tracker.js';
import { SHOWN_CLAIM, type PaymentsAdmin } from '../payments-admin.js';

export interface MetricsServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

export interface MetricsServerOptions {
  registry: Registry;
  host: string;
  port: number;
  /** GET /usage's source (the gateway's usage tracker); unset: /usage is not served. */
  usage?: { report(): Promise<UsageReport> };
  /** The payments whose outcome is unknown (payments-admin.ts); unset: /payments/* is not served. */
  payments?: PaymentsAdmin;
}

function sendJson(res: ServerResponse, status: number, value: unknown, head = false): void {
  const text = `${JSON.stringify(value)}\n`;
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
  res.end(head ? undefined : text);
}

/** The largest settle request read. */
const SETTLE_BODY_LIMIT = 4096;

const REFUSALS = {
  'not-unknown': [409, 'this claim is not unknown (settled, expired, still in flight, or no such claim)'],
  'id-taken': [409, 'this payment id is already the answer of another claim'],
  busy: [409, 'a settle attempt holds this claim now: try again in a minute'],
  off: [409, 'the payment mapping in service settles nothing (no settle section)'],
} as const;

/** POST /payments/settle: {"claim": "<id>", "paid": <payment id>} or {"claim": "<id>", "notPaid": true}. */
function serveSettle(payments: PaymentsAdmin, req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size <= SETTLE_BODY_LIMIT) chunks.push(chunk);
  });
  req.on('end', () => {
    if (size > SETTLE_BODY_LIMIT) return sendJson(res, 413, { error: 'the request body is too large' });
    let body: { claim?: unknown; paid?: unknown; notPaid?: unknown };
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof body;
    } catch {
      return sendJson(res, 400, { error: 'the body must be JSON: {"claim": "...", "paid": <payment id>} or {"claim": "...", "notPaid": true}' });
    }
    const claim = typeof body?.claim === 'string' && SHOWN_CLAIM.test(body.claim) ? body.claim : undefined;
    const paid = typeof body?.paid === 'number' && Number.isSafeInteger(body.paid) && body.paid > 0 ? body.paid : undefined;
    const notPaid = body?.notPaid === true;
    if (claim === undefined || (paid === undefined) === !notPaid) {
      return sendJson(res, 400, { error: 'name one claim, and either "paid" (a positive payment id) or "notPaid": true' });
    }
    payments.settle(claim, paid === undefined ? { kind: 'not-paid' } : { kind: 'paid', paymentId: paid }).then(
      (result) => {
        if (result === 'settled') return sendJson(res, 200, { claim, settled: paid === undefined ? 'not_paid' : 'paid', ...(paid === undefined ? {} : { paymentId: paid }) });
        const [status, error] = REFUSALS[result];
        sendJson(res, status, { error });
      },
      () => sendJson(res, 503, { error: 'the payment claims store cannot be reached now' }),
    );
  });
}

/** GET /usage: the report as JSON; 503 when the shared store cannot be read (Redis down). */
function serveUsage(usage: { report(): Promise<UsageReport> }, req: IncomingMessage, res: ServerResponse): void {
  usage.report().then(
    (report) => {
      const text = `${JSON.stringify(report)}\n`;
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : text);
    },
    () => {
      const text = `${JSON.stringify({ error: 'usage unavailable: the shared counts (Redis) cannot be read now' })}\n`;
      res.writeHead(503, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : text);
    },
  );
}

export async function startMetricsServer(options: MetricsServerOptions): Promise<MetricsServer> {
  const server = http.createServer({ headersTimeout: 10_000, requestTimeout: 15_000, keepAliveTimeout: 5_000 }, (req, res) => {
    const path = (req.url ?? '').split('?')[0];
    const readable = req.method === 'GET' || req.method === 'HEAD';
    if (path === '/usage' && options.usage && readable) {
      serveUsage(options.usage, req, res);
      return;
    }
    if (path === '/payments/unknown' && options.payments && readable) {
      options.payments.unknown().then(
        (payments) => sendJson(res, 200, { payments }, req.method === 'HEAD'),
        () => sendJson(res, 503, { error: 'the payment claims store cannot be reached now' }, req.method === 'HEAD'),
      );
      return;
    }
    if (path === '/payments/settle' && options.payments && req.method === 'POST') {
      serveSettle(options.payments, req, res);
      return;
    }
    if (path !== '/metrics' || !readable) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
      return;
    }
    options.registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'content-type': options.registry.contentType, 'content-length': Buffer.byteLength(text) });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      () => res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics unavailable\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
