// Bench baseline: a hand-written minimal reshaping server for GET /api/clients/{start}/{limit}: express,
// a node:http keep-alive agent, JSON.parse, a map to the legacy fields with String(), JSON.stringify.
// No validation, no cache, no logging: the least code that gives the legacy reply. Prints `READY <port>`.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { argValue, stopAfter } from './child-args.js';

const upstream = new URL(argValue('--upstream', 'http://127.0.0.1:8081'));
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
const FIELDS: Array<[string, string]> = [
  ['id', 'id'], ['users_id', 'users_id'], ['client_settings_id', 'client_settings_id'], ['avail_id', 'avail_id'],
  ['first_name', 'first_name'], ['last_name', 'last_name'], ['address1', 'address1'], ['address2', 'address2'],
  ['city', 'city'], ['state', 'state'], ['zipcode', 'zipcode'], ['country', 'country'], ['p_phone', 'p_phone'],
  ['s_phone', 's_phone'], ['text_phone', 'text_phone'], ['email', 'email'],
];

function getJson(path: string): Promise<{ total: number; data: Array<Record<string, unknown>> }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: upstream.hostname, port: upstream.port, path, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as { total: number; data: Array<Record<string, unknown>> });
        } catch (err) {
          reject(err);
        }
      });
    });
    req.on('error', reject);
  });
}

const app = express();
app.disable('x-powered-by');
app.get('/api/clients/:start/:limit', (req, res) => {
  getJson(`/api/v1/clients?offset=${req.params.start}&limit=${req.params.limit}`).then(
    (list) => {
      const response = list.data.map((r) => {
        const out: Record<string, string | null> = {};
        for (const [legacy, v1] of FIELDS) out[legacy] = r[v1] === null || r[v1] === undefined ? null : String(r[v1]);
        return out;
      });
      res.type('application/json').send(JSON.stringify({ status: 'success', total: String(list.total), response }));
    },
    () => res.status(502).json({ status: 'failure', response: 'upstream error' }),
  );
});
const server = app.listen(Number(argValue('--port', '0')), '127.0.0.1', () => {
  process.stdout.write(`READY ${(server.address() as AddressInfo).port}\n`);
});
stopAfter(server);
