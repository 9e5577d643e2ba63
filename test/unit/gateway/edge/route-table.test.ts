// The route table binds handlers to the legacy surface's routes, and decides nothing of its own: its routes,
// labels, methods, paths and body limits are the surface's.
import { beforeAll, describe, expect, it } from 'vitest';
import { SHIPPED_MAPPINGS_DIR } from '../../../../src/gateway/config.js';
import { LegacyRequest } from '../../../../src/gateway/edge/legacy-request.js';
import type { RouteHandler } from '../../../../src/gateway/edge/route.js';
import { buildRouteTable, type RouteHandlers, type RouteTable } from '../../../../src/gateway/edge/route-table.js';
import { loadMappingDirectory } from '../../../../src/gateway/loaders/mapping-files.js';
import { legacySurface, surfaceRoutes, type LegacySurface } from '../../../../src/legacy-surface/legacy-surface.js';

let surface: LegacySurface;
let table: RouteTable;
const handlers = new Map<string, RouteHandler>();

/** A distinct handler per route, named by its label, so a lookup shows which handler it bound. */
function namedHandlers(into = new Map<string, RouteHandler>()): RouteHandlers {
  const named = (label: string): RouteHandler => {
    const handler: RouteHandler = () => undefined;
    into.set(label, handler);
    return handler;
  };
  return { healthz: named('healthz'), readyz: named('readyz'), read: (mapping) => named(mapping.method), payment: named('payment'), passthrough: named('passthrough') };
}

beforeAll(async () => {
  const { reads, payment } = await loadMappingDirectory(SHIPPED_MAPPINGS_DIR);
  surface = legacySurface({ reads, payment });
  table = buildRouteTable(surface, namedHandlers(handlers));
});

const routeOf = (method: string, target: string) => table.lookup(new LegacyRequest(method, target, {}, undefined));

describe('the route table', () => {
  it("holds the surface's routes, in its order, each with its handler", () => {
    expect(table.routes().map((r) => [r.kind, r.label])).toEqual(surfaceRoutes(surface).map((r) => [r.kind, r.label]));
    for (const route of table.routes()) expect(route.handle).toBe(handlers.get(route.label));
  });

  it("bounds each route's body by the surface, but leaves the payment's to its route", () => {
    const limits = new Map(surfaceRoutes(surface).map((r) => [r.label, r.bodyLimitBytes]));
    for (const route of table.routes()) {
      expect(route.bodyLimit).toBe(route.kind === 'payment' ? Number.POSITIVE_INFINITY : limits.get(route.label));
    }
  });

  it('gives each read route its mapping', () => {
    for (const read of surface.reads) expect(table.routes().find((r) => r.label === read.label)?.mapping).toBe(read.mapping);
  });

  it.each([
    ['GET', '/api/clients/0/5', 'clients'],
    ['HEAD', '/api/clients', 'clients'],
    ['GET', '/api/staff/7?x=1', 'staff'],
    ['GET', '/api/unknown/1', 'passthrough'],
    ['POST', '/api/clients', 'passthrough'],
    ['GET', '/healthz', 'healthz'],
    ['HEAD', '/readyz?x=1', 'readyz'],
    ['GET', '/healthz/', 'passthrough'],
    ['DELETE', '/healthz', 'passthrough'],
    ['POST', '/api/payment', 'payment'],
    ['POST', '/api/payment/?x=1', 'payment'],
    ['GET', '/api/payment', 'passthrough'],
    ['POST', '/api/payment//', 'passthrough'],
    ['PUT', '/api/v1/clients/1', 'passthrough'],
  ])('%s %s -> %s', (method, target, label) => {
    expect(routeOf(method, target).label).toBe(label);
  });

  it('passes POST /api/payment through when the surface has no payment route', () => {
    const withoutPayment = buildRouteTable({ ...surface, payment: undefined }, namedHandlers());
    expect(withoutPayment.lookup(new LegacyRequest('POST', '/api/payment', {}, undefined)).label).toBe('passthrough');
    expect(withoutPayment.routes().map((r) => r.kind)).not.toContain('payment');
  });
});
