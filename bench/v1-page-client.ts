// The bench baselines' v1 client: one node:http keep-alive agent, the page read whole and parsed with
// JSON.parse. Shared by the minimal (express) and hand-written (node:http) reshapers, so they differ only in
// their server.
import http from 'node:http';
import type { V1ListPage } from './minimal-reshape.js';

export function v1PageClient(upstream: URL): (path: string) => Promise<V1ListPage> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  return (path) =>
    new Promise((resolve, reject) => {
      const req = http.get({ host: upstream.hostname, port: upstream.port, path, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          try {
            resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as V1ListPage);
          } catch (err) {
            reject(err);
          }
        });
      });
      req.on('error', reject);
    });
}
