// The bench's rows, in the order they run. Each ratio's two sides run one after the other (in both orders
// across rounds): on a shared machine the speed drifts over minutes, and a baseline measured far from its
// gateway row would carry that drift. A Node 26 row runs right after its Node 20 row.
import path from 'node:path';
import { type NginxSetup, nginxTargets } from './front-targets.js';
import { CACHE_OFF, launchGateway, type GatewayLauncher } from './gateway-launch.js';
import type { Keys, Load, TargetSpec } from './measure.js';
import { startNginxLua } from './nginx-lua-reshaper.js';
import type { NodeBinary } from './node-26.js';
import { startChild, type BenchProcess } from './processes.js';
import { redisEnv } from './redis-setup.js';
import type { BenchRedis } from './redis-server.js';
import { handfulOfKeys, newKeyPerRequest, payments } from './requests.js';
import type { SameBytes } from './same-bytes.js';
import * as names from './target-names.js';

export interface TargetContext {
  /** dist/bench/, where the child servers are. */
  here: string;
  launcher: GatewayLauncher;
  redis: BenchRedis | undefined;
  nginx: NginxSetup | undefined;
  node26: NodeBinary | undefined;
  rosterSizes: number[];
  connections: number;
  /** The baselines seen to answer the gateway's bytes, by size. */
  sameBytes: SameBytes | undefined;
}

interface GatewayOptions {
  env?: Record<string, string>;
  keys?: Keys;
  load?: () => Load;
  redis?: BenchRedis;
  /** Also run this row with the gateway on Node 26, right after it. */
  node26?: boolean;
}

const loadFor = (keys: Keys, urlPath: string) => () => ({ requests: keys === 'handful' ? handfulOfKeys(urlPath) : newKeyPerRequest(urlPath) });

function gatewayTargets(ctx: TargetContext, name: string, urlPath: string, options: GatewayOptions = {}): TargetSpec[] {
  const env = { ...(options.redis ? redisEnv(options.redis) : {}), ...options.env };
  const keys = options.keys ?? 'handful';
  const spec = (rowName: string, node?: NodeBinary): TargetSpec => ({
    name: rowName,
    path: urlPath,
    start: (upstream) => launchGateway(ctx.launcher, rowName, upstream.url, { env, ...(node ? { node: node.path } : {}) }),
    keys,
    load: options.load ?? loadFor(keys, urlPath),
    ...(options.redis ? { redis: options.redis } : {}),
  });
  return [spec(name), ...(options.node26 && ctx.node26 ? [spec(names.onNode26(name), ctx.node26)] : [])];
}

const childTarget = (ctx: TargetContext, name: string, script: string, urlPath: string, keys: Keys = 'handful'): TargetSpec => ({
  name,
  path: urlPath,
  start: (upstream) => startChild(name, path.join(ctx.here, script), ['--upstream', upstream.url], ctx.launcher.lifetimeS),
  keys,
  load: loadFor(keys, urlPath),
});

const directTarget = (name: string, urlPath: string): TargetSpec => ({
  name,
  path: urlPath,
  start: async (upstream) => upstream,
  shared: true,
  keys: 'handful',
  load: loadFor('handful', urlPath),
});

/**
 * A cold team listing of `members` practitioners: a new key per request, so every call reads every v1
 * page, sorts and cuts. The shared fake v1 holds 200; other sizes get a fake v1 of their own, started and
 * stopped with the gateway. The measured process is the gateway (its CPU and peak RSS).
 */
function teamColdTarget(ctx: TargetContext, members: number): TargetSpec {
  const name = names.teamCold(members);
  const start = async (shared: BenchProcess): Promise<BenchProcess> => {
    if (members === 200) return launchGateway(ctx.launcher, name, shared.url);
    const fake = await startChild(`fake v1, ${members} practitioners`, path.join(ctx.here, 'fake-v1.js'), ['--practitioners', String(members)], ctx.launcher.lifetimeS);
    try {
      const gw = await launchGateway(ctx.launcher, name, fake.url);
      return { ...gw, stop: async () => Promise.all([gw.stop(), fake.stop()]).then(() => undefined) };
    } catch (err) {
      await fake.stop();
      throw err;
    }
  };
  // A large roster's listing takes tens of milliseconds of CPU: a run of a few seconds would end with
  // listings still queued, counted in its CPU time but not in its replies. Such rows run a fixed count
  // (every call answered) instead: one per connection to warm up, then four per connection.
  const amount = members > 200 ? { amount: { warmup: ctx.connections, measured: 4 * ctx.connections } } : {};
  return { name, path: names.TEAM_PATH, start, keys: 'new per request', load: () => ({ requests: newKeyPerRequest(names.TEAM_PATH), ...amount }) };
}

/** The nginx + Lua reshaper at `records`, when it answered the gateway's bytes there. */
function nginxLuaRow(ctx: TargetContext, records: number, urlPath: string): TargetSpec[] {
  const lua = ctx.sameBytes?.nginxLua;
  if (!lua || !ctx.sameBytes?.nginxLuaSizes.has(records)) return [];
  const name = names.nginxLua(records);
  return [{ name, path: urlPath, start: (upstream) => startNginxLua(name, lua, upstream), keys: 'new per request', load: loadFor('new per request', urlPath) }];
}

/** The translated list at `records`: direct v1 (when given), the minimal reshaper, the relay, the gateway with
 * the cache off and a new key per request (each beside the reshaper; the same-bytes baselines on either side of
 * it), then the cached read. */
function translatedRows(ctx: TargetContext, records: number, extra: { direct?: boolean; uncachedAfter?: TargetSpec[]; cachedAfter?: TargetSpec[] }): TargetSpec[] {
  const urlPath = names.clientsPath(records);
  // The nginx front's rows come right after the gateway's own, before its Node 26 twin.
  const [uncached, ...uncached26] = gatewayTargets(ctx, names.translatedUncached(records), urlPath, { env: CACHE_OFF, keys: 'new per request', node26: true });
  const cached = records === 10 ? [] : gatewayTargets(ctx, names.translated(records), urlPath, { node26: true });
  return [
    ...(extra.direct ? [directTarget(names.direct(records), `/api/v1/clients?limit=${records}`)] : []),
    childTarget(ctx, names.reshaper(records), 'minimal-reshaper.js', urlPath, 'new per request'),
    ...(ctx.sameBytes?.relay.has(records) ? [childTarget(ctx, names.relay(records), 'relay.js', urlPath, 'new per request')] : []),
    ...(ctx.sameBytes?.handwritten.has(records) ? [childTarget(ctx, names.handwritten(records), 'handwritten-reshaper.js', urlPath, 'new per request')] : []),
    uncached!,
    ...nginxLuaRow(ctx, records, urlPath),
    ...(extra.uncachedAfter ?? []),
    ...uncached26,
    ...cached.slice(0, 1),
    ...(extra.cachedAfter ?? []),
    ...cached.slice(1),
  ];
}

export function targets(ctx: TargetContext): TargetSpec[] {
  const front = nginxTargets(ctx.nginx);
  const { redis } = ctx;
  const redisRow = (name: string, urlPath: string, load?: () => Load) =>
    redis ? gatewayTargets(ctx, names.withRedis(name), urlPath, { redis, ...(load ? { load } : {}) }) : [];
  return [
    ...front.passthrough,
    ...translatedRows(ctx, 100, {
      direct: true,
      uncachedAfter: front.translatedUncached,
      cachedAfter: [...front.translated, ...redisRow(names.translated(100), names.clientsPath(100))],
    }),
    ...translatedRows(ctx, 10, {}),
    ...translatedRows(ctx, 1000, { direct: true }),
    childTarget(ctx, names.BARE_PASSTHROUGH, 'bare-proxy.js', names.PASSTHROUGH_PATH),
    ...gatewayTargets(ctx, names.PASSTHROUGH, names.PASSTHROUGH_PATH, { node26: true }),
    ...ctx.rosterSizes.filter((n) => n === 200).map((n) => teamColdTarget(ctx, n)),
    ...gatewayTargets(ctx, names.TEAM_CACHED, names.TEAM_PATH, { node26: true }),
    ...ctx.rosterSizes.filter((n) => n !== 200).map((n) => teamColdTarget(ctx, n)),
    // What the one log line per request costs (DESIGN requires it at info): the same two, logs at warn.
    ...gatewayTargets(ctx, names.logsOff(names.translated(100)), names.clientsPath(100), { env: { LOG_LEVEL: 'warn' } }),
    ...gatewayTargets(ctx, names.logsOff(names.PASSTHROUGH), names.PASSTHROUGH_PATH, { env: { LOG_LEVEL: 'warn' } }),
    ...gatewayTargets(ctx, names.PAYMENT, '/api/payment', { load: payments, node26: true }),
    ...redisRow(names.PAYMENT, '/api/payment', payments),
  ];
}
