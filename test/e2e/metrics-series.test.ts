// The series /metrics holds after one read and one payment against a recording fake v1: every exchange with
// v1 by resource, verb and outcome (the payment's POST included) with its duration histogram, the request
// duration by legacy method and status class, the build's version, and every payment code and claims event
// from the start at 0.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDEMPOTENCY_EVENTS } from '../../src/gateway/metrics/gateway-metrics.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { json, startRecordingUpstream, v1List, type RecordingUpstream } from '../helpers/recording-upstream.js';

let upstream: RecordingUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startRecordingUpstream((req, res) => {
    if (req.method === 'POST' && req.url === '/api/v1/payments') return json(res, 201, { object: 'payment', id: 5 });
    if (/^\/api\/v1\/clients\/\d+$/.test(req.url)) return json(res, 200, { object: 'client', id: 1 });
    return json(res, 200, v1List([{ object: 'client', id: 1, first_name: 'Ann', last_name: 'Lee' }]));
  });
  gateway = await startTestGateway({ UPSTREAM_URL: upstream.url, METRICS_PORT: '0', LOG_LEVEL: 'warn' });
});
afterAll(async () => {
  await gateway.close();
  await upstream.close();
});

const scrape = async (): Promise<string> => (await fetch(`${gateway.metricsUrl!}/metrics`)).text();

/** Every sample of one metric (`name{labels}` -> value), its zeros included. */
function samples(text: string, name: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const cut = line.lastIndexOf(' ');
    found.set(line.slice(0, cut), Number(line.slice(cut + 1)));
  }
  return found;
}

/** The samples of one metric that are not 0. */
const nonZero = (text: string, name: string): Record<string, number> => Object.fromEntries([...samples(text, name)].filter(([, value]) => value !== 0));

describe('/metrics from the start', () => {
  it('holds every payment code, every claims event of both claims, the known upstream series at 0, and the version', async () => {
    const text = await scrape();
    const version = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
    expect(samples(text, 'legacy_gateway_build_info')).toEqual(new Map([[`legacy_gateway_build_info{version="${version}"}`, 1]]));

    const payments = samples(text, 'legacy_gateway_payments_total');
    expect([...payments.keys()].sort()).toEqual(Array.from({ length: 13 }, (_, code) => `legacy_gateway_payments_total{code="${code}"}`).sort());
    expect([...payments.values()].every((v) => v === 0)).toBe(true);

    const events = samples(text, 'legacy_gateway_idempotency_events_total');
    const expected = ['key', 'keyless'].flatMap((claim) => IDEMPOTENCY_EVENTS.map((event) => `legacy_gateway_idempotency_events_total{event="${event}",claim="${claim}"}`));
    expect([...events.keys()].sort()).toEqual(expected.sort());
    expect([...events.values()].every((v) => v === 0)).toBe(true);

    const upstreamSeries = samples(text, 'legacy_gateway_upstream_requests_total');
    expect(upstreamSeries.get('legacy_gateway_upstream_requests_total{resource="payments",verb="POST",outcome="server_error"}')).toBe(0);
    expect(upstreamSeries.get('legacy_gateway_upstream_requests_total{resource="clients",verb="GET",outcome="timeout"}')).toBe(0);
    expect(upstreamSeries.get('legacy_gateway_upstream_requests_total{resource="staff",verb="POST",outcome="ok"}')).toBeUndefined();
    expect([...upstreamSeries.values()].every((v) => v === 0)).toBe(true);
    expect(nonZero(text, 'legacy_gateway_upstream_request_duration_seconds_count')).toEqual({});
  });
});

describe('/metrics after a read and a payment', () => {
  it('counts each v1 exchange by resource, verb and outcome, times it, and times each request by method and status class', async () => {
    expect((await fetch(`${gateway.url}/api/clients/0/1`)).status).toBe(200);
    const paid = await fetch(`${gateway.url}/api/payment`, { method: 'POST', body: new URLSearchParams({ client_id: '1', revenue_amount: '1.00', send_email: '0' }) });
    expect(paid.status).toBe(200);
    expect(await paid.text()).toContain('payment added');
    expect(upstream.received.map((r) => `${r.method} ${r.url.split('?')[0]}`)).toEqual(['GET /api/v1/clients', 'GET /api/v1/clients/1', 'GET /api/v1/payments', 'POST /api/v1/payments']);

    const text = await scrape();
    expect(nonZero(text, 'legacy_gateway_upstream_requests_total')).toEqual({
      'legacy_gateway_upstream_requests_total{resource="clients",verb="GET",outcome="ok"}': 2,
      'legacy_gateway_upstream_requests_total{resource="payments",verb="GET",outcome="ok"}': 1,
      'legacy_gateway_upstream_requests_total{resource="payments",verb="POST",outcome="ok"}': 1,
    });
    expect(nonZero(text, 'legacy_gateway_upstream_request_duration_seconds_count')).toEqual({
      'legacy_gateway_upstream_request_duration_seconds_count{resource="clients",verb="GET",outcome="ok"}': 2,
      'legacy_gateway_upstream_request_duration_seconds_count{resource="payments",verb="GET",outcome="ok"}': 1,
      'legacy_gateway_upstream_request_duration_seconds_count{resource="payments",verb="POST",outcome="ok"}': 1,
    });
    expect(samples(text, 'legacy_gateway_upstream_request_duration_seconds_bucket').get('legacy_gateway_upstream_request_duration_seconds_bucket{le="+Inf",resource="payments",verb="POST",outcome="ok"}')).toBe(1);
    expect(samples(text, 'legacy_gateway_upstream_request_duration_seconds_sum').get('legacy_gateway_upstream_request_duration_seconds_sum{resource="payments",verb="POST",outcome="ok"}')).toBeGreaterThan(0);

    expect(nonZero(text, 'legacy_gateway_request_duration_seconds_count')).toEqual({
      'legacy_gateway_request_duration_seconds_count{method="clients",status_class="2xx"}': 1,
      'legacy_gateway_request_duration_seconds_count{method="payment",status_class="2xx"}': 1,
    });
    expect(nonZero(text, 'legacy_gateway_requests_total')).toEqual({
      'legacy_gateway_requests_total{method="clients",status="200"}': 1,
      'legacy_gateway_requests_total{method="payment",status="200"}': 1,
    });
    expect(nonZero(text, 'legacy_gateway_payments_total')).toEqual({ 'legacy_gateway_payments_total{code="12"}': 1 });
    expect(samples(text, 'legacy_gateway_payments_total').size).toBe(13);
    expect(nonZero(text, 'legacy_gateway_idempotency_events_total')).toEqual({ 'legacy_gateway_idempotency_events_total{event="claimed",claim="keyless"}': 1 });
  });

  it('counts a POST v1 refuses by its outcome, and a 4xx request in its status class', async () => {
    upstream.handle((req, res) => {
      if (req.method === 'POST') return json(res, 503, { error: { code: 'down', message: 'down' } });
      return json(res, 200, { object: 'client', id: 2 });
    });
    await (await fetch(`${gateway.url}/api/payment`, { method: 'POST', body: new URLSearchParams({ client_id: '2', revenue_amount: '3.00', send_email: '0' }) })).text();
    await (await fetch(`${gateway.url}/api/clients/x/y`)).text();
    const text = await scrape();
    expect(samples(text, 'legacy_gateway_upstream_requests_total').get('legacy_gateway_upstream_requests_total{resource="payments",verb="POST",outcome="server_error"}')).toBe(1);
    expect(samples(text, 'legacy_gateway_upstream_request_duration_seconds_count').get('legacy_gateway_upstream_request_duration_seconds_count{resource="payments",verb="POST",outcome="server_error"}')).toBe(1);
    expect(samples(text, 'legacy_gateway_request_duration_seconds_count').get('legacy_gateway_request_duration_seconds_count{method="clients",status_class="4xx"}')).toBe(1);
    // The POST is never retried: one exchange.
    expect(upstream.received.filter((r) => r.method === 'POST')).toHaveLength(2);
  });
});
