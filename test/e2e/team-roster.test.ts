// Team listings end to end (gateway + recording fake upstream on loopback): a listing read for one API key
// is kept, sorted, while its v1 pages stay fresh, so another cut for that key asks v1 nothing and gives
// the bytes a fresh read would; another key never sees it; many keys at once each get their own; once the
// pages expire, v1 is read again.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { json, startRecordingUpstream, v1List, type RecordingUpstream } from '../helpers/recording-upstream.js';
import { fetchText, startHardenedGateway, type HardenedGateway } from './hardening-harness.js';

const MEMBERS = 2500;
const NAMES = ['Élodie', 'elena', 'Zoë', 'zoe', "O'Brien", 'Øyvind', 'maria', 'María', 'Ángel', 'angel', '', null];

let upstream: RecordingUpstream;
let gateway: HardenedGateway;
/** CACHE_TTL_MS=0: every call reads and sorts the listing anew. */
let uncached: HardenedGateway;

beforeAll(async () => {
  upstream = await startRecordingUpstream();
  const env = { UPSTREAM_URL: upstream.url, UPSTREAM_API_KEY: 'operator-key' };
  gateway = await startHardenedGateway(env);
  uncached = await startHardenedGateway({ ...env, CACHE_TTL_MS: '0' });
});
afterAll(async () => {
  await gateway.close();
  await uncached.close();
  await upstream.close();
});
beforeEach(() => {
  upstream.received.length = 0;
  // v1's practitioners, 1000 a page; each record names the key that asked.
  upstream.handle((req, res) => {
    const url = new URL(req.url, 'http://v1');
    const [offset, limit] = [Number(url.searchParams.get('offset')), Number(url.searchParams.get('limit'))];
    const data = [];
    for (let id = offset + 1; id <= Math.min(MEMBERS, offset + limit); id++) {
      data.push({ object: 'practitioner', id, first_name: NAMES[(id * 7) % NAMES.length], last_name: `for ${String(req.headers['x-api-key'])}`, priority: id % 5 === 0 ? null : id % 4 });
    }
    json(res, 200, v1List(data, { total: MEMBERS, offset, limit, has_more: offset + limit < MEMBERS }));
  });
});

const asKey = (key: string) => ({ headers: { 'x-api-key': key } });
const lastLog = (g: HardenedGateway) => JSON.parse(g.logs.filter((l) => l.includes('"legacyMethod":"meetourteam"')).at(-1)!) as Record<string, unknown>;

describe('team listings: the sorted roster kept per key', () => {
  it('cuts another page for the same key from the kept roster: no v1 call, the bytes of a fresh read', async () => {
    const first = await fetchText(`${gateway.url}/api/meetourteam/0/20`, asKey('team-a'));
    expect(first.status).toBe(200);
    expect(upstream.received).toHaveLength(3);
    for (const cut of ['20/20', '2480/100', '2500/5', '0/100', '1234']) {
      const asked = upstream.received.length;
      const kept = await fetchText(`${gateway.url}/api/meetourteam/${cut}`, asKey('team-a'));
      expect(lastLog(gateway)).toMatchObject({ cacheHits: 1 });
      expect(upstream.received).toHaveLength(asked);
      // The same cut read and sorted anew, by a gateway that keeps nothing (three v1 calls).
      const fresh = await fetchText(`${uncached.url}/api/meetourteam/${cut}`, asKey('team-a'));
      expect(kept.text).toBe(fresh.text);
    }
  });

  it('never serves one key the roster read for another', async () => {
    await fetchText(`${gateway.url}/api/meetourteam/0/5`, asKey('team-b'));
    const other = await fetchText(`${gateway.url}/api/meetourteam/5/5`, asKey('team-c'));
    expect(upstream.received.map((r) => r.headers['x-api-key'])).toEqual(['team-b', 'team-b', 'team-b', 'team-c', 'team-c', 'team-c']);
    expect((JSON.parse(other.text) as { response: Array<{ last_name: string }> }).response.map((r) => r.last_name)).toEqual(Array(5).fill('for team-c'));
  });

  it('serves many keys listing at once (a few rosters read at a time), each its own listing, in full', async () => {
    const keys = Array.from({ length: 12 }, (_, i) => `burst-${i}`);
    const replies = await Promise.all(keys.map((key) => fetchText(`${gateway.url}/api/meetourteam/2490/20`, asKey(key))));
    replies.forEach((reply, i) => {
      const body = JSON.parse(reply.text) as { total: string; response: Array<{ last_name: string }> };
      expect([reply.status, body.total, body.response.length]).toEqual([200, String(MEMBERS), 10]);
      expect(new Set(body.response.map((r) => r.last_name))).toEqual(new Set([`for ${keys[i]}`]));
    });
    expect(upstream.received).toHaveLength(keys.length * 3);
  });

  it('reads v1 again once the pages it was read from are no longer fresh (the mapping cacheTtlMs)', async () => {
    await fetchText(`${gateway.url}/api/meetourteam/0/5`, asKey('team-d'));
    gateway.advance(299_000);
    await fetchText(`${gateway.url}/api/meetourteam/5/5`, asKey('team-d'));
    expect(upstream.received).toHaveLength(3);
    gateway.advance(1_001);
    await fetchText(`${gateway.url}/api/meetourteam/10/5`, asKey('team-d'));
    expect(upstream.received).toHaveLength(6);
  });

  it('sorts and writes values v1 should not send: objects with a "toString" of their own, arrays', async () => {
    // Members named toString, as JSON.parse makes them: String() and Number() throw on such an object.
    const odd = { toString: 0 };
    const data = [
      { id: 1, first_name: odd, priority: 2 },
      { id: 2, first_name: 'Ann', priority: odd },
      { id: 3, first_name: 'Bo', priority: ['1'] },
    ];
    upstream.handle((_req, res) => json(res, 200, v1List(data, { limit: 1000 })));
    const reply = await fetchText(`${uncached.url}/api/meetourteam/0/20`, asKey('team-odd'));
    const none = '"admin_id":null';
    const rest = '"last_name":null,"position":null,"excerpt":null';
    expect([reply.status, reply.text]).toEqual([
      200,
      '{"status":"success","total":"3","response":[' +
        `{${none},"pract_id":"3","pract_settings_id":null,"first_name":"Bo",${rest},"priority":"[\\"1\\"]","headshot_url":null},` +
        `{${none},"pract_id":"1","pract_settings_id":null,"first_name":"{\\"toString\\":0}",${rest},"priority":"2","headshot_url":null},` +
        `{${none},"pract_id":"2","pract_settings_id":null,"first_name":"Ann",${rest},"priority":"{\\"toString\\":0}","headshot_url":null}]}`,
    ]);
    expect(upstream.received.map((r) => r.url)).toEqual(['/api/v1/practitioners?offset=0&limit=1000']);
  });
});
