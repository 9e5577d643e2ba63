// Bench baseline: the plainest passthrough one would write with the same building blocks: express and
// http-proxy-middleware with a keep-alive agent, no logging, no checks. Prints `READY <port>`.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';
import { argValue, stopAfter } from './child-args.js';

const app = express();
app.disable('x-powered-by');
app.use(
  createProxyMiddleware({
    target: argValue('--upstream', 'http://127.0.0.1:8081'),
    changeOrigin: true,
    agent: new http.Agent({ keepAlive: true, maxSockets: 256 }),
  }),
);
const server = app.listen(Number(argValue('--port', '0')), '127.0.0.1', () => {
  process.stdout.write(`READY ${(server.address() as AddressInfo).port}\n`);
});
stopAfter(server);
