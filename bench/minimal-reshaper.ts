// Bench baseline: a hand-written minimal reshaping server for GET /api/clients/{start}/{limit}: express,
// a node:http keep-alive agent, then minimal-reshape.ts (JSON.parse, a map to the legacy fields with
// String(), JSON.stringify).
// No validation, no cache, no logging: the least code that gives the legacy reply. Prints `READY <port>`.
import type { AddressInfo } from 'node:net';
import express from 'express';
import { argValue, stopAfter } from './child-args.js';
import { reshapeList } from './minimal-reshape.js';
import { v1PageClient } from './v1-page-client.js';

const upstream = new URL(argValue('--upstream', 'http://127.0.0.1:8081'));

const getJson = v1PageClient(upstream);

const app = express();
app.disable('x-powered-by');
app.get('/api/clients/:start/:limit', (req, res) => {
  getJson(`/api/v1/clients?offset=${req.params.start}&limit=${req.params.limit}`).then(
    (list) => {
      res.type('application/json').send(reshapeList(list));
    },
    () => res.status(502).json({ status: 'failure', response: 'upstream error' }),
  );
});
const server = app.listen(Number(argValue('--port', '0')), '127.0.0.1', () => {
  process.stdout.write(`READY ${(server.address() as AddressInfo).port}\n`);
});
stopAfter(server);
