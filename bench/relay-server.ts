// The relay's server, without its process (bench/relay.ts runs it): for GET /api/clients/{start}/{limit} it
// asks v1 for /api/v1/clients?offset={start}&limit={limit} over a node:http keep-alive agent and sends v1's
// status, content-type, content-length and body on unchanged (`res.pipe`): no parse, no translation. The least
// any server between the legacy client and v1 can do per call: the floor of the bench's same-load rows.
import http from 'node:http';

const ROUTE = /^\/api\/clients\/(\d+)\/(\d+)$/;
const FAILURE = '{"status":"failure","response":"upstream error"}';

function send(res: http.ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) }).end(text);
}

export function createRelay(upstream: URL): http.Server {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  return http.createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    const m = req.method === 'GET' ? ROUTE.exec(req.url ?? '') : null;
    if (!m) {
      send(res, 404, '{"status":"failure","response":"not found"}');
      return;
    }
    const path = `/api/v1/clients?offset=${m[1]}&limit=${m[2]}`;
    const v1 = http.get({ host: upstream.hostname, port: upstream.port, path, agent }, (page) => {
      const headers: http.OutgoingHttpHeaders = {};
      if (page.headers['content-type'] !== undefined) headers['content-type'] = page.headers['content-type'];
      if (page.headers['content-length'] !== undefined) headers['content-length'] = page.headers['content-length'];
      res.writeHead(page.statusCode ?? 502, headers);
      page.pipe(res);
    });
    v1.on('error', () => {
      if (res.headersSent) res.destroy();
      else send(res, 502, FAILURE);
    });
  });
}
