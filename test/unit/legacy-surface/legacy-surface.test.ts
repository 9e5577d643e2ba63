// The legacy surface's description: built from the mappings by a pure function, and the one place the routes,
// their paths and paging, the limits, the payment codes' meanings and the error codes are read from.
import { describe, expect, it } from 'vitest';
import {
  API_KEY_NAMES,
  PAYMENT_CODE_MEANINGS,
  READ_HTTP_METHODS,
  REQUEST_LIMITS,
  legacySurface,
  surfaceRoutes,
  type ReadRoute,
} from '../../../src/legacy-surface/legacy-surface.js';
import { validateMappingSet, type MappingSet } from '../../../src/mapping/mapping-set.js';
import { ALL_PAYMENT_CODES, PAYMENT_CODES } from '../../../src/payment/codes.js';
import { ERROR_CODES } from '../../../src/shared/errors.js';
import { isPaymentTarget, parseLegacyPath } from '../../../src/shared/request-target.js';

const thing = { fields: [{ name: 'id' }, { name: 'name' }], views: { all: 'all' } };
const common = (method: string) => ({ method, description: `the ${method}`, record: 'thing', view: 'all' });

/** One mapping of each kind, in this order. */
function mappings(): MappingSet {
  return validateMappingSet({
    records: [{ file: 'records/thing.yaml', name: 'thing', data: thing }],
    methods: [
      { file: 'things.yaml', data: { ...common('things'), kind: 'list', source: { resource: 'things' }, paging: { default: 20, max: 200 } } },
      {
        file: 'sorted.yaml',
        data: { ...common('sorted'), kind: 'sorted-list', source: { resource: 'things', pageSize: 100, maxPages: 5 }, paging: { default: 5, max: 50 }, sort: [{ field: 'name', type: 'text' }] },
      },
      { file: 'thing.yaml', data: { ...common('thing'), kind: 'detail', source: { resource: 'things' } } },
      {
        file: 'find.yaml',
        data: { ...common('find'), kind: 'lookup', source: { resource: 'things', pageSize: 100, maxPages: 3 }, exclusive: [{ param: 'id', via: 'detail', value: 'integer' }], notFound: 'no thing' },
      },
      { file: 'kept.yaml', data: { ...common('kept'), kind: 'static', source: { setting: 'KEPT_FILE' }, unavailable: 'not kept here' } },
    ],
  });
}

const PAYMENT = { bodyLimitBytes: 128 * 1024 };

const readOf = (label: string): ReadRoute => legacySurface({ reads: mappings(), payment: PAYMENT }).reads.find((r) => r.label === label)!;

describe('the legacy surface', () => {
  it('is a pure function of the mappings: the same input gives the same description, and the input is left as it was', () => {
    const reads = mappings();
    const before = structuredClone([...reads]);
    const a = legacySurface({ reads, payment: PAYMENT });
    const b = legacySurface({ reads, payment: PAYMENT });
    expect(a).toEqual(b);
    expect(a).not.toBe(b);
    expect([...reads]).toEqual(before);
  });

  it("has the gateway's own routes: GET and HEAD of /healthz and /readyz, with the gateway's body limit", () => {
    const { own } = legacySurface({ reads: mappings(), payment: PAYMENT });
    expect(own).toEqual([
      { kind: 'own', label: 'healthz', path: '/healthz', httpMethods: ['GET', 'HEAD'], bodyLimitBytes: 64 * 1024 },
      { kind: 'own', label: 'readyz', path: '/readyz', httpMethods: ['GET', 'HEAD'], bodyLimitBytes: 64 * 1024 },
    ]);
  });

  it('has one read route per mapping, in the mapping set\'s order, each serving its mapping with GET and HEAD', () => {
    const reads = mappings();
    const surface = legacySurface({ reads, payment: PAYMENT });
    expect(surface.reads.map((r) => r.label)).toEqual(['things', 'sorted', 'thing', 'find', 'kept']);
    for (const route of surface.reads) {
      expect(route.mapping).toBe(reads.get(route.label));
      expect(route.base).toBe(`/api/${route.label}`);
      expect(route.httpMethods).toEqual(READ_HTTP_METHODS);
      expect(route.bodyLimitBytes).toBe(REQUEST_LIMITS.gatewayBodyBytes);
      // The router finds it by the method name the path carries.
      expect(parseLegacyPath(route.base)?.method).toBe(route.label);
    }
  });

  it('gives a list its optional /{start}/{limit} segments and the paging its mapping names', () => {
    expect(readOf('things')).toMatchObject({
      template: '/api/things/{start}/{limit}',
      acceptedPaths: ['/api/things', '/api/things/{start}', '/api/things/{start}/{limit}'],
      segments: 'paging',
      paging: { default: 20, max: 200 },
    });
    expect(readOf('sorted')).toMatchObject({ template: '/api/sorted/{start}/{limit}', segments: 'paging', paging: { default: 5, max: 50 } });
  });

  it('gives a detail one /{id} segment, and a lookup or a static method no segment, none of them paging', () => {
    expect(readOf('thing')).toMatchObject({ template: '/api/thing/{id}', acceptedPaths: ['/api/thing/{id}'], segments: 'id', paging: undefined });
    expect(readOf('find')).toMatchObject({ template: '/api/find', acceptedPaths: ['/api/find'], segments: 'none', paging: undefined });
    expect(readOf('kept')).toMatchObject({ template: '/api/kept', acceptedPaths: ['/api/kept'], segments: 'none', paging: undefined });
  });

  it("has POST /api/payment with payment.yaml's body limit, its spellings those the path rules call the payment", () => {
    const { payment } = legacySurface({ reads: mappings(), payment: PAYMENT });
    expect(payment).toEqual({ kind: 'payment', label: 'payment', path: '/api/payment', paths: ['/api/payment', '/api/payment/'], httpMethods: ['POST'], bodyLimitBytes: 128 * 1024 });
    for (const path of payment!.paths) expect(isPaymentTarget('POST', path)).toBe(true);
    expect(isPaymentTarget('POST', '/api/payment//')).toBe(false);
  });

  it('has no payment route without a payment mapping', () => {
    const surface = legacySurface({ reads: mappings(), payment: undefined });
    expect(surface.payment).toBeUndefined();
    expect(surfaceRoutes(surface).map((r) => r.kind)).not.toContain('payment');
  });

  it('passes everything else through, streamed, up to 16 MB, moving a key out of the query', () => {
    const { passthrough, apiKey } = legacySurface({ reads: mappings(), payment: PAYMENT });
    expect(passthrough).toEqual({ kind: 'passthrough', label: 'passthrough', bodyLimitBytes: 16 * 1024 * 1024, streamed: true, keyQueryParam: 'api_key' });
    expect(apiKey).toEqual({ header: 'X-API-KEY', queryParam: 'api_key' });
    expect(apiKey).toBe(API_KEY_NAMES);
  });

  it('lists every route once, the fallback last, each under its own label', () => {
    const routes = surfaceRoutes(legacySurface({ reads: mappings(), payment: PAYMENT }));
    expect(routes.map((r) => r.label)).toEqual(['healthz', 'readyz', 'things', 'sorted', 'thing', 'find', 'kept', 'payment', 'passthrough']);
    expect(routes.map((r) => r.kind)).toEqual(['own', 'own', 'read', 'read', 'read', 'read', 'read', 'payment', 'passthrough']);
  });

  it('holds the limits the request guard enforces', () => {
    expect(legacySurface({ reads: mappings(), payment: PAYMENT }).limits).toBe(REQUEST_LIMITS);
    expect(REQUEST_LIMITS).toEqual({ maxUrlLength: 8192, maxQueryParams: 100, maxApiKeyLength: 256, gatewayBodyBytes: 65536, passthroughBodyBytes: 16777216 });
  });

  it('refers to the error registry as it is, never a copy', () => {
    expect(legacySurface({ reads: mappings(), payment: PAYMENT }).errorCodes).toBe(ERROR_CODES);
  });
});

describe('the payment codes', () => {
  const codes = legacySurface({ reads: mappings(), payment: PAYMENT }).paymentCodes;

  it('are every code, ascending, each under its name in PAYMENT_CODES', () => {
    expect(codes.map((c) => c.code)).toEqual(ALL_PAYMENT_CODES);
    for (const { name, code } of codes) expect(PAYMENT_CODES[name]).toBe(code);
  });

  it('each say what they mean, once: the meaning beside the code is PAYMENT_CODE_MEANINGS', () => {
    expect(Object.keys(PAYMENT_CODE_MEANINGS).sort()).toEqual(Object.keys(PAYMENT_CODES).sort());
    for (const { name, meaning } of codes) {
      expect(meaning).toBe(PAYMENT_CODE_MEANINGS[name]);
      expect(meaning.trim()).not.toBe('');
    }
    expect(new Set(codes.map((c) => c.meaning)).size).toBe(codes.length);
  });

  it('call code 12 the only success', () => {
    expect(codes.filter((c) => /success/.test(c.meaning)).map((c) => c.code)).toEqual([PAYMENT_CODES.paymentAdded]);
  });
});
