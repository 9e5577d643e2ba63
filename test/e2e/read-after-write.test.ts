// Read-after-write for one API key, black box: a gateway on loopback (cache on, CACHE_TTL_MS 30 s) in front
// of a fake v1 that keeps clients and records every request. The old API had no cache, so:
// - a lookup by e-mail that found nothing, a payment that creates the client, the same lookup again:
//   v1 is asked again and the new client answers (also when the payment itself then failed);
// - a clients list after a payment that creates a client, or after a passthrough write, is read from v1;
//   a payment for an existing client (it writes no client) leaves the list cached;
// - another API key's cached reads are untouched by the write;
// - a read in flight at v1 when the write happens is not handed to a read that starts after it.
// Each reply after a write is the exact text a gateway without any cache answers for the same call.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fetchReply, type Reply } from '../helpers/fetch-reply.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { startClientStore, type ClientStoreUpstream, type StoredClient } from '../helpers/client-store-upstream.js';

const KEY_A = 'raw-key-A-READ-AFTER-WRITE';
const KEY_B = 'raw-key-B-READ-AFTER-WRITE';
const ADA: StoredClient = { object: 'client', id: 1, first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com', status: 'active' };

let v1: ClientStoreUpstream;
let gateway: TestGateway;
/** The same gateway with no cache at all: what the old API (which had none) would answer. */
let uncached: TestGateway;

beforeAll(async () => {
  v1 = await startClientStore([ADA]);
  gateway = await startTestGateway({ UPSTREAM_URL: v1.url });
  uncached = await startTestGateway({ UPSTREAM_URL: v1.url, CACHE_TTL_MS: '0' });
});
afterAll(async () => {
  await gateway.close();
  await uncached.close();
  await v1.close();
  for (const secret of [KEY_A, KEY_B]) expect([...gateway.logs, ...uncached.logs].join('\n')).not.toContain(secret);
});
beforeEach(() => {
  v1.paymentStatus = 201;
});

const read = (path: string, key = KEY_A) => fetchReply(`${gateway.url}${path}`, { headers: { 'x-api-key': key } });
const payment = (fields: Record<string, string>, key = KEY_A) =>
  fetchReply(`${gateway.url}/api/payment`, { method: 'POST', body: new URLSearchParams(fields), headers: { 'x-api-key': key } });
const newClient = (email: string) => ({ first_name: 'Grace', last_name: 'Hopper', state: 'VA', country: 'US', status: 'active', email, revenue_amount: '45.50', send_email: '0' });

/** The reply a gateway without a cache gives now; the v1 calls it makes are not counted. */
async function truth(path: string, key = KEY_A): Promise<Reply> {
  const before = v1.received.length;
  const reply = await fetchReply(`${uncached.url}${path}`, { headers: { 'x-api-key': key } });
  v1.received.splice(before);
  return reply;
}

const NOT_FOUND = '{"status":"failure","response":"client not found"}';

describe('a lookup, a payment that creates the client, the same lookup', () => {
  it('asks v1 again and answers the new client; another API key keeps its cached reply', async () => {
    const lookup = '/api/client?email=grace@example.com';
    const start = v1.received.length;
    expect((await read(lookup)).text).toBe(NOT_FOUND);
    expect((await read(lookup, KEY_B)).text).toBe(NOT_FOUND);
    expect((await read(lookup)).text).toBe(NOT_FOUND);
    // One v1 call per key: the repeat was served from the cache.
    expect(v1.since(start)).toEqual(['GET /api/v1/clients?email=grace%40example.com&offset=0&limit=1000', 'GET /api/v1/clients?email=grace%40example.com&offset=0&limit=1000']);

    const paid = await payment(newClient('grace@example.com'));
    expect(paid.body).toEqual({ status: 'success', code: 12, response: 'payment added (payment id 501)' });

    const afterPayment = v1.received.length;
    const found = await read(lookup);
    expect(found.status).toBe(200);
    expect(found.body).toMatchObject({ status: 'success', response: { id: '2', first_name: 'Grace', email: 'grace@example.com' } });
    expect(found.text).toBe((await truth(lookup)).text);
    expect(v1.since(afterPayment)).toEqual(['GET /api/v1/clients?email=grace%40example.com&offset=0&limit=1000']);

    // The other key's copy was not made stale by a write of key A: still its cached reply, no v1 call.
    expect((await read(lookup, KEY_B)).text).toBe(NOT_FOUND);
    expect(v1.since(afterPayment)).toHaveLength(1);
  });

  it('also when the payment then failed: its new client was written, and is found', async () => {
    const lookup = '/api/client?email=katherine@example.com';
    expect((await read(lookup)).text).toBe(NOT_FOUND);
    v1.paymentStatus = 500;
    const paid = await payment(newClient('katherine@example.com'));
    expect(paid.body).toMatchObject({ status: 'failure', code: 8 });
    const afterPayment = v1.received.length;
    const found = await read(lookup);
    expect(found.body).toMatchObject({ status: 'success', response: { first_name: 'Grace', email: 'katherine@example.com' } });
    expect(found.text).toBe((await truth(lookup)).text);
    expect(v1.since(afterPayment)).toEqual(['GET /api/v1/clients?email=katherine%40example.com&offset=0&limit=1000']);
  });
});

describe('a clients list after a write', () => {
  const list = '/api/clients/0/50';
  const total = (reply: Reply) => (reply.body as { total: string }).total;

  it('shows the new total after a payment that created a client, and stays cached after one that did not', async () => {
    const before = await read(list);
    expect((await read(list)).text).toBe(before.text);
    const cachedFrom = v1.received.length;

    // An existing client: the payment writes payments only, which the list does not read.
    expect((await payment({ client_id: '1', revenue_amount: '5.00', send_email: '0' })).body).toMatchObject({ code: 12 });
    expect((await read(list)).text).toBe(before.text);
    // (the payments list read is the ledger mark taken before a claimed payment's POST)
    expect(v1.since(cachedFrom)).toEqual(['GET /api/v1/clients/1', 'GET /api/v1/payments?client_id=1&offset=0&limit=1', 'POST /api/v1/payments']);

    expect((await payment(newClient('dorothy@example.com'))).body).toMatchObject({ code: 12 });
    const afterPayment = v1.received.length;
    const after = await read(list);
    expect(Number(total(after))).toBe(Number(total(before)) + 1);
    expect(after.text).toBe((await truth(list)).text);
    expect(v1.since(afterPayment)).toEqual(['GET /api/v1/clients?offset=0&limit=50']);
  });

  it('is read from v1 again after a passthrough write of /api/v1/clients, not after a passthrough read', async () => {
    const before = await read(list);
    const start = v1.received.length;
    expect((await fetchReply(`${gateway.url}/api/v1/clients?limit=1`, { headers: { 'x-api-key': KEY_A } })).status).toBe(200);
    expect((await read(list)).text).toBe(before.text);
    expect(v1.since(start)).toEqual(['GET /api/v1/clients?limit=1']);

    const created = await fetchReply(`${gateway.url}/api/v1/clients`, {
      method: 'POST',
      headers: { 'x-api-key': KEY_A, 'content-type': 'application/json' },
      body: JSON.stringify({ first_name: 'Mary', last_name: 'Jackson', email: 'mary@example.com' }),
    });
    expect(created.status).toBe(201);
    const afterWrite = v1.received.length;
    const after = await read(list);
    expect(Number(total(after))).toBe(Number(total(before)) + 1);
    expect(after.text).toBe((await truth(list)).text);
    expect(v1.since(afterWrite)).toEqual(['GET /api/v1/clients?offset=0&limit=50']);
  });

  it('a read still at v1 when the write happens is not handed to a read that starts after it', async () => {
    const isList = (r: { method: string; url: string }) => r.method === 'GET' && r.url === '/api/v1/clients?offset=0&limit=50';
    await payment(newClient('annie@example.com')); // a fresh generation: the next read goes to v1
    v1.hold();
    const first = v1.received.length;
    const earlier = read(list);
    await v1.arrival(first, isList);
    const created = await fetchReply(`${gateway.url}/api/v1/clients`, {
      method: 'POST',
      headers: { 'x-api-key': KEY_A, 'content-type': 'application/json' },
      body: JSON.stringify({ first_name: 'Christine', last_name: 'Darden', email: 'christine@example.com' }),
    });
    expect(created.status).toBe(201);
    const second = v1.received.length;
    const later = read(list);
    // The later read made its own v1 call: it was not joined to the one in flight.
    await v1.arrival(second, isList);
    v1.release();
    const [earlierReply, laterReply] = await Promise.all([earlier, later]);
    expect(Number(total(laterReply))).toBe(Number(total(earlierReply)) + 1);
    expect(laterReply.text).toBe((await truth(list)).text);

    // What the earlier read kept is never served again; the later one's is.
    const settled = v1.received.length;
    expect((await read(list)).text).toBe(laterReply.text);
    expect(v1.since(settled)).toEqual([]);
  });
});
