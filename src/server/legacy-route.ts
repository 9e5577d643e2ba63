// Serves the mapped legacy read methods: finds the mapping for /api/{method}, runs it through the engine
// with this request's API key, and writes the legacy reply. Anything not mapped goes on (to passthrough).
import type { ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import type { V1Record } from '../mapping/legacy-record.js';
import type { MappingSet } from '../mapping/mapping-set.js';
import { runMapping, type LegacyCall } from '../mapping/run.js';
import { API_KEY_PARAM, apiKeyOf } from '../upstream/api-key.js';
import type { V1Transport } from '../upstream/v1-client.js';
import { GatewayError } from '../errors.js';
import { sendLegacyError } from './error-reply.js';
import { contextOf } from './request-context.js';

export interface LegacyRouteDeps {
  mappings: MappingSet;
  transport: V1Transport;
  upstreamApiKey: string | undefined;
  accountTimezone: string | undefined;
  staticRecords: (setting: string) => readonly V1Record[] | undefined;
}

/** `/api/{method}/{segments...}` split from the raw URL (no percent-decoding: legacy segments are plain). */
export function legacyTarget(url: string): { method: string; segments: string[]; search: string } | undefined {
  const q = url.indexOf('?');
  const pathname = q < 0 ? url : url.slice(0, q);
  const match = /^\/api\/([a-z][a-z0-9_]*)(\/.*)?$/.exec(pathname);
  if (!match) return undefined;
  const rest = (match[2] ?? '').split('/').slice(1);
  // `/api/clients/0/5/` and `/api/clients/` are read as if the trailing slash were absent.
  while (rest.length > 0 && rest[rest.length - 1] === '') rest.pop();
  return { method: match[1]!, segments: rest, search: q < 0 ? '' : url.slice(q + 1) };
}

export function legacyRoute(deps: LegacyRouteDeps) {
  return async function serveLegacy(req: Request, res: Response, next: NextFunction): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const target = legacyTarget(req.originalUrl);
    const mapping = target && deps.mappings.get(target.method);
    if (!target || !mapping) return next();

    const ctx = contextOf(req);
    ctx.legacyMethod = mapping.method;
    const params = [...new URLSearchParams(target.search)];
    const apiKey = apiKeyOf(req.headers, params, deps.upstreamApiKey);
    const call: LegacyCall = { segments: target.segments, query: params.filter(([k]) => k !== API_KEY_PARAM) };
    const requestId = String(req.id);
    try {
      const body = await runMapping(mapping, call, {
        accountTimezone: deps.accountTimezone,
        staticRecords: deps.staticRecords,
        v1Get: async (v1Call) => {
          const started = performance.now();
          try {
            const reply = await deps.transport.getJson({ ...v1Call, apiKey, requestId });
            ctx.upstream.push({ path: v1Call.path, outcome: reply.status, ms: Math.round(performance.now() - started) });
            return reply.body;
          } catch (err) {
            const outcome = err instanceof GatewayError ? (err.code === 'LGW_UPSTREAM_ERROR' ? err.status : err.code) : 'error';
            ctx.upstream.push({ path: v1Call.path, outcome, ms: Math.round(performance.now() - started) });
            throw err;
          }
        },
      });
      writeJson(res, 200, body);
    } catch (err) {
      sendLegacyError(req, res, err);
    }
  };
}

export function writeJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('content-length', Buffer.byteLength(text));
  res.end(text);
}
