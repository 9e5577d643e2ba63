// A purpose-built fake v1 upstream on a loopback port: answers with whatever the test's handler says
// and records every request it received (method, URL, headers, body), so tests can assert what reached it.
import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export type UpstreamHandler = (req: ReceivedRequest, res: ServerResponse, raw: IncomingMessage) => void | Promise<void>;

export interface RecordingUpstream {
  url: string;
  received: ReceivedRequest[];
  /** Replaces the handler for the following requests. */
  handle(handler: UpstreamHandler): void;
  close(): Promise<void>;
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export const v1List = (data: object[], extra: { total?: number; has_more?: boolean; limit?: number; offset?: number } = {}) => ({
  object: 'list',
  total: extra.total ?? data.length,
  limit: extra.limit ?? 100,
  offset: extra.offset ?? 0,
  has_more: extra.has_more ?? false,
  data,
});

export async function startRecordingUpstream(initial?: UpstreamHandler): Promise<RecordingUpstream> {
  const received: ReceivedRequest[] = [];
  let handler: UpstreamHandler = initial ?? ((_req, res) => json(res, 404, { error: { code: 'unknown_resource', message: 'no handler' } }));
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const entry: ReceivedRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
      received.push(entry);
      Promise.resolve(handler(entry, res, req)).catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    handle: (h) => {
      handler = h;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
