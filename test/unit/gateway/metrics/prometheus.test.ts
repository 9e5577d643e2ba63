// The prom-client metrics: label values come from closed sets whatever the caller passes, the request
// duration is split by status class, and the build's version is exported.
import { describe, expect, it } from 'vitest';
import { createPrometheusMetrics, packageVersion, statusClass, V1_RESOURCES } from '../../../../src/gateway/metrics/prometheus.js';
import { loadMappingDirectorySync } from '../../../../src/gateway/loaders/mapping-files.js';
import { resourceRead } from '../../../../src/legacy-surface/resources-touched.js';

const metrics = () => createPrometheusMetrics({ legacyMethods: ['clients'], processMetrics: false, version: '1.2.3' });
const lines = async (m: ReturnType<typeof metrics>, name: string) => (await m.registry.metrics()).split('\n').filter((l) => l.startsWith(`${name}{`));

describe('prometheus metrics', () => {
  it.each([
    [200, '2xx'],
    [204, '2xx'],
    [304, '3xx'],
    [404, '4xx'],
    [503, '5xx'],
    [101, '1xx'],
    [0, 'other'],
    [600, 'other'],
    [200.5, 'other'],
  ])('status %d is in class %s', (status, label) => {
    expect(statusClass(status)).toBe(label);
  });

  it("keeps an upstream call's resource and verb in their closed sets", async () => {
    const m = metrics();
    m.upstreamCall('ok', { resource: 'PATH-SECRET', verb: 'GET', seconds: 0.01 });
    m.upstreamCall('ok', { resource: 'payments', verb: 'DELETE' as 'GET', seconds: 0.01 });
    m.upstreamCall('made-up' as 'ok', { resource: 'clients', verb: 'POST', seconds: Number.NaN });
    const text = await m.registry.metrics();
    expect(text).not.toContain('SECRET');
    expect(text).not.toContain('DELETE');
    expect(text).toContain('legacy_gateway_upstream_requests_total{resource="other",verb="GET",outcome="ok"} 1');
    expect(text).toContain('legacy_gateway_upstream_requests_total{resource="payments",verb="GET",outcome="ok"} 1');
    expect(text).toContain('legacy_gateway_upstream_requests_total{resource="clients",verb="POST",outcome="unreachable"} 1');
    // A duration that is not a number is not observed.
    expect(await lines(m, 'legacy_gateway_upstream_request_duration_seconds_count')).toEqual([
      'legacy_gateway_upstream_request_duration_seconds_count{resource="other",verb="GET",outcome="ok"} 1',
      'legacy_gateway_upstream_request_duration_seconds_count{resource="payments",verb="GET",outcome="ok"} 1',
    ]);
  });

  it('times requests by method and status class', async () => {
    const m = metrics();
    m.requestStarted();
    m.requestFinished('clients', 200, 0.002);
    m.requestStarted();
    m.requestFinished('/api/secret', 502, 0.2);
    expect(await lines(m, 'legacy_gateway_request_duration_seconds_count')).toEqual([
      'legacy_gateway_request_duration_seconds_count{method="clients",status_class="2xx"} 1',
      'legacy_gateway_request_duration_seconds_count{method="other",status_class="5xx"} 1',
    ]);
  });

  it('exports the build version, given or read from package.json', async () => {
    expect(await lines(metrics(), 'legacy_gateway_build_info')).toEqual(['legacy_gateway_build_info{version="1.2.3"} 1']);
    expect(packageVersion()).toMatch(/^\d+\.\d+\.\d+/);
    const m = createPrometheusMetrics({ legacyMethods: [], processMetrics: false });
    expect(await lines(m, 'legacy_gateway_build_info')).toEqual([`legacy_gateway_build_info{version="${packageVersion()}"} 1`]);
  });

  it('names every resource the shipped mappings read or write', () => {
    const { reads, payment } = loadMappingDirectorySync('mappings');
    const named = new Set<string>(Object.values(payment!.resources));
    for (const mapping of reads.values()) {
      const resource = resourceRead(mapping);
      if (resource !== undefined) named.add(resource);
    }
    expect(named.size).toBeGreaterThan(5);
    for (const resource of named) expect(V1_RESOURCES).toContain(resource);
  });
});
