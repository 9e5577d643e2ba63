// OpenTelemetry traces, black box: `serve` with OTEL_EXPORTER_OTLP_ENDPOINT naming a fake OTLP/HTTP
// collector (a loopback node:http server recording what is POSTed to /v1/traces, in http/json so the
// bodies read as JSON), in front of a recording fake v1. A read and a payment sent with a caller's
// `traceparent` give a SERVER span continuing the caller's trace and CLIENT spans, its children, one per
// v1 call, whose `traceparent` reached v1; no attribute holds the key, the card token, the e-mail or a
// query value. The spans still buffered are sent when the gateway drains (SIGTERM). Without OTEL_*, no
// @opentelemetry package is loaded (the same preload check as serve-modules.test.ts); a grpc protocol is
// refused at start with one line naming the variable.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runGatewayProcess, startGatewayProcess, type GatewayProcess } from '../helpers/gateway-process.js';
import { json, startRecordingUpstream, v1List, type RecordingUpstream } from '../helpers/recording-upstream.js';

const CALLER_KEY = 'caller-api-key-TRACING-SECRET-1';
const TOKEN = 'tok_visa_TRACING_SECRET';
const EMAIL = 'grace.tracing@example.org';
const QUERY_VALUE = 'QUERYVALUE-tracing-77';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_SPAN_ID = '00f067aa0ba902b7';
const PAYMENT_TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const PAYMENT_PARENT_SPAN_ID = 'b7ad6b7169203331';
const traceparent = (traceId: string, spanId: string) => `00-${traceId}-${spanId}-01`;

interface OtlpAttribute {
  key: string;
  value: Record<string, unknown>;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: OtlpAttribute[];
}
interface OtlpExport {
  resourceSpans: Array<{ resource?: { attributes?: OtlpAttribute[] }; scopeSpans: Array<{ spans: OtlpSpan[] }> }>;
}

/** OTLP/JSON's SpanKind numbers. */
const SERVER = 2;
const CLIENT = 3;

interface FakeCollector {
  url: string;
  exports: OtlpExport[];
  /** Every raw body received (for the check that no secret is anywhere in them). */
  bodies: string[];
  close(): Promise<void>;
}

async function startFakeCollector(): Promise<FakeCollector> {
  const exports: OtlpExport[] = [];
  const bodies: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/traces') {
        const text = Buffer.concat(chunks).toString('utf8');
        bodies.push(text);
        exports.push(JSON.parse(text) as OtlpExport);
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exports,
    bodies,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** OTLP/JSON gives ids as hex strings. */
const spansOf = (collector: FakeCollector): OtlpSpan[] => collector.exports.flatMap((e) => e.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)));
const attribute = (span: OtlpSpan, key: string): unknown => {
  const value = span.attributes?.find((a) => a.key === key)?.value;
  return value === undefined ? undefined : Object.values(value)[0];
};

let v1: RecordingUpstream;
let collector: FakeCollector;

beforeAll(async () => {
  collector = await startFakeCollector();
  v1 = await startRecordingUpstream((req, res) => {
    const url = new URL(req.url, 'http://v1');
    if (req.method === 'GET' && url.pathname === '/api/v1/clients') {
      return json(res, 200, v1List([{ object: 'client', id: 1, first_name: 'Grace', last_name: 'Hopper', email: EMAIL }]));
    }
    if (req.method === 'GET' && url.pathname.startsWith('/api/v1/clients/')) return json(res, 200, { object: 'client', id: 1 });
    if (req.method === 'GET' && url.pathname === '/api/v1/timezones') return json(res, 200, v1List([{ object: 'timezone', id: 1, name: 'America/New_York' }]));
    if (req.method === 'POST' && url.pathname === '/api/v1/clients') return json(res, 201, { object: 'client', id: 77 });
    if (req.method === 'POST' && url.pathname === '/api/v1/payments') return json(res, 201, { object: 'payment', id: 901, client_id: 77, amount: 30 });
    json(res, 404, { error: { code: 'unknown_resource', message: 'no such resource' } });
  });
});
afterAll(async () => {
  await v1?.close();
  await collector?.close();
});

describe('tracing on (OTEL_EXPORTER_OTLP_ENDPOINT, http/json)', () => {
  let gateway: GatewayProcess;

  beforeAll(async () => {
    gateway = await startGatewayProcess(v1.url, {
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'gateway-under-test',
      // Nothing is sent before the drain: the test checks the spans are flushed on close.
      OTEL_BSP_SCHEDULE_DELAY: '600000',
      CACHE_TTL_MS: '0',
    });
    const read = await fetch(`${gateway.url}/api/clients/0/50?note=${QUERY_VALUE}`, {
      headers: { 'x-api-key': CALLER_KEY, traceparent: traceparent(TRACE_ID, PARENT_SPAN_ID) },
    });
    expect(read.status).toBe(200);
    await read.text();
    const byEmail = await fetch(`${gateway.url}/api/client?email=${encodeURIComponent(EMAIL)}`, { headers: { 'x-api-key': CALLER_KEY } });
    await byEmail.text();
    const paid = await fetch(`${gateway.url}/api/payment`, {
      method: 'POST',
      headers: { 'x-api-key': CALLER_KEY, traceparent: traceparent(PAYMENT_TRACE_ID, PAYMENT_PARENT_SPAN_ID) },
      body: new URLSearchParams({
        first_name: 'Nia',
        last_name: 'Okafor',
        email: EMAIL,
        state: 'IL',
        country: 'US',
        status: 'active',
        revenue_amount: '30.00',
        send_email: '1',
        token: TOKEN,
      }),
    });
    expect(await paid.json()).toMatchObject({ status: 'success' });
    expect(spansOf(collector)).toEqual([]);
    await gateway.stop('SIGTERM');
  });
  afterAll(async () => {
    await gateway?.stop('SIGKILL');
  });

  it('the drain sends the spans, with the service name', () => {
    expect(spansOf(collector).length).toBeGreaterThan(0);
    const names = collector.exports.flatMap((e) => e.resourceSpans.map((r) => r.resource?.attributes?.find((a) => a.key === 'service.name')?.value));
    expect(names).toContainEqual({ stringValue: 'gateway-under-test' });
  });

  it('a read: a SERVER span continuing the caller trace, the v1 GET a CLIENT span under it, its traceparent at v1', () => {
    const spans = spansOf(collector).filter((s) => s.traceId === TRACE_ID);
    const server = spans.filter((s) => s.kind === SERVER);
    expect(server).toHaveLength(1);
    expect(server[0]).toMatchObject({ parentSpanId: PARENT_SPAN_ID, name: 'GET clients' });
    expect(attribute(server[0]!, 'http.request.method')).toBe('GET');
    expect(attribute(server[0]!, 'http.response.status_code')).toBe(200);
    expect(attribute(server[0]!, 'legacy_gateway.route')).toBe('clients');
    const clients = spans.filter((s) => s.kind === CLIENT);
    expect(clients.map((s) => s.name)).toEqual(['GET clients']);
    expect(clients.every((s) => s.parentSpanId === server[0]!.spanId)).toBe(true);
    const sent = v1.received.filter((r) => typeof r.headers.traceparent === 'string' && r.headers.traceparent.includes(TRACE_ID));
    expect(sent.map((r) => `${r.method} ${new URL(r.url, 'http://v1').pathname}`)).toEqual(['GET /api/v1/clients']);
    expect(sent[0]!.headers.traceparent).toBe(traceparent(TRACE_ID, clients[0]!.spanId));
  });

  it('a payment: its v1 calls (GETs, the client POST, the payment POST) are CLIENT spans under its SERVER span', () => {
    const spans = spansOf(collector).filter((s) => s.traceId === PAYMENT_TRACE_ID);
    const server = spans.filter((s) => s.kind === SERVER);
    expect(server).toHaveLength(1);
    expect(server[0]).toMatchObject({ parentSpanId: PAYMENT_PARENT_SPAN_ID, name: 'POST payment' });
    expect(attribute(server[0]!, 'legacy_gateway.payment_code')).toBe(12);
    const clients = spans.filter((s) => s.kind === CLIENT);
    expect(clients.map((s) => s.name)).toEqual(expect.arrayContaining(['POST clients', 'POST payments']));
    expect(clients.every((s) => s.parentSpanId === server[0]!.spanId)).toBe(true);
    const atV1 = v1.received.filter((r) => String(r.headers.traceparent).includes(PAYMENT_TRACE_ID));
    expect(atV1.length).toBe(clients.length);
    expect(atV1.map((r) => r.method)).toEqual(expect.arrayContaining(['POST', 'POST']));
    // Every v1 call of the payment carried a traceparent of one of its client spans.
    const ids = new Set(clients.map((s) => s.spanId));
    expect(atV1.every((r) => ids.has(String(r.headers.traceparent).split('-')[2]!))).toBe(true);
  });

  it('a request without traceparent starts a trace of its own, its client spans still its children', () => {
    const server = spansOf(collector).find((s) => s.kind === SERVER && s.name === 'GET client');
    expect(server).toBeDefined();
    expect(server!.parentSpanId ?? '').toBe('');
    const clients = spansOf(collector).filter((s) => s.kind === CLIENT && s.traceId === server!.traceId);
    expect(clients.length).toBeGreaterThan(0);
    expect(clients.every((s) => s.parentSpanId === server!.spanId)).toBe(true);
  });

  it('no span holds the API key, the card token, the e-mail or a query value; names carry no ids', () => {
    const text = collector.bodies.join('\n');
    for (const secret of [CALLER_KEY, TOKEN, EMAIL, encodeURIComponent(EMAIL), QUERY_VALUE, 'grace.tracing', 'example.org']) expect(text).not.toContain(secret);
    const keys = new Set(spansOf(collector).flatMap((s) => (s.attributes ?? []).map((a) => a.key)));
    expect([...keys].sort()).toEqual(
      ['error.type', 'http.request.method', 'http.response.status_code', 'legacy_gateway.payment_code', 'legacy_gateway.route'].filter((k) => keys.has(k)),
    );
    for (const span of spansOf(collector)) expect(span.name).toMatch(/^(GET|POST|_OTHER) [a-z][a-z0-9-]*$/);
  });
});

describe('tracing off', () => {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'lgw-tracing-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));
  const cli = path.join(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..'), 'dist/cli.js');

  // The packages loaded, as the process has them once it listens and has served a read: a preload lists
  // the CommonJS module cache (the SDK is CommonJS) on SIGUSR2, as serve-modules.test.ts does.
  async function packagesLoaded(env: Record<string, string>): Promise<string[]> {
    const preload = path.join(scratch, 'list-packages.mjs');
    writeFileSync(
      preload,
      `import { createRequire } from 'node:module';
import { writeSync } from 'node:fs';
const cache = createRequire(import.meta.url).cache;
process.on('SIGUSR2', () => {
  const packages = new Set(Object.keys(cache).map((f) => /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(f)?.[1]).filter(Boolean));
  writeSync(2, 'PACKAGES ' + JSON.stringify([...packages].sort()) + '\\n');
});
`,
    );
    const child = spawn(process.execPath, ['--import', preload, cli, 'serve'], {
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', HOST: '127.0.0.1', PORT: '0', UPSTREAM_URL: v1.url, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = once(child, 'exit');
    try {
      const failed = exited.then(([code]) => Promise.reject(new Error(`serve exited with ${String(code)}`)));
      const port = new Promise<number>((resolve) => {
        createInterface({ input: child.stdout! }).on('line', (line) => {
          if (line.includes('"msg":"legacy-gateway listening"')) resolve((JSON.parse(line) as { port: number }).port);
        });
      });
      const read = await fetch(`http://127.0.0.1:${await Promise.race([port, failed])}/api/clients/0/5`, { headers: { 'x-api-key': CALLER_KEY } });
      expect(read.status).toBe(200);
      await read.text();
      const listed = new Promise<string>((resolve) => {
        createInterface({ input: child.stderr! }).on('line', (line) => {
          if (line.startsWith('PACKAGES ')) resolve(line.slice('PACKAGES '.length));
        });
      });
      child.kill('SIGUSR2');
      return JSON.parse(await Promise.race([listed, failed])) as string[];
    } finally {
      child.kill('SIGKILL');
      await exited;
    }
  }

  // prom-client requires @opentelemetry/api (its exemplars) whatever the settings, and always has: the
  // API alone is a no-op facade of a few kilobytes. The SDK, the exporters and their dependencies are not.
  const sdkPackages = (packages: string[]) => packages.filter((p) => p.startsWith('@opentelemetry/') && p !== '@opentelemetry/api');

  it('without OTEL_* no @opentelemetry package is loaded, and v1 gets no traceparent', async () => {
    v1.received.length = 0;
    const packages = await packagesLoaded({});
    expect(packages).toContain('undici');
    expect(sdkPackages(packages)).toEqual([]);
    expect(v1.received.length).toBeGreaterThan(0);
    expect(v1.received.every((r) => r.headers.traceparent === undefined)).toBe(true);
  });

  it.each([
    [{ OTEL_SDK_DISABLED: 'true' }],
    [{ OTEL_TRACES_EXPORTER: 'none' }],
  ])('an endpoint set but tracing turned off (%o): nothing loaded either', async (off) => {
    const packages = await packagesLoaded({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, ...off });
    expect(sdkPackages(packages)).toEqual([]);
  });

  it('with an endpoint set, the SDK is loaded (the check above can see it)', async () => {
    const packages = await packagesLoaded({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${collector.url}/v1/traces` });
    expect(packages).toContain('@opentelemetry/sdk-trace-node');
  });

  it('grpc is refused at start, with one line naming the variable', async () => {
    const { code, output } = await runGatewayProcess(v1.url, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' });
    expect(code).toBe(2);
    expect(output).toContain('OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" is not supported');
  });
});
