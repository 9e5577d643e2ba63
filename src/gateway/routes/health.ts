// The gateway's own routes: /healthz (the process answers) and /readyz (mappings loaded, upstream
// reachable, not draining). The upstream probe is a plain GET /api/v1: any HTTP answer means reachable, but
// a 404 `unknown_resource`: v1 does not know /api/v1 there, so UPSTREAM_URL is not the service's base URL and
// every call would answer the same (503, saying so).
// Redis (REDIS_URL) and the store holding the payment claims (IDEMPOTENCY_URL, or REDIS_URL) are named in
// the body but never make /readyz fail: reads go on without them, and payments are refused by their store,
// so taking every replica out of the balancer would only add an outage.
import type { RequestContext } from '../edge/request-context.js';
import { writeJson } from '../edge/write-json.js';
import { Pool, requestOn } from '../upstream/undici-parts.js';

export interface ReadinessDeps {
  upstreamUrl: string;
  timeoutMs: number;
  isDraining: () => boolean;
  /** The legacy methods in service (a reload may change them). */
  mappingCount: () => number;
  /** Said in every /readyz body (sandbox mode: the upstream is demo data). */
  notice?: string;
  /** With REDIS_URL: whether Redis answers right now (`"redis":"up"` or `"down"` in the body). */
  redisUp?: () => boolean;
  /** With a shared claims store: whether it answers right now (`"claims":"up"` or `"down"` in the body). */
  claimsUp?: () => boolean;
}

/** What the probe learnt of the upstream. */
type UpstreamState = 'reachable' | 'unreachable' | 'unknown_resource';

/** The most of a 404's body read to find v1's error code in it. */
const MAX_PROBE_BODY = 16 * 1024;

/** Whether a 404 body is v1's `{"error":{"code":"unknown_resource",...}}`. */
async function isUnknownResource(body: { text(): Promise<string>; dump(): Promise<void> }, length: string | string[] | undefined): Promise<boolean> {
  if (typeof length === 'string' && Number(length) > MAX_PROBE_BODY) {
    await body.dump();
    return false;
  }
  try {
    const parsed: unknown = JSON.parse(await body.text());
    const error = typeof parsed === 'object' && parsed !== null ? (parsed as { error?: unknown }).error : undefined;
    return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'unknown_resource';
  } catch {
    return false;
  }
}

/** Probes at most once per `cacheMs`, so a load balancer polling /readyz cannot flood the upstream. */
export function readinessProbe(deps: ReadinessDeps, cacheMs = 2000) {
  let last: { at: number; state: UpstreamState } | undefined;
  let pending: Promise<UpstreamState> | undefined;
  const target = new URL(`${deps.upstreamUrl}/api/v1`);
  // One connection, made on the first probe; idle, it does not keep the process alive.
  let pool: Pool | undefined;

  async function probe(): Promise<UpstreamState> {
    try {
      pool ??= new Pool(target.origin, { connections: 1 });
      const res = await requestOn(pool, {
        path: `${target.pathname}${target.search}`,
        method: 'GET',
        headersTimeout: Math.min(deps.timeoutMs, 3000),
        bodyTimeout: Math.min(deps.timeoutMs, 3000),
      });
      if (res.statusCode === 404 && (await isUnknownResource(res.body, res.headers['content-length']))) return 'unknown_resource';
      await res.body.dump();
      return 'reachable';
    } catch {
      return 'unreachable';
    }
  }

  async function upstreamState(): Promise<UpstreamState> {
    const now = Date.now();
    if (last && now - last.at < cacheMs) return last.state;
    pending ??= probe().then((state) => {
      last = { at: Date.now(), state };
      pending = undefined;
      return state;
    });
    return pending;
  }

  return {
    healthz(ctx: RequestContext): void {
      writeJson(ctx, 200, { status: 'ok' });
    },
    async readyz(ctx: RequestContext): Promise<void> {
      const sandbox = deps.notice === undefined ? {} : { sandbox: deps.notice };
      if (deps.isDraining()) return writeJson(ctx, 503, { status: 'draining', ...sandbox });
      const upstream = await upstreamState();
      const redis = deps.redisUp === undefined ? {} : { redis: deps.redisUp() ? 'up' : 'down' };
      const claims = deps.claimsUp === undefined ? {} : { claims: deps.claimsUp() ? 'up' : 'down' };
      const ready = upstream === 'reachable';
      writeJson(ctx, ready ? 200 : 503, {
        status: ready ? 'ready' : upstream === 'unreachable' ? 'upstream unreachable' : 'upstream misaddressed',
        mappings: deps.mappingCount(),
        upstream,
        ...(upstream === 'unknown_resource'
          ? { problem: "v1 answers its probe (GET /api/v1) with 404 unknown_resource: UPSTREAM_URL is not the service's base URL, and every v1 call would answer unknown_resource" }
          : {}),
        ...redis,
        ...claims,
        ...sandbox,
      });
    },
  };
}
