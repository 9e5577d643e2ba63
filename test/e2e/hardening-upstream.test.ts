// The hardened upstream path end to end (gateway + recording fake upstream on loopback): the cache and
// its isolation between keys, TTLs per mapping, stale-if-error with its Warning header, single-flight,
// retry counts per method (a POST is never retried), and the 504.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { json, startRecordingUpstream, v1List, type RecordingUpstream } from '../helpers/recording-upstream.js';
import { fetchText, requestsReceived, startHardenedGateway, type HardenedGateway } from './hardening-harness.js';

let upstream: RecordingUpstream;
let gateway: HardenedGateway;
/** The same gateway with CACHE_TTL_MS=0. */
let uncached: HardenedGateway;
/** The same gateway with CACHE_MIN_USES=2 (a reply is stored from its second miss). */
let secondMiss: HardenedGateway;
/** CACHE_TTL_MS=0 with a timeout no test reaches: calls held by the upstream until the test releases them
 * answer 200 however long the machine takes to send them all. */
let patient: HardenedGateway;
/** CACHE_TTL_MS=0 with a short timeout, for calls the upstream never answers (and no other). */
let impatient: HardenedGateway;

const STALE_WARNING = '110 - "Response is Stale"';

/** v1 staff lists whose one record names the key that asked, so a reply shows whose it is. */
function staffByKey(): void {
  upstream.handle((req, res) => json(res, 200, v1List([{ object: 'staff', id: 1, first_name: `for ${String(req.headers['x-api-key'])}` }])));
}

beforeAll(async () => {
  upstream = await startRecordingUpstream();
  // A timeout a held call reaches soon (stale-if-error on a timeout), and that an answered call on loopback
  // never nears, however loaded the machine.
  const env = { UPSTREAM_URL: upstream.url, UPSTREAM_API_KEY: 'operator-key', UPSTREAM_TIMEOUT_MS: '2000' };
  gateway = await startHardenedGateway(env);
  uncached = await startHardenedGateway({ ...env, CACHE_TTL_MS: '0' });
  secondMiss = await startHardenedGateway({ ...env, CACHE_MIN_USES: '2' });
  patient = await startHardenedGateway({ ...env, CACHE_TTL_MS: '0', UPSTREAM_TIMEOUT_MS: '600000' });
  impatient = await startHardenedGateway({ ...env, CACHE_TTL_MS: '0', UPSTREAM_TIMEOUT_MS: '300' });
});
afterAll(async () => {
  await gateway.close();
  await uncached.close();
  await secondMiss.close();
  await patient.close();
  await impatient.close();
  await upstream.close();
});
beforeEach(() => {
  upstream.received.length = 0;
  staffByKey();
});

/** A key+URL is stored on its first miss (CACHE_MIN_USES 1): one call, and the next one is a hit. */
async function storeInCache(url: string, init?: RequestInit): Promise<Awaited<ReturnType<typeof fetchText>>> {
  return fetchText(url, init);
}

const firstName = (text: string) => (JSON.parse(text) as { response: Array<{ first_name: string }> }).response[0]!.first_name;

describe('response cache', () => {
  it('is never shared between two keys', async () => {
    const asA = () => fetchText(`${gateway.url}/api/staffs/0/5`, { headers: { 'x-api-key': 'key-a' } });
    const asB = () => fetchText(`${gateway.url}/api/staffs/0/5?api_key=key-b`);
    for (let round = 0; round < 3; round++) {
      expect(firstName((await asA()).text)).toBe('for key-a');
      expect(firstName((await asB()).text)).toBe('for key-b');
    }
    // One miss each (stored at once), then each key's own hits.
    expect(upstream.received.map((r) => r.headers['x-api-key'])).toEqual(['key-a', 'key-b']);
  });

  it('stores a call on its first miss, serves it from the cache within CACHE_TTL_MS, then asks again', async () => {
    const path = `${gateway.url}/api/staffs/1/5`;
    const first = await fetchText(path);
    expect(upstream.received).toHaveLength(1);
    const second = await fetchText(path);
    const third = await fetchText(path);
    expect([second.text, third.text]).toEqual([first.text, first.text]);
    expect(upstream.received).toHaveLength(1);
    gateway.advance(30_001);
    await fetchText(path);
    expect(upstream.received).toHaveLength(2);
  });

  it('with CACHE_MIN_USES=2 stores a call from its second miss only', async () => {
    const path = `${secondMiss.url}/api/staffs/1/5`;
    const first = await fetchText(path);
    const second = await fetchText(path);
    expect(upstream.received).toHaveLength(2);
    const third = await fetchText(path);
    expect([second.text, third.text]).toEqual([first.text, first.text]);
    expect(upstream.received).toHaveLength(2);
    secondMiss.advance(30_001);
    await fetchText(path);
    expect(upstream.received).toHaveLength(3);
  });

  it('keeps a team listing for its mapping cacheTtlMs (longer than the default)', async () => {
    upstream.handle((_req, res) => json(res, 200, v1List([{ object: 'practitioner', id: 1, first_name: 'Ann', priority: 1 }])));
    await storeInCache(`${gateway.url}/api/meetourteam/0/5`);
    gateway.advance(120_000);
    const again = await fetchText(`${gateway.url}/api/meetourteam/0/5`);
    expect(again.status).toBe(200);
    expect(upstream.received).toHaveLength(1);
  });

  it('keeps each call its own reply: two cuts of one cached team listing differ, from one v1 call', async () => {
    upstream.handle((_req, res) =>
      json(res, 200, v1List([{ object: 'practitioner', id: 1, first_name: 'Bo', priority: 2 }, { object: 'practitioner', id: 2, first_name: 'Al', priority: 1 }])),
    );
    const asTeamKey = { headers: { 'x-api-key': 'team-key' } };
    // The two cuts share one v1 listing, stored on its first miss (the first cut).
    const first = await fetchText(`${gateway.url}/api/meetourteam/0/1`, asTeamKey);
    const second = await fetchText(`${gateway.url}/api/meetourteam/1/1`, asTeamKey);
    const again = await fetchText(`${gateway.url}/api/meetourteam/0/1`, asTeamKey);
    expect(firstName(first.text)).toBe('Al');
    expect(firstName(second.text)).toBe('Bo');
    expect(again.text).toBe(first.text);
    expect(upstream.received).toHaveLength(1);
    expect(gateway.logs.filter((l) => l.includes('"legacyMethod":"meetourteam"')).at(-1)).toContain('"cacheHits":1');
  });

  it('CACHE_TTL_MS=0 turns it off', async () => {
    await fetchText(`${uncached.url}/api/staffs/0/5`);
    await fetchText(`${uncached.url}/api/staffs/0/5`);
    expect(upstream.received).toHaveLength(2);
  });
});

describe('stale-if-error', () => {
  it.each([
    ['a 503 (after its retries)', 503, 3],
    ['a 500', 500, 1],
    ['a 429', 429, 1],
  ])('serves the last good reply with a Warning on %s', async (_name, status, attempts) => {
    const path = `${gateway.url}/api/staffs/${status}/5`;
    const good = await storeInCache(path);
    gateway.advance(31_000);
    upstream.received.length = 0;
    upstream.handle((_req, res) => json(res, status, { error: { code: 'x', message: 'failing' } }, { 'retry-after': '0' }));
    const stale = await fetchText(path);
    expect(stale.status).toBe(200);
    expect(stale.headers.get('warning')).toBe(STALE_WARNING);
    expect(stale.text).toBe(good.text);
    expect(upstream.received).toHaveLength(attempts);
  });

  it('serves it on a timeout too', async () => {
    const path = `${gateway.url}/api/staffs/7/5`;
    const good = await storeInCache(path);
    gateway.advance(31_000);
    upstream.handle(() => undefined);
    const stale = await fetchText(path);
    expect([stale.status, stale.headers.get('warning'), stale.text]).toEqual([200, STALE_WARNING, good.text]);
  });

  it('does not serve a reply older than an hour', async () => {
    const path = `${gateway.url}/api/staffs/8/5`;
    await storeInCache(path);
    gateway.advance(3_600_001);
    upstream.handle((_req, res) => json(res, 429, { error: { code: 'rate_limited', message: 'Hourly limit reached.' } }, { 'retry-after': '1200' }));
    const reply = await fetchText(path);
    expect(reply.status).toBe(429);
    expect(reply.headers.get('retry-after')).toBe('1200');
    expect(reply.headers.get('warning')).toBeNull();
  });

  it('passes a 429 on with its Retry-After when nothing stale exists', async () => {
    upstream.handle((_req, res) => json(res, 429, { error: { code: 'rate_limited', message: 'Hourly limit reached.' } }, { 'retry-after': '1800' }));
    const reply = await fetchText(`${gateway.url}/api/staffs/9/5`);
    expect(reply.status).toBe(429);
    expect(reply.headers.get('retry-after')).toBe('1800');
    expect(JSON.parse(reply.text)).toEqual({ status: 'failure', response: 'Hourly limit reached.' });
    expect(upstream.received).toHaveLength(1);
  });

  it('never answers a 4xx from a stale reply', async () => {
    const path = `${gateway.url}/api/staff/4`;
    upstream.handle((_req, res) => json(res, 200, { object: 'staff', id: 4, first_name: 'Dee' }));
    await storeInCache(path);
    gateway.advance(31_000);
    upstream.handle((_req, res) => json(res, 404, { error: { code: 'not_found', message: 'No staff with id 4.' } }));
    expect((await fetchText(path)).status).toBe(404);
  });
});

describe('single-flight', () => {
  it('N concurrent identical legacy calls make 1 upstream call (cache off)', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    upstream.handle(async (_req, res) => {
      await released;
      json(res, 200, v1List([{ object: 'staff', id: 1, first_name: 'Shared' }]));
    });
    const n = 20;
    const arrived = requestsReceived(patient.server, n);
    const replies = Array.from({ length: n }, () => fetchText(`${patient.url}/api/staffs/0/3`));
    await arrived;
    // One turn of the event loop lets the last arrivals reach the transport (no timer involved).
    await new Promise((resolve) => setImmediate(resolve));
    release();
    const done = await Promise.all(replies);
    expect(done.map((r) => r.status)).toEqual(Array.from({ length: n }, () => 200));
    expect(new Set(done.map((r) => r.text)).size).toBe(1);
    expect(upstream.received).toHaveLength(1);
  });

  it('does not join calls made with different keys', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    upstream.handle(async (req, res) => {
      await released;
      json(res, 200, v1List([{ object: 'staff', id: 1, first_name: String(req.headers['x-api-key']) }]));
    });
    const arrived = requestsReceived(patient.server, 2);
    const a = fetchText(`${patient.url}/api/staffs/0/4`, { headers: { 'x-api-key': 'key-a' } });
    const b = fetchText(`${patient.url}/api/staffs/0/4`, { headers: { 'x-api-key': 'key-b' } });
    await arrived;
    await new Promise((resolve) => setImmediate(resolve));
    release();
    expect([firstName((await a).text), firstName((await b).text)]).toEqual(['key-a', 'key-b']);
    expect(upstream.received).toHaveLength(2);
  });
});

describe('retries per method', () => {
  const failWith = (status: number) => (_req: unknown, res: Parameters<typeof json>[0]) =>
    json(res, status, { error: { code: 'x', message: `v1 ${status}` } });

  it.each([
    [503, 3],
    [502, 3],
    [500, 1],
    [429, 1],
    [404, 1],
  ])('a translated GET answered %i reaches the upstream %i time(s)', async (status, attempts) => {
    upstream.handle(failWith(status));
    const reply = await fetchText(`${uncached.url}/api/staff/${status}`);
    expect(reply.status).toBe(status);
    expect(upstream.received).toHaveLength(attempts);
    expect(upstream.received.every((r) => r.method === 'GET')).toBe(true);
  });

  it('a payment POST answered 503 is sent once, never retried', async () => {
    upstream.handle((req, res) => {
      if (req.method === 'GET') return json(res, 200, { object: 'client', id: 1, first_name: 'Ann' });
      return json(res, 503, { error: { code: 'maintenance', message: 'down' } });
    });
    const reply = await fetchText(`${gateway.url}/api/payment`, {
      method: 'POST',
      body: new URLSearchParams({ client_id: '1', revenue_amount: '10.00', send_email: '0' }),
    });
    expect(reply.status).toBe(503);
    expect(JSON.parse(reply.text)).toMatchObject({ status: 'failure', code: 8 });
    expect(upstream.received.filter((r) => r.method === 'POST').map((r) => r.url)).toEqual(['/api/v1/payments']);
  });

  it('a payment POST whose connection drops is sent once, never retried', async () => {
    upstream.handle((req, res) => {
      if (req.method === 'GET') return json(res, 200, { object: 'client', id: 1, first_name: 'Ann' });
      res.socket?.destroy();
    });
    const reply = await fetchText(`${gateway.url}/api/payment`, {
      method: 'POST',
      body: new URLSearchParams({ client_id: '1', revenue_amount: '11.00', send_email: '0' }),
    });
    expect(JSON.parse(reply.text)).toMatchObject({ status: 'failure', code: 8 });
    expect(upstream.received.filter((r) => r.method === 'POST')).toHaveLength(1);
  });

  it('a passthrough POST or GET answered 503 is sent once', async () => {
    upstream.handle(failWith(503));
    const post = await fetchText(`${gateway.url}/api/v1/clients`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    const get = await fetchText(`${gateway.url}/api/v1/clients?limit=1`);
    expect([post.status, get.status]).toEqual([503, 503]);
    expect(upstream.received.map((r) => r.method)).toEqual(['POST', 'GET']);
  });
});

describe('timeout', () => {
  it('answers 504 after UPSTREAM_TIMEOUT_MS, without a retry', async () => {
    upstream.handle(() => undefined);
    const reply = await fetchText(`${impatient.url}/api/staff/504`);
    expect(reply.status).toBe(504);
    expect(JSON.parse(reply.text)).toEqual({ status: 'failure', response: 'the upstream did not answer within 300 ms' });
    expect(upstream.received).toHaveLength(1);
  });

  it('answers 504 on the passthrough too, and does not retry it', async () => {
    upstream.handle(() => undefined);
    const reply = await fetchText(`${impatient.url}/api/v1/clients?limit=1`);
    expect(reply.status).toBe(504);
    expect(JSON.parse(reply.text)).toEqual({ status: 'failure', response: 'the upstream did not answer within 300 ms' });
    expect(upstream.received).toHaveLength(1);
  });
});

describe('passthrough forwarding headers', () => {
  it('adds X-Forwarded-For/-Proto/-Host and sends the upstream its own Host', async () => {
    upstream.handle((_req, res) => json(res, 200, {}));
    await fetchText(`${gateway.url}/api/v1/clients`, { headers: { 'x-forwarded-for': '203.0.113.9' } });
    const got = upstream.received[0]!.headers;
    expect(got['x-forwarded-for']).toBe('203.0.113.9, 127.0.0.1');
    expect(got['x-forwarded-proto']).toBe('http');
    expect(got['x-forwarded-host']).toBe(new URL(gateway.url).host);
    expect(got.host).toBe(new URL(upstream.url).host);
  });
});
