// The front routes agree with the gateway: for any method and raw target, the route the front's rules give
// (as nginx's map spells them, and as HAProxy's ACLs spell them) sends to the gateway exactly what the
// gateway would not pass through unchanged: its own route table's answer, plus the passthrough calls whose
// query may carry api_key. Pure: no server starts.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHIPPED_MAPPINGS_DIR } from '../../src/gateway/config.js';
import { queryMayHoldApiKey } from '../../src/gateway/edge/api-key.js';
import { LegacyRequest } from '../../src/gateway/edge/legacy-request.js';
import { REQUEST_LIMITS } from '../../src/gateway/edge/request-guard.js';
import { buildRouteTable, type RouteTable } from '../../src/gateway/edge/route-table.js';
import { frontRouteOf, frontRoutes, gatewayWaitMs, type FrontRouteKind, type FrontRoutes } from '../../src/gateway/front-proxy/front-routes.js';
import { loadMappingDirectory } from '../../src/gateway/loaders/mapping-files.js';
import { legacySurface } from '../../src/legacy-surface/legacy-surface.js';
import { routesConfig } from '../../src/commands/routes.js';

let routes: FrontRoutes;
let table: RouteTable;
let paymentLimit: number;

beforeAll(async () => {
  const { reads, payment } = await loadMappingDirectory(SHIPPED_MAPPINGS_DIR);
  paymentLimit = payment!.bodyLimitBytes;
  routes = frontRoutes({ reads, payment: payment!, upstreamTimeoutMs: 10_000 });
  const none = () => undefined;
  table = buildRouteTable(legacySurface({ reads, payment }), { healthz: none, readyz: none, read: () => none, payment: none, passthrough: none });
});

/** What the gateway does with a call: its route, or `keyed` for a passthrough whose query may hold api_key. */
function gatewayKind(method: string, target: string): FrontRouteKind {
  const request = new LegacyRequest(method, target, {}, undefined);
  const route = table.lookup(request);
  if (route.kind === 'passthrough') return queryMayHoldApiKey(request.search) ? 'keyed' : 'v1';
  return route.kind;
}

/** The route HAProxy's ACLs give: method list, exact paths or a regex over the raw path, query substrings. */
function haproxyKind(method: string, target: string): FrontRouteKind {
  const q = target.indexOf('?');
  const [pathPart, query] = q < 0 ? [target, ''] : [target.slice(0, q), target.slice(q + 1)];
  for (const route of routes.routes) {
    const { methods, exactPaths, path: pattern, queryContains } = route.match;
    if (methods && !methods.includes(method)) continue;
    if (exactPaths ? !exactPaths.includes(pathPart) : pattern !== undefined && !new RegExp(`^${pattern}$`).test(pathPart)) continue;
    if (queryContains && !queryContains.some((s) => query.includes(s))) continue;
    return route.kind;
  }
  throw new Error('no route: the last one matches everything');
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
const SEGMENTS = [
  'api', 'v1', 'clients', 'client', 'payment', 'healthz', 'readyz', 'testimonials', 'meetourteam', 'staff', 'sessions',
  'Clients', '%63lients', 'client_', 'clientsx', '', '0', '5', '10', 'assets', 'app.js', 'ondemand', 'api_key', '..', '.', '%2F', 'a%20b',
];
const QUERY_PARTS = ['api_key=k1', '%61pi_key=k2', 'api%5Fkey=k3', 'x=1', 'id=5', 'a%20b=1', '', 'API_KEY=1', 'api_ke=y', 'q=api_key', 'email=a%40b', '?', '&'];

const targets = fc
  .tuple(
    fc.array(fc.constantFrom(...SEGMENTS), { maxLength: 5 }),
    fc.boolean(),
    fc.option(fc.array(fc.constantFrom(...QUERY_PARTS), { maxLength: 4 }), { nil: undefined }),
  )
  .map(([segments, slash, query]) => `/${segments.join('/')}${slash ? '/' : ''}${query === undefined ? '' : `?${query.join('&')}`}`);

const CASES: Array<[string, string, FrontRouteKind]> = [
  ['GET', '/healthz', 'own'],
  ['HEAD', '/readyz?probe=1', 'own'],
  ['GET', '/healthz/', 'v1'],
  ['POST', '/healthz', 'v1'],
  ['GET', '/api/clients/0/5', 'read'],
  ['GET', '/api/clients', 'read'],
  ['GET', '/api/clients/', 'read'],
  ['HEAD', '/api/client?id=5', 'read'],
  ['GET', '/api/client?api_key=k&id=5', 'read'],
  ['GET', '/api/clientsx/0/5', 'v1'],
  ['GET', '/api/Clients/0/5', 'v1'],
  ['GET', '/api/%63lients/0/5', 'v1'],
  ['GET', '/api//clients', 'v1'],
  ['POST', '/api/clients/0/5', 'v1'],
  ['POST', '/api/payment', 'payment'],
  ['POST', '/api/payment/', 'payment'],
  ['POST', '/api/payment?x=1', 'payment'],
  ['POST', '/api/payment//', 'v1'],
  ['GET', '/api/payment', 'v1'],
  ['PUT', '/api/payment', 'v1'],
  ['GET', '/api/v1/clients?limit=2', 'v1'],
  ['GET', '/api/v1/clients?api_key=k', 'keyed'],
  ['GET', '/api/v1/clients?%61pi_key=k', 'keyed'],
  ['GET', '/api/v1/clients?api%5Fkey=k', 'keyed'],
  ['GET', '/assets/a%20b.js', 'v1'],
  ['GET', '/assets/x.js?v=%31', 'keyed'],
  ['POST', '/api/v1/payments?api_key=k', 'keyed'],
  ['GET', '/', 'v1'],
  ['GET', '/?', 'v1'],
  ['GET', '/ondemand/1/a/b', 'v1'],
];

describe('the front routes agree with the gateway', () => {
  it.each(CASES)('%s %s -> %s', (method, target, kind) => {
    expect(gatewayKind(method, target)).toBe(kind);
    expect(frontRouteOf(routes, method, target).kind).toBe(kind);
    expect(haproxyKind(method, target)).toBe(kind);
  });

  it('for any method and target, as nginx and as HAProxy spell them', () => {
    fc.assert(
      fc.property(fc.constantFrom(...METHODS), targets, (method, target) => {
        const expected = gatewayKind(method, target);
        expect(frontRouteOf(routes, method, target).kind).toBe(expected);
        expect(haproxyKind(method, target)).toBe(expected);
      }),
      { numRuns: 3000 },
    );
  });

  it('names every mapped legacy method, and routes each one to the gateway', () => {
    const mapped = table.routes().filter((r) => r.kind === 'read').map((r) => r.label).sort();
    expect(routes.readMethods).toEqual(mapped);
    expect(mapped).toHaveLength(13);
    for (const method of mapped) {
      expect(frontRouteOf(routes, 'GET', `/api/${method}`).to).toBe('gateway');
      expect(frontRouteOf(routes, 'GET', `/api/${method}/1/2?x=1`).to).toBe('gateway');
    }
  });
});

describe('limits, timeouts and replies', () => {
  const kind = (k: FrontRouteKind) => routes.routes.find((r) => r.kind === k)!;

  it("bodies: the payment's from payment.yaml, 64 KB on the gateway's own routes, 16 MB passed through", () => {
    expect(paymentLimit).toBe(256 * 1024);
    expect(kind('payment').bodyLimitBytes).toBe(paymentLimit);
    expect(kind('read').bodyLimitBytes).toBe(REQUEST_LIMITS.gatewayBodyBytes);
    expect(kind('own').bodyLimitBytes).toBe(REQUEST_LIMITS.gatewayBodyBytes);
    expect(kind('v1').bodyLimitBytes).toBe(REQUEST_LIMITS.passthroughBodyBytes);
    expect(kind('keyed').bodyLimitBytes).toBe(REQUEST_LIMITS.passthroughBodyBytes);
  });

  it('v1 is waited for UPSTREAM_TIMEOUT_MS, the gateway for as long as its longest payment may take', () => {
    expect(kind('v1').timeoutMs).toBe(10_000);
    expect(gatewayWaitMs(10_000)).toBe(145_000);
    for (const k of ['own', 'read', 'payment', 'keyed'] as const) expect(kind(k).timeoutMs).toBe(145_000);
  });

  it('only v1 and calls that may carry the key are streamed', () => {
    expect(routes.routes.filter((r) => r.streamed).map((r) => r.kind)).toEqual(['keyed', 'v1']);
  });

  it("the front's own replies are the gateway's, byte for byte", () => {
    expect(kind('payment').replies.tooLarge).toEqual({ status: 413, body: '{"status":"failure","code":0,"response":"the request body is larger than 262144 bytes"}' });
    expect(kind('read').replies.tooLarge).toEqual({ status: 413, body: '{"status":"failure","response":"the request body is larger than 65536 bytes"}' });
    expect(kind('v1').replies.unreachable).toEqual({ status: 502, body: '{"status":"failure","response":"the upstream could not be reached"}' });
    expect(kind('v1').replies.timedOut).toEqual({ status: 504, body: '{"status":"failure","response":"the upstream did not answer within 10000 ms"}' });
    expect(JSON.parse(kind('payment').replies.unreachable.body)).toMatchObject({ status: 'failure', code: 8 });
  });
});

describe('adding a mapping file changes the generated routes, with no other edit', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'lgw-mappings-'));
    cpSync(SHIPPED_MAPPINGS_DIR, dir, { recursive: true });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const generate = (format: string) =>
    routesConfig({ format, mappings: dir, gateway: ['http://127.0.0.1:8081'], upstream: 'http://127.0.0.1:9000' }, {});

  it.each(['nginx', 'haproxy'])('%s', async (format) => {
    rmSync(path.join(dir, 'widgets.yaml'), { force: true });
    const before = await generate(format);
    expect(before).not.toContain('widgets');
    const clients = readFileSync(path.join(dir, 'clients.yaml'), 'utf8');
    writeFileSync(path.join(dir, 'widgets.yaml'), clients.replace(/^method: clients$/m, 'method: widgets'));
    const after = await generate(format);
    expect(after).toContain('|widgets)');
    // The one change is the new method in the list of mapped methods.
    expect(after.replace(/\|widgets/g, '').replace(/,widgets/g, '')).toBe(before);
  });
});
