// Everything that is not a mapped legacy method or the gateway's own route goes to UPSTREAM_URL unchanged,
// streamed both ways (http-proxy-middleware): /api/v1/**, /ondemand/**, /assets/**, unmapped /api/{x}.
// It applies the key rule (api_key moves from the URL into X-API-KEY), drops hop-by-hop headers both ways,
// and answers a legacy-shaped 502/504 when the upstream fails before replying. It never buffers a body.
import http from 'node:http';
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { createProxyMiddleware } from 'http-proxy-middleware';
import { GatewayError } from '../errors.js';
import { apiKeyOf, withoutApiKeyParam } from '../upstream/api-key.js';
import { sendLegacyError } from './error-reply.js';
import { hopByHopNames } from './hop-by-hop.js';
import { contextOf } from './request-context.js';

export interface PassthroughOptions {
  upstreamUrl: string;
  upstreamApiKey: string | undefined;
  timeoutMs: number;
}

export type Passthrough = ((req: IncomingMessage, res: ServerResponse) => void) & { close(): void };

const timedOut = new WeakSet<IncomingMessage>();

export function createPassthrough(options: PassthroughOptions): Passthrough {
  const secure = options.upstreamUrl.startsWith('https:');
  const agent = secure ? new https.Agent({ keepAlive: true, maxSockets: 256 }) : new http.Agent({ keepAlive: true, maxSockets: 256 });

  const proxy = createProxyMiddleware<IncomingMessage, ServerResponse>({
    target: options.upstreamUrl,
    changeOrigin: true,
    xfwd: true,
    agent,
    proxyTimeout: options.timeoutMs,
    on: {
      proxyReq(proxyReq, req) {
        for (const name of hopByHopNames(req.headers, false)) proxyReq.removeHeader(name);
        const key = apiKeyOf(req.headers, [...new URLSearchParams(searchOf(req.url))], options.upstreamApiKey);
        if (key !== undefined) proxyReq.setHeader('x-api-key', key);
        proxyReq.on('timeout', () => timedOut.add(req));
      },
      proxyRes(proxyRes) {
        for (const name of hopByHopNames(proxyRes.headers, true)) delete proxyRes.headers[name];
        delete proxyRes.headers['x-powered-by'];
      },
      error(err, req, resOrSocket) {
        if (!('setHeader' in resOrSocket)) {
          (resOrSocket as Socket).destroy();
          return;
        }
        const res = resOrSocket as ServerResponse;
        const error = timedOut.has(req)
          ? new GatewayError('LGW_UPSTREAM_TIMEOUT', `the upstream did not answer within ${options.timeoutMs} ms`, { cause: err })
          : new GatewayError('LGW_UPSTREAM_UNREACHABLE', 'the upstream could not be reached', { cause: err });
        sendLegacyError(req, res, error);
      },
    },
  });

  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    contextOf(req).legacyMethod = 'passthrough';
    // The key must not travel on in the URL (DESIGN: Key); apiKeyOf reads it before it is removed.
    const search = searchOf(req.url);
    if (search !== '') {
      const key = apiKeyOf(req.headers, [...new URLSearchParams(search)], undefined);
      const cleaned = withoutApiKeyParam(`?${search}`);
      if (cleaned !== `?${search}`) {
        if (key !== undefined && req.headers['x-api-key'] === undefined) req.headers['x-api-key'] = key;
        req.url = `${pathOf(req.url)}${cleaned}`;
      }
    }
    void proxy(req, res, (err?: unknown) => sendLegacyError(req, res, err ?? new Error('passthrough did not answer')));
  };
  return Object.assign(handler, { close: () => agent.destroy() });
}

function searchOf(url: string | undefined): string {
  const q = (url ?? '').indexOf('?');
  return q < 0 ? '' : (url ?? '').slice(q + 1);
}

function pathOf(url: string | undefined): string {
  const q = (url ?? '').indexOf('?');
  return q < 0 ? (url ?? '/') : (url ?? '').slice(0, q);
}
