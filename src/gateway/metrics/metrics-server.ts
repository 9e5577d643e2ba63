// Serves `GET /metrics` (Prometheus text format) and `GET /usage` (the legacy calls per API key
// fingerprint, JSON: state/usage/usage-tracker.ts, docs/usage.md) on METRICS_PORT, a listener of its own: the
// public port never publishes either, so a DNS-swapped gateway does not expose them to the internet. It
// answers nothing else, and never writes a request value into its reply.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { http } from '../node-http.js';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import type { UsageReport } from '../state/usage/usage-tracker.js';

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
