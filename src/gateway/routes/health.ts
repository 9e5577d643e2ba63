// The gateway's own routes: /healthz (the process answers) and /readyz (mappings loaded, upstream
// reachable, not draining). The upstream probe is a plain GET /api/v1: any HTTP answer means reachable.
// Redis (REDIS_URL) is named in the body but never makes /readyz fail: reads go on without it, and keyed
// payments are refused by their store, so taking every replica out of the balancer would only add an outage.
import { request } from 'undici';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { writeJson } from '../edge/write-json.js';

export interface ReadinessDeps {
  upstreamUrl: string;
  timeoutMs: number;
  isDraining: () => boolean;
  mappingCount: number;
  /** Said in every /readyz body (sandbox mode: the upstream is demo data). */
  notice?: string;
  /** With REDIS_URL: whether Redis answers right now (`"redis":"up"` or `"down"` in the body). */
  redisUp?: () => boolean;
}

/** Probes at most once per `cacheMs`, so a load balancer polling /readyz cannot flood the upstream. */
export function readinessProbe(deps: ReadinessDeps, cacheMs = 2000) {
  let last: { at: number; ok: boolean } | undefined;
  let pending: Promise<boolean> | undefined;

  async function probe(): Promise<boolean> {
    try {
      const res = await request(`${deps.upstreamUrl}/api/v1`, {
        method: 'GET',
        headersTimeout: Math.min(deps.timeoutMs, 3000),
        bodyTimeout: Math.min(deps.timeoutMs, 3000),
      });
      await res.body.dump();
      return true;
    } catch {
      return false;
    }
  }

  async function upstreamReachable(): Promise<boolean> {
    const now = Date.now();
    if (last && now - last.at < cacheMs) return last.ok;
    pending ??= probe().then((ok) => {
      last = { at: Date.now(), ok };
      pending = undefined;
      return ok;
    });
    return pending;
  }

  return {
    healthz(_req: IncomingMessage, res: ServerResponse): void {
      writeJson(res, 200, { status: 'ok' });
    },
    async readyz(_req: IncomingMessage, res: ServerResponse): Promise<void> {
      const sandbox = deps.notice === undefined ? {} : { sandbox: deps.notice };
      if (deps.isDraining()) return writeJson(res, 503, { status: 'draining', ...sandbox });
      const upstream = await upstreamReachable();
      const redis = deps.redisUp === undefined ? {} : { redis: deps.redisUp() ? 'up' : 'down' };
      writeJson(res, upstream ? 200 : 503, {
        status: upstream ? 'ready' : 'upstream unreachable',
        mappings: deps.mappingCount,
        upstream: upstream ? 'reachable' : 'unreachable',
        ...redis,
        ...sandbox,
      });
    },
  };
}
