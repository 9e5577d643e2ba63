// Bench baseline: a hand-written node:http reshaper for GET /api/clients/{start}/{limit}, with no framework:
// a node:http server, a node:http keep-alive agent to v1, then minimal-reshape.ts (JSON.parse, a map to the
// legacy fields with String(), JSON.stringify): the same bytes as the minimal reshaper, without express.
// No validation, no cache, no logging. Prints `READY <port>`.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { argValue, stopAfter } from './child-args.js';
import { reshapeList } from './minimal-reshape.js';
import { v1PageClient } from './v1-page-client.js';

const upstream = new URL(argValue('--upstream', 'http://127.0.0.1:8081'));
const ROUTE = /^\/api\/clients\/(\d+)\/(\d+)$/;
const FAILURE = '{"status":"failure","response":"upstream error"}';

const getJson = v1PageClient(upstream);

function send(res: http.ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) }).end(text);
}

const server = http.createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
  const m = req.method === 'GET' ? ROUTE.exec(req.url ?? '') : null;
  if (!m) {
    send(res, 404, '{"status":"failure","response":"not found"}');
    return;
  }
  getJson(`/api/v1/clients?offset=${m[1]}&limit=${m[2]}`).then(
    (list) => send(res, 200, reshapeList(list)),
    () => send(res, 502, FAILURE),
  );
});
server.listen(Number(argValue('--port', '0')), '127.0.0.1', () => {
  process.stdout.write(`READY ${(server.address() as AddressInfo).port}\n`);
});
stopAfter(server);
