// /metrics: served on METRICS_PORT only (on the public port it is an unmapped path, passed through),
// with the metric names DESIGN.md fixes, counting what the gateway did; and no label value ever holds a
// key, a token, a password or any other value taken from a request.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { json, startRecordingUpstream, v1List, type RecordingUpstream } from '../helpers/recording-upstream.js';
import { fetchText, startHardenedGateway, type HardenedGateway } from './hardening-harness.js';

let upstream: RecordingUpstream;
let gateway: HardenedGateway;

beforeAll(async () => {
  upstream = await startRecordingUpstream();
  // A timeout no test reaches: every call the upstream answers is counted as answered, however slow the machine.
  gateway = await startHardenedGateway({ UPSTREAM_URL: upstream.url, UPSTREAM_API_KEY: 'OPERATOR-SECRET-KEY', METRICS_PORT: '0', UPSTREAM_TIMEOUT_MS: '600000' });
});
afterAll(async () => {
  await gateway.close();
  await upstream.close();
});
beforeEach(() => {
  upstream.handle((req, res) => {
    if (req.method === 'POST') return json(res, 201, { object: 'payment', id: 5 });
    if (/\/api\/v1\/clients\/\d+$/.test(req.url)) return json(res, 200, { object: 'client', id: 1 });
    if (req.url.startsWith('/api/v1/staff/')) return json(res, 503, { error: { code: 'down', message: 'down' } });
    return json(res, 200, v1List([{ object: 'staff', id: 1, first_name: 'Ann' }]));
  });
});

const scrape = async () => {
  const reply = await fetchText(`${gateway.metricsUrl!}/metrics`);
  expect(reply.status).toBe(200);
  expect(reply.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return reply.text;
};

/** The value of one sample line (`name{labels} value`), or undefined. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('/metrics', () => {
  it('is on METRICS_PORT, not on the public port', async () => {
    expect(gateway.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(gateway.metricsUrl).not.toBe(gateway.url);
    upstream.received.length = 0;
    await fetchText(`${gateway.url}/metrics`);
    expect(upstream.received.map((r) => r.url)).toEqual(['/metrics']);
    expect((await fetchText(`${gateway.metricsUrl!}/other`)).status).toBe(404);
  });

  it('counts requests, latency, upstream calls, cache events, retries, payments and requests in flight', async () => {
    await fetchText(`${gateway.url}/api/staffs/0/1`); // miss (stored), upstream ok
    await fetchText(`${gateway.url}/api/staffs/0/1`); // hit (the reply cache)
    await fetchText(`${gateway.url}/api/staffs/0/2`); // miss (stored), upstream ok
    await fetchText(`${gateway.url}/api/staff/3`); // 503 retried twice
    await fetchText(`${gateway.url}/api/staffs/x`); // 400, no upstream call
    await fetchText(`${gateway.url}/api/v1/clients?limit=1`); // passthrough
    await fetchText(`${gateway.url}/healthz`);
    await fetchText(`${gateway.url}/api/payment`, { method: 'POST', body: new URLSearchParams({ client_id: '1', revenue_amount: '1.00', send_email: '0' }) });
    await fetchText(`${gateway.url}/api/payment`, { method: 'POST', body: new URLSearchParams({ revenue_amount: '1.00' }) });

    const text = await scrape();
    expect(sample(text, 'legacy_gateway_requests_total{method="staffs",status="200"}')).toBe(3);
    expect(sample(text, 'legacy_gateway_requests_total{method="staffs",status="400"}')).toBe(1);
    expect(sample(text, 'legacy_gateway_requests_total{method="staff",status="503"}')).toBe(1);
    expect(sample(text, 'legacy_gateway_requests_total{method="passthrough",status="200"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'legacy_gateway_requests_total{method="healthz",status="200"}')).toBe(1);
    expect(sample(text, 'legacy_gateway_requests_total{method="payment",status="200"}')).toBe(2);
    expect(sample(text, 'legacy_gateway_request_duration_seconds_count{method="staffs",status_class="2xx"}')).toBe(3);
    expect(sample(text, 'legacy_gateway_request_duration_seconds_count{method="staffs",status_class="4xx"}')).toBe(1);
    expect(sample(text, 'legacy_gateway_request_duration_seconds_count{method="staff",status_class="5xx"}')).toBe(1);
    expect(text).toMatch(/^legacy_gateway_request_duration_seconds_bucket\{le="0\.005",method="staffs",status_class="2xx"\} \d+$/m);
    // Two staff pages, the payment's client check and its POST: ok; the staff record: 503, retried twice.
    expect(sample(text, 'legacy_gateway_upstream_requests_total{resource="staff",verb="GET",outcome="ok"}')).toBe(2);
    expect(sample(text, 'legacy_gateway_upstream_requests_total{resource="clients",verb="GET",outcome="ok"}')).toBe(1);
    expect(sample(text, 'legacy_gateway_upstream_requests_total{resource="payments",verb="POST",outcome="ok"}')).toBe(1);
    expect(sample(text, 'legacy_gateway_upstream_requests_total{resource="staff",verb="GET",outcome="server_error"}')).toBe(3);
    expect(sample(text, 'legacy_gateway_upstream_request_duration_seconds_count{resource="staff",verb="GET",outcome="server_error"}')).toBe(3);
    expect(sample(text, 'legacy_gateway_cache_events_total{event="hit"}')).toBe(1);
    expect(sample(text, 'legacy_gateway_cache_events_total{event="miss"}')).toBe(3);
    expect(sample(text, 'legacy_gateway_cache_events_total{event="stale"}')).toBe(0);
    expect(sample(text, 'legacy_gateway_retries_total')).toBe(2);
    expect(sample(text, 'legacy_gateway_payments_total{code="12"}')).toBe(1);
    expect(sample(text, 'legacy_gateway_payments_total{code="1"}')).toBe(1);
    expect(sample(text, 'legacy_gateway_in_flight_requests')).toBe(0);
    // Default process metrics, on this gateway's own registry.
    expect(text).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes \d/m);
  });

  it('shows a request in flight while it waits for the upstream', async () => {
    let release!: () => void;
    let arrived!: () => void;
    const inUpstream = new Promise<void>((resolve) => (arrived = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    upstream.handle(async (_req, res) => {
      arrived();
      await released;
      json(res, 200, v1List([]));
    });
    const pending = fetchText(`${gateway.url}/api/practitioners/0/1`);
    await inUpstream;
    expect(sample(await scrape(), 'legacy_gateway_in_flight_requests')).toBe(1);
    release();
    await pending;
    expect(sample(await scrape(), 'legacy_gateway_in_flight_requests')).toBe(0);
  });
});

describe('no secret reaches a metric label', () => {
  const secrets = ['HEADER-SECRET-KEY', 'QUERY-SECRET-KEY', 'PATH-SECRET', 'TOKEN-SECRET', 'PASSWORD-SECRET', 'OPERATOR-SECRET-KEY', 'VALUE-SECRET'];

  it('whatever the requests carried', async () => {
    await fetchText(`${gateway.url}/api/staffs/0/2`, { headers: { 'x-api-key': 'HEADER-SECRET-KEY' } });
    await fetchText(`${gateway.url}/api/staffs/0/2?api_key=QUERY-SECRET-KEY`);
    await fetchText(`${gateway.url}/api/PATH-SECRET/1`);
    await fetchText(`${gateway.url}/api/path_secret/1`);
    await fetchText(`${gateway.url}/api/clients/PATH-SECRET`);
    await fetchText(`${gateway.url}/api/client?email=VALUE-SECRET`);
    await fetchText(`${gateway.url}/PATH-SECRET`, { method: 'DELETE' });
    await fetchText(`${gateway.url}/api/payment?api_key=QUERY-SECRET-KEY`, {
      method: 'POST',
      body: new URLSearchParams({ client_id: '1', revenue_amount: '2.00', send_email: '0', token: 'TOKEN-SECRET', password: 'PASSWORD-SECRET', password2: 'x' }),
    });

    const text = await scrape();
    for (const secret of secrets) {
      expect(text).not.toContain(secret);
      expect(text.toLowerCase()).not.toContain(secret.toLowerCase());
    }
    // Every `method` label is a legacy method name or one of the gateway's own route names.
    const methods = new Set([...text.matchAll(/method="([^"]*)"/g)].map((m) => m[1]));
    const allowed = /^(clients|client|staffs|meetourstaff|staff|practitioners|meetourteam|practitioner|services|service|sessions|session|testimonials|passthrough|payment|healthz|readyz|rejected|other)$/;
    for (const method of methods) expect(method).toMatch(allowed);
    expect(methods.has('passthrough')).toBe(true);
  });
});
