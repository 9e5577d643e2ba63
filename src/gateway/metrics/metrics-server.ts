// Serves `GET /metrics` (Prometheus text format) on METRICS_PORT, a listener of its own: the public
// port never publishes metrics, so a DNS-swapped gateway does not expose them to the internet. It answers
// nothing else, and never writes a request value into its reply.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

export interface MetricsServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

export async function startMetricsServer(options: { registry: Registry; host: string; port: number }): Promise<MetricsServer> {
  const server = http.createServer({ headersTimeout: 10_000, requestTimeout: 15_000, keepAliveTimeout: 5_000 }, (req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
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
