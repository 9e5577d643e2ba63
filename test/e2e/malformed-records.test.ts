// A single-record v1 reply that is not the record asked for (not an object, no id, another record's id)
// is a fault: every detail method and /api/client?id= answer the legacy 502, never a 200 with an empty or
// foreign record. Gateway + recording fake upstream on loopback; the exact body, and what reached v1.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { get, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { json, startRecordingUpstream, type RecordingUpstream } from '../helpers/recording-upstream.js';

let upstream: RecordingUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startRecordingUpstream();
  // Cache off: each call must reach the fake, so the test sees exactly what the gateway asked.
  gateway = await startTestGateway({ UPSTREAM_URL: upstream.url, UPSTREAM_API_KEY: 'k', CACHE_TTL_MS: '0' });
});
afterAll(async () => {
  await gateway.close();
  await upstream.close();
});
beforeEach(() => {
  upstream.received.length = 0;
});

/** Legacy call, the v1 call it makes, and the id it asks for. */
const methods: Array<[string, string, number]> = [
  ['/api/staff/2', '/api/v1/staff/2', 2],
  ['/api/practitioner/3', '/api/v1/practitioners/3', 3],
  ['/api/service/4', '/api/v1/services/4', 4],
  ['/api/session/5', '/api/v1/sessions/5', 5],
  ['/api/client?id=6', '/api/v1/clients/6', 6],
];

const NOT_AN_OBJECT = 'body: expected a JSON object';
const notTheId = (id: number) => `id: not the requested id ${id}`;

/** A v1 reply that is not the record asked for, and the reason the legacy 502 gives. */
const malformed = (id: number): Array<[string, unknown, string]> => [
  ['a list-like object', { data: 'not a list' }, notTheId(id)],
  ['an empty array', [], NOT_AN_OBJECT],
  ['a string', 'x', NOT_AN_OBJECT],
  ['an empty object', {}, notTheId(id)],
  ['another record (numeric id)', { object: 'record', id: id + 100, first_name: 'Other' }, notTheId(id)],
  ['another record (string id)', { object: 'record', id: String(id + 1) }, notTheId(id)],
  ['a record with a null id', { object: 'record', id: null }, notTheId(id)],
];

const cases = methods.flatMap(([legacy, v1, id]) => malformed(id).map(([what, body, reason]) => [legacy, what, v1, body, reason] as const));

describe('a malformed single record is a legacy 502', () => {
  it.each(cases)('%s: %s', async (legacy, _what, v1, body, reason) => {
    upstream.handle((_req, res) => json(res, 200, body));
    const reply = await get(gateway.url, legacy);
    expect(reply.status).toBe(502);
    expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
    expect(reply.text).toBe(JSON.stringify({ status: 'failure', response: `the upstream sent a record the gateway does not understand (${reason})` }));
    // One GET, not retried: a 200 of the wrong shape is not a transient fault.
    expect(upstream.received.map((r) => `${r.method} ${r.url}`)).toEqual([`GET ${v1}`]);
    expect(upstream.received[0]!.headers['x-api-key']).toBe('k');
  });
});

describe('the record asked for is still a success', () => {
  it.each(methods)('%s: the id as a number or as a string', async (legacy, v1, id) => {
    for (const sent of [id, String(id)]) {
      upstream.received.length = 0;
      upstream.handle((_req, res) => json(res, 200, { object: 'record', id: sent }));
      const reply = await get(gateway.url, legacy);
      expect(reply.status).toBe(200);
      const body = reply.body as { status: string; response: Record<string, unknown> };
      expect(body.status).toBe('success');
      // The record's id, whatever its legacy name (id, staff_id, pract_id), as a string.
      expect(Object.values(body.response)).toContain(String(id));
      expect(upstream.received.map((r) => `${r.method} ${r.url}`)).toEqual([`GET ${v1}`]);
    }
  });

  it('an id with leading zeros asks for the whole number and accepts its record', async () => {
    upstream.handle((_req, res) => json(res, 200, { object: 'staff', id: 2, first_name: 'Ann' }));
    const reply = await get(gateway.url, '/api/staff/002');
    expect(reply.status).toBe(200);
    expect(upstream.received.map((r) => r.url)).toEqual(['/api/v1/staff/2']);
  });
});
