// LEGACY_SUNSET: every legacy reply (translated reads, their legacy errors, the request guard's refusals on
// their routes, the payment) carries Sunset (RFC 8594), Deprecation (RFC 9745) and, with LEGACY_DOCS_URL,
// Link to the v1 documentation; passthrough replies and /healthz, /readyz never do; unset, no reply does.
// A real gateway on a loopback port against a recording fake v1.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/gateway/config.js';
import { legacyGateway } from '../../src/gateway/library.js';
import { get, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { json, startRecordingUpstream, v1List, type RecordingUpstream } from '../helpers/recording-upstream.js';

const SUNSET = 'Thu, 31 Dec 2026 00:00:00 GMT';
const DOCS = 'https://docs.example.com/api/v1/';
const LINK = `<${DOCS}>; rel="deprecation", <${DOCS}>; rel="sunset"`;

let upstream: RecordingUpstream;
let gateway: TestGateway;
let plain: TestGateway;

beforeAll(async () => {
  upstream = await startRecordingUpstream((_req, res) => json(res, 200, v1List([{ object: 'staff', id: 1 }])));
  gateway = await startTestGateway({
    UPSTREAM_URL: upstream.url,
    UPSTREAM_API_KEY: 'K',
    LEGACY_SUNSET: '2026-12-31',
    LEGACY_DEPRECATED_AT: '2025-06-30T12:00:00Z',
    LEGACY_DOCS_URL: DOCS,
  });
  plain = await startTestGateway({ UPSTREAM_URL: upstream.url, UPSTREAM_API_KEY: 'K' });
});
afterAll(async () => {
  await gateway.close();
  await plain.close();
  await upstream.close();
});

const deprecationHeaders = (headers: Headers) => ({ sunset: headers.get('sunset'), deprecation: headers.get('deprecation'), link: headers.get('link') });
const carried = { sunset: SUNSET, deprecation: `@${Date.UTC(2025, 5, 30, 12) / 1000}`, link: LINK };
const none = { sunset: null, deprecation: null, link: null };

async function pay(base: string): Promise<Response> {
  return fetch(`${base}/api/payment`, { method: 'POST', body: new URLSearchParams({ revenue_amount: '10.00' }) });
}

describe('LEGACY_SUNSET set', () => {
  it('a translated read carries Sunset, Deprecation and Link', async () => {
    const reply = await get(gateway.url, '/api/staffs/0/1');
    expect(reply.status).toBe(200);
    expect(deprecationHeaders(reply.headers)).toEqual(carried);
  });

  it('a HEAD of a read, and a read the reply cache serves, carry them too', async () => {
    const head = await fetch(`${gateway.url}/api/staffs/0/1`, { method: 'HEAD' });
    expect(deprecationHeaders(head.headers)).toEqual(carried);
    const again = await get(gateway.url, '/api/staffs/0/1');
    expect(deprecationHeaders(again.headers)).toEqual(carried);
  });

  it("a read's legacy error (400) and the request guard's refusal (414) carry them", async () => {
    const bad = await get(gateway.url, '/api/staffs/x');
    expect(bad.status).toBe(400);
    expect(bad.text).toMatch(/^\{"status":"failure","response":/);
    expect(deprecationHeaders(bad.headers)).toEqual(carried);
    const long = await get(gateway.url, `/api/staffs/0/1?x=${'a'.repeat(9000)}`);
    expect(long.status).toBeGreaterThanOrEqual(400);
    expect(long.status).toBeLessThan(500);
    expect(deprecationHeaders(long.headers)).toEqual(carried);
  });

  it('the payment carries them (here its code 1, answered without a v1 call)', async () => {
    const res = await pay(gateway.url);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'failure', code: 1 });
    expect(deprecationHeaders(res.headers)).toEqual(carried);
  });

  it('passthrough replies and the gateway\'s own routes never carry them', async () => {
    const through = await get(gateway.url, '/api/v1/staff?limit=1');
    expect(through.status).toBe(200);
    expect(deprecationHeaders(through.headers)).toEqual(none);
    expect(deprecationHeaders((await get(gateway.url, '/healthz')).headers)).toEqual(none);
    expect(deprecationHeaders((await get(gateway.url, '/readyz')).headers)).toEqual(none);
  });
});

describe('LEGACY_SUNSET unset', () => {
  it('no reply carries Sunset, Deprecation or Link', async () => {
    expect(deprecationHeaders((await get(plain.url, '/api/staffs/0/1')).headers)).toEqual(none);
    expect(deprecationHeaders((await get(plain.url, '/api/staffs/x')).headers)).toEqual(none);
    expect(deprecationHeaders((await pay(plain.url)).headers)).toEqual(none);
  });
});

describe('without LEGACY_DEPRECATED_AT or LEGACY_DOCS_URL', () => {
  it('Deprecation is the gateway\'s start, and there is no Link', async () => {
    const before = Math.floor(Date.now() / 1000);
    const g = await startTestGateway({ UPSTREAM_URL: upstream.url, UPSTREAM_API_KEY: 'K', LEGACY_SUNSET: '2027-01-15T18:30:00+01:00' });
    const after = Math.floor(Date.now() / 1000);
    try {
      const reply = await get(g.url, '/api/staffs/0/1');
      expect(reply.headers.get('sunset')).toBe('Fri, 15 Jan 2027 17:30:00 GMT');
      const seconds = Number(/^@(\d+)$/.exec(reply.headers.get('deprecation') ?? '')?.[1]);
      expect(seconds).toBeGreaterThanOrEqual(before);
      expect(seconds).toBeLessThanOrEqual(after);
      expect(reply.headers.get('link')).toBeNull();
    } finally {
      await g.close();
    }
  });
});

describe('the library options', () => {
  it('take legacySunset, legacyDeprecatedAt and legacyDocsUrl', async () => {
    const router = legacyGateway({ upstreamUrl: upstream.url, upstreamApiKey: 'K', legacySunset: '2026-12-31', legacyDeprecatedAt: '2025-06-30T12:00:00Z', legacyDocsUrl: DOCS });
    const http = await import('node:http');
    const server = http.createServer((req, res) => router(req, res, () => res.end()));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as { port: number };
      const reply = await get(`http://127.0.0.1:${port}`, '/api/staffs/0/1');
      expect(deprecationHeaders(reply.headers)).toEqual(carried);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await router.close();
    }
  });

  it('refuse legacyDocsUrl without legacySunset', () => {
    expect(() => legacyGateway({ upstreamUrl: upstream.url, legacyDocsUrl: DOCS })).toThrow('legacyGateway: legacyDocsUrl is allowed only with legacySunset');
  });
});

describe('the settings are validated at start, naming the variable', () => {
  const refused = (env: Record<string, string>): string => {
    try {
      loadConfig({ UPSTREAM_URL: 'http://v1.example', ...env });
    } catch (err) {
      if (err instanceof ConfigError) return err.message;
      throw err;
    }
    return 'accepted';
  };

  it.each([
    [{ LEGACY_SUNSET: 'next year' }, 'LEGACY_SUNSET must be a date (2026-12-31) or a date and time with its offset (2026-12-31T18:00:00Z), got "next year"'],
    [{ LEGACY_SUNSET: '2026-02-30' }, 'LEGACY_SUNSET is not a valid date, got "2026-02-30"'],
    [{ LEGACY_SUNSET: '2026-12-31T10:00:00' }, 'LEGACY_SUNSET must be a date (2026-12-31) or a date and time with its offset (2026-12-31T18:00:00Z), got "2026-12-31T10:00:00"'],
    [{ LEGACY_SUNSET: '2026-12-31', LEGACY_DOCS_URL: 'docs.example.com' }, 'LEGACY_DOCS_URL must be an http:// or https:// URL, got "docs.example.com"'],
    [{ LEGACY_DOCS_URL: DOCS }, 'LEGACY_DOCS_URL is allowed only with LEGACY_SUNSET'],
    [{ LEGACY_DEPRECATED_AT: '2025-01-01' }, 'LEGACY_DEPRECATED_AT is allowed only with LEGACY_SUNSET'],
    [{ LEGACY_SUNSET: '2026-12-31', LEGACY_DEPRECATED_AT: '2027-01-01' }, 'LEGACY_DEPRECATED_AT must not be after LEGACY_SUNSET'],
  ])('%j: %s', (env, message) => {
    expect(refused(env)).toBe(message);
  });

  it('accepts a day, and a moment with its offset', () => {
    expect(loadConfig({ UPSTREAM_URL: 'http://v1.example', LEGACY_SUNSET: '2026-12-31' }).legacySunset?.toISOString()).toBe('2026-12-31T00:00:00.000Z');
    expect(loadConfig({ UPSTREAM_URL: 'http://v1.example', LEGACY_SUNSET: '2026-12-31T18:00:00-05:00' }).legacySunset?.toISOString()).toBe('2026-12-31T23:00:00.000Z');
  });
});
