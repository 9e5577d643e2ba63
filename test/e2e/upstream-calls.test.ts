// What each legacy call sends to v1: exact path, query and X-API-KEY, one upstream call per legacy list call
// (team listings: one per v1 page), and the key rules. Gateway + recording fake upstream on loopback.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { get, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { json, startRecordingUpstream, v1List, type RecordingUpstream } from '../helpers/recording-upstream.js';

let upstream: RecordingUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startRecordingUpstream();
  // Cache off: every test here asserts the exact calls made (the cache has its own tests).
  gateway = await startTestGateway({ UPSTREAM_URL: upstream.url, UPSTREAM_API_KEY: 'operator-key', CACHE_TTL_MS: '0' });
});
afterAll(async () => {
  await gateway.close();
  await upstream.close();
});
beforeEach(() => {
  upstream.received.length = 0;
  upstream.handle((req, res) => {
    const detail = /\/api\/v1\/[a-z-]+\/(\d+)$/.exec(req.url.split('?')[0]!);
    if (detail) return json(res, 200, { object: 'record', id: Number(detail[1]), timezone: 'America/Chicago' });
    return json(res, 200, v1List([]));
  });
});

const sent = () => upstream.received.map((r) => ({ method: r.method, url: r.url, key: r.headers['x-api-key'] }));

describe('each legacy read method makes the documented v1 call', () => {
  it.each([
    ['/api/clients/0/3', '/api/v1/clients?offset=0&limit=3'],
    ['/api/clients', '/api/v1/clients?offset=0&limit=1000'],
    ['/api/clients/10', '/api/v1/clients?offset=10&limit=1000'],
    ['/api/clients/0/5000', '/api/v1/clients?offset=0&limit=1000'],
    ['/api/staffs', '/api/v1/staff?offset=0&limit=20'],
    ['/api/staffs/40/500', '/api/v1/staff?offset=40&limit=100'],
    ['/api/practitioners/3/7', '/api/v1/practitioners?offset=3&limit=7'],
    ['/api/services/', '/api/v1/services?offset=0&limit=20'],
    ['/api/sessions', '/api/v1/sessions?offset=0&limit=100'],
    ['/api/sessions/0/5000', '/api/v1/sessions?offset=0&limit=1000'],
    ['/api/staff/12', '/api/v1/staff/12'],
    ['/api/practitioner/007', '/api/v1/practitioners/7'],
    ['/api/service/3', '/api/v1/services/3'],
    ['/api/session/99', '/api/v1/sessions/99'],
    ['/api/client?id=5', '/api/v1/clients/5'],
    ['/api/client?email=A%40x.com&id=5', '/api/v1/clients?email=A%40x.com&offset=0&limit=1000'],
    ['/api/client?last_name=Lee&first_name=Bo', '/api/v1/clients?first_name=Bo&last_name=Lee&offset=0&limit=1000'],
  ])('%s -> GET %s, once, with the key', async (legacy, v1) => {
    const reply = await get(gateway.url, legacy);
    expect(sent()).toEqual([{ method: 'GET', url: v1, key: 'operator-key' }]);
    // The empty fake lists make lookups answer 404; everything else succeeds.
    expect(reply.status).toBe(legacy.startsWith('/api/client?') && !legacy.includes('?id=') ? 404 : 200);
  });

  it('reads every v1 page for a team listing, at limit=1000, one call per page', async () => {
    upstream.handle((req, res) => {
      const offset = Number(new URL(req.url, 'http://x').searchParams.get('offset'));
      const people = Array.from({ length: offset === 0 ? 1000 : 3 }, (_, i) => ({ id: offset + i + 1, first_name: `P${offset + i}`, priority: 5 }));
      json(res, 200, v1List(people, { total: 1003, has_more: offset === 0, offset, limit: 1000 }));
    });
    const reply = await get(gateway.url, '/api/meetourteam/0/2');
    expect(sent()).toEqual([
      { method: 'GET', url: '/api/v1/practitioners?offset=0&limit=1000', key: 'operator-key' },
      { method: 'GET', url: '/api/v1/practitioners?offset=1000&limit=1000', key: 'operator-key' },
    ]);
    expect(reply.body).toMatchObject({ status: 'success', total: '1003' });
  });
});

describe('the API key rules', () => {
  it('forwards the incoming X-API-KEY header as is', async () => {
    await get(gateway.url, '/api/staffs', { 'X-API-KEY': 'caller-key' });
    expect(sent()).toEqual([{ method: 'GET', url: '/api/v1/staff?offset=0&limit=20', key: 'caller-key' }]);
  });

  it('takes the api_key query parameter, and never forwards it in a URL', async () => {
    await get(gateway.url, '/api/staffs/0/2?api_key=query-key');
    expect(sent()).toEqual([{ method: 'GET', url: '/api/v1/staff?offset=0&limit=2', key: 'query-key' }]);
    await get(gateway.url, '/api/client?api_key=query-key&username=bo');
    expect(sent()[1]).toEqual({ method: 'GET', url: '/api/v1/clients?username=bo&offset=0&limit=1000', key: 'query-key' });
  });

  it('prefers the header to the query parameter', async () => {
    await get(gateway.url, '/api/staffs?api_key=query-key', { 'x-api-key': 'header-key' });
    expect(sent()[0]!.key).toBe('header-key');
  });
});

describe('bad legacy input answers a legacy 400 without any upstream call', () => {
  it.each([
    ['/api/clients/-1/5', 'start must be a whole number of 0 or more'],
    ['/api/clients/a/b', 'start must be a whole number of 0 or more'],
    ['/api/staffs/0/0', 'limit must be a whole number of 1 or more'],
    ['/api/staff/abc', 'the id must be a whole number'],
    ['/api/staff', 'expected exactly one id: /{id}'],
    ['/api/staff/1/2', 'expected exactly one id: /{id}'],
    ['/api/session/..%2f..%2fadmin', 'the id must be a whole number'],
    ['/api/staff/%2e%2e%2fclients', 'the id must be a whole number'],
    ['/api/client', 'one of id, email, username, first_name, last_name is required'],
    ['/api/client?id=1%20OR%201', 'id must be a whole number'],
    ['/api/testimonials/3', 'this method takes no path parameters'],
    [`/api/clients/${'9'.repeat(5_000)}`, 'start must be a whole number of 0 or more'],
    [`/api/clients/0/${'a'.repeat(10_000)}`, 'the request path is too long'],
  ])('%.60s', async (path, message) => {
    const reply = await get(gateway.url, path);
    expect(reply.status).toBe(400);
    expect(reply.text).toBe(JSON.stringify({ status: 'failure', response: message }));
    expect(reply.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(upstream.received).toEqual([]);
  });
});
