// Sends one notice: a POST of its JSON body to the integration's `notify` URL (http or https), signed, within
// a deadline. A 2xx is delivered; anything else (another status, no answer in time, no connection) is a
// failure the loop retries. node:http and node:https are required rather than imported, as the servers do
// (node-http.ts says why). The URL is only ever logged as `safeUrl` gives it: no query, no credentials.
import { createRequire } from 'node:module';
import type * as NodeHttp from 'node:http';
import type * as NodeHttps from 'node:https';
import { SIGNATURE_HEADER } from './notice-signature.js';

const load = createRequire(import.meta.url);
const http = load('node:http') as typeof NodeHttp;
const https = load('node:https') as typeof NodeHttps;

export type DeliveryResult = { delivered: true } | { delivered: false; reason: string };

/** One attempt to send a notice; never rejects. */
export type DeliverNotice = (url: string, body: string, headers: Readonly<Record<string, string>>) => Promise<DeliveryResult>;

/** The URL as it may be logged: its origin and path, never its credentials or query. */
export function safeUrl(url: string): string {
  if (!URL.canParse(url)) return '(unparseable)';
  const u = new URL(url);
  return `${u.protocol}//${u.host}${u.pathname}`;
}

/** Delivery over node:http(s), each attempt bounded by `timeoutMs` from the call to the answer. */
export function httpDelivery(timeoutMs = 10_000): DeliverNotice {
  return (url, body, headers) =>
    new Promise<DeliveryResult>((resolve) => {
      const u = new URL(url);
      const client = u.protocol === 'https:' ? https : http;
      let settled = false;
      const done = (result: DeliveryResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        resolve(result);
      };
      const req = client.request(u, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'legacy-gateway', ...headers },
      });
      const deadline = setTimeout(() => {
        done({ delivered: false, reason: 'timeout' });
        req.destroy();
      }, timeoutMs);
      req.on('response', (res) => {
        res.resume();
        const status = res.statusCode ?? 0;
        res.on('end', () => done(status >= 200 && status < 300 ? { delivered: true } : { delivered: false, reason: `status ${status}` }));
        res.on('error', () => done({ delivered: false, reason: 'connection error' }));
      });
      req.on('error', (err: NodeJS.ErrnoException) => done({ delivered: false, reason: `connection error${err.code ? ` (${err.code})` : ''}` }));
      req.end(body);
    });
}

/** The headers a notice is sent with: its signature, its event and its id. */
export const noticeHeaders = (signature: string, type: string, id: string): Record<string, string> => ({
  [SIGNATURE_HEADER]: signature,
  'Legacy-Gateway-Event': type,
  'Legacy-Gateway-Notice-Id': id,
});
