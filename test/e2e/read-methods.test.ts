// The legacy read methods seen from outside: real gateways on loopback ports in front of the embedded v1
// sandbox, asserting the exact replies a legacy integration gets (paging, /api/client lookup rules, API
// keys, v1 errors passed through, testimonials) and that every legacy value is a string or null.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_KEYS, startSandbox, type AccountGate, type RunningSandbox } from '../../src/sandbox/index.js';
import { get, startTestGateway, type TestGateway } from '../helpers/gateway.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const TESTIMONIALS_FILE = path.join(ROOT, 'test', 'fixtures', 'testimonials.json');

/** The exact legacy reply of a golden fixture (test/golden/<method>.json). */
function goldenText(method: string): string {
  const fixture = JSON.parse(readFileSync(path.join(ROOT, 'test', 'golden', `${method}.json`), 'utf8')) as { expected: unknown };
  return JSON.stringify(fixture.expected);
}

const failure = (message: string): string => JSON.stringify({ status: 'failure', response: message });

type Body = { status: string; total?: string; timezone?: string; response: unknown };
type LegacyRecord = Record<string, unknown>;
const records = (body: unknown): LegacyRecord[] => (body as Body).response as LegacyRecord[];

let sandbox: RunningSandbox;
/** Holds the primary key and the testimonials file; caching off, so a changed sandbox is seen at once. */
let gateway: TestGateway;
/** Holds no key and no testimonials file. */
let keyless: TestGateway;

beforeAll(async () => {
  sandbox = await startSandbox();
  gateway = await startTestGateway({
    UPSTREAM_URL: sandbox.url,
    UPSTREAM_API_KEY: SANDBOX_KEYS.primary,
    TESTIMONIALS_FILE,
    CACHE_TTL_MS: '0',
  });
  keyless = await startTestGateway({ UPSTREAM_URL: sandbox.url, CACHE_TTL_MS: '0' });
});
afterAll(async () => {
  await keyless?.close();
  await gateway?.close();
  await sandbox?.close();
});

describe('paging: defaults, clamping and refusals', () => {
  // A sandbox with more records than every maximum, so defaults and clamps show in the record count.
  let big: RunningSandbox;
  let bigGateway: TestGateway;

  beforeAll(async () => {
    big = await startSandbox();
    const s = big.state;
    for (let id = s.clients.length + 1; id <= 1200; id++) s.clients.push({ ...s.clients[6]!, id });
    for (let id = s.staff.length + 1; id <= 150; id++) s.staff.push({ ...s.staff[0]!, id, priority: 90 });
    for (let id = s.practitioners.length + 1; id <= 130; id++) s.practitioners.push({ ...s.practitioners[0]!, id, priority: 90 });
    for (let id = s.services.length + 1; id <= 130; id++) s.services.push({ ...s.services[0]!, id });
    for (let id = s.sessions.length + 1; id <= 1100; id++) s.sessions.push({ ...s.sessions[0]!, id });
    bigGateway = await startTestGateway({ UPSTREAM_URL: big.url, UPSTREAM_API_KEY: SANDBOX_KEYS.primary, CACHE_TTL_MS: '0' });
  });
  afterAll(async () => {
    await bigGateway?.close();
    await big?.close();
  });

  // [legacy path, total, record count, first id, last id]: ids are v1's (ascending) for plain lists.
  it.each([
    ['/api/clients', '1200', 1000, '1', '1000'],
    ['/api/clients/0/5000', '1200', 1000, '1', '1000'],
    ['/api/clients/1150', '1200', 50, '1151', '1200'],
    ['/api/clients/1199/1', '1200', 1, '1200', '1200'],
    ['/api/staffs', '150', 20, '1', '20'],
    ['/api/staffs/0/500', '150', 100, '1', '100'],
    ['/api/staffs/140/', '150', 10, '141', '150'],
    ['/api/practitioners', '130', 20, '1', '20'],
    ['/api/practitioners/5/101', '130', 100, '6', '105'],
    ['/api/services', '130', 20, '1', '20'],
    ['/api/services/0/100', '130', 100, '1', '100'],
    ['/api/services/125/3', '130', 3, '126', '128'],
    ['/api/sessions', '1100', 100, '1', '100'],
    ['/api/sessions/0/5000', '1100', 1000, '1', '1000'],
    ['/api/sessions/1000', '1100', 100, '1001', '1100'],
  ])('%s -> total %s, %i records, ids %s..%s', async (legacy, total, count, firstId, lastId) => {
    const reply = await get(bigGateway.url, legacy);
    expect(reply.status).toBe(200);
    const body = reply.body as Body;
    expect(body.status).toBe('success');
    expect(body.total).toBe(total);
    const list = records(body);
    expect(list).toHaveLength(count);
    expect(list[0]!.id).toBe(firstId);
    expect(list[list.length - 1]!.id).toBe(lastId);
  });

  it.each([
    ['/api/meetourstaff', '150', 20],
    ['/api/meetourstaff/0/500', '150', 100],
    ['/api/meetourstaff/145/10', '150', 5],
    ['/api/meetourteam', '130', 20],
    ['/api/meetourteam/0/1000', '130', 100],
    ['/api/meetourteam/120', '130', 10],
  ])('team listing %s -> total %s, %i records', async (legacy, total, count) => {
    const reply = await get(bigGateway.url, legacy);
    expect(reply.status).toBe(200);
    expect((reply.body as Body).total).toBe(total);
    expect(records(reply.body)).toHaveLength(count);
  });

  it('a start past the end answers an empty page with the real total', async () => {
    const reply = await get(gateway.url, '/api/clients/400');
    expect(reply.status).toBe(200);
    expect(reply.text).toBe('{"status":"success","total":"300","response":[]}');
    const team = await get(gateway.url, '/api/meetourteam/25/5');
    expect(team.text).toBe('{"status":"success","total":"25","response":[]}');
  });

  it.each([
    ['/api/staffs/-1', 'start must be a whole number of 0 or more'],
    ['/api/staffs/1.5', 'start must be a whole number of 0 or more'],
    ['/api/clients/abc/10', 'start must be a whole number of 0 or more'],
    ['/api/sessions/0/0', 'limit must be a whole number of 1 or more'],
    ['/api/meetourteam/0/-3', 'limit must be a whole number of 1 or more'],
    ['/api/services/0/ten', 'limit must be a whole number of 1 or more'],
    ['/api/practitioners/0/5/9', 'too many path segments: expected /{start}/{limit}'],
    ['/api/staff/abc', 'the id must be a whole number'],
    ['/api/session', 'expected exactly one id: /{id}'],
  ])('%s -> 400 %j, no upstream call', async (legacy, message) => {
    const before = sandbox.state.requests.length;
    const reply = await get(gateway.url, legacy);
    expect(reply.status).toBe(400);
    expect(reply.text).toBe(failure(message));
    expect(sandbox.state.requests.length).toBe(before);
  });
});

describe('team listings: priority, then first name, members without a priority last', () => {
  const team = (body: unknown) => records(body).map((r) => `${String(r.priority)} ${String(r.first_name)} ${String(r.last_name)}`);

  it('ties on priority and first name keep v1 order; no priority comes last', async () => {
    const middle = await get(gateway.url, '/api/meetourteam/10/6');
    expect(team(middle.body)).toEqual([
      '10 Anna Berg', '10 Luis Fernandez', '10 Maria Santos', '10 Maria Keller', '10 Rosa Alvarez', '10 Zara Ahmed',
    ]);
    const tail = await get(gateway.url, '/api/meetourteam/20/5');
    expect(team(tail.body)).toEqual(['50 Grace Oyelaran', '50 Owen Fitzgerald', '100 Sam Taylor', 'null Felix Wagner', 'null Hannah Schmidt']);
    expect(records(tail.body)[4]).toEqual({
      admin_id: '1', pract_id: '9', pract_settings_id: '709', first_name: 'Hannah', last_name: 'Schmidt',
      position: 'Speech Therapist', excerpt: '<p>Certified lifeguard and <strong>WSI</strong> instructor.</p>',
      priority: null, headshot_url: null,
    });
  });

  it('the staff listing ends with priority 50 then 100, each by first name', async () => {
    const tail = await get(gateway.url, '/api/meetourstaff/25');
    expect(team(tail.body)).toEqual(['50 Benjamin Stone', '50 Logan Meyer', '50 Sebastian Ellis', '100 Elijah Ortiz', '100 Emily Vance']);
  });
});

describe('/api/client: which parameter wins, and how it matches', () => {
  const GRACE = goldenText('client');

  it.each([
    ['/api/client?email=G.HOPPER@navy.example.mil&id=1', 'email first: it wins over a later id'],
    ['/api/client?id=2&email=ada.lovelace@example.com', 'id first: it wins over a later email'],
    ['/api/client?username=ghopper&id=1', 'username first, matched case-insensitively'],
    ['/api/client?first_name=Ada&last_name=Lovelace&username=GHOPPER', 'a username wins over names that come before it'],
    ['/api/client?first_name=grace&last_name=HOPPER', 'first_name and last_name together, case-insensitively'],
    ['/api/client?email=Grace.Hopper@EXAMPLE.com', 'the first address of the list, any case'],
    ['/api/client?id=0002', 'an id with leading zeros'],
  ])('%s -> Grace Hopper (%s)', async (legacy) => {
    const reply = await get(gateway.url, legacy);
    expect(reply.status).toBe(200);
    expect(reply.text).toBe(GRACE);
  });

  it.each([
    ['/api/client?id=1&username=ghopper', '1'],
    ['/api/client?username=jsmith2&first_name=Grace', '4'],
    ['/api/client?first_name=John&last_name=Smith', '3'],
    ['/api/client?last_name=smith', '3'],
    ['/api/client?first_name=Ada&id=3', '3'],
  ])('%s -> client %s', async (legacy, id) => {
    const reply = await get(gateway.url, legacy);
    expect(reply.status).toBe(200);
    expect((reply.body as { response: LegacyRecord }).response.id).toBe(id);
  });

  it.each([
    '/api/client?email=nobody@example.com',
    '/api/client?email=hopper@navy.example.mil',
    '/api/client?username=nobody',
    '/api/client?id=99999',
    '/api/client?first_name=Ada&last_name=Hopper',
  ])('%s -> 404 client not found', async (legacy) => {
    const reply = await get(gateway.url, legacy);
    expect(reply.status).toBe(404);
    expect(reply.text).toBe('{"status":"failure","response":"client not found"}');
  });

  it.each([
    ['/api/client', 'one of id, email, username, first_name, last_name is required'],
    ['/api/client?id=abc', 'id must be a whole number'],
    ['/api/client?username=', 'username must not be empty'],
  ])('%s -> 400 %j', async (legacy, message) => {
    const reply = await get(gateway.url, legacy);
    expect(reply.status).toBe(400);
    expect(reply.text).toBe(failure(message));
  });
});

describe('v1 errors reach the legacy caller with their status and message', () => {
  it.each([
    ['/api/staff/999', 'no staff with id 999'],
    ['/api/practitioner/26', 'no practitioner with id 26'],
    ['/api/service/13', 'no service with id 13'],
    ['/api/session/501', 'no session with id 501'],
  ])('%s -> 404 %j', async (legacy, message) => {
    const reply = await get(gateway.url, legacy);
    expect(reply.status).toBe(404);
    expect(reply.text).toBe(failure(message));
  });

  it('the secondary key may read services but not staff: 403 with v1 message', async () => {
    const secondary = { 'X-API-KEY': SANDBOX_KEYS.secondary };
    const staff = await get(gateway.url, '/api/staffs', secondary);
    expect(staff.status).toBe(403);
    expect(staff.text).toBe(failure('this API key may not use the staff resource'));
    const team = await get(gateway.url, '/api/meetourstaff', secondary);
    expect(team.status).toBe(403);
    expect(team.text).toBe(failure('this API key may not use the staff resource'));
    const services = await get(gateway.url, '/api/services/0/3', secondary);
    expect(services.status).toBe(200);
    expect(services.text).toBe(goldenText('services'));
  });

  it('no key anywhere: v1 401 becomes legacy 401', async () => {
    const before = sandbox.state.requests.length;
    const reply = await get(keyless.url, '/api/staffs');
    expect(reply.status).toBe(401);
    expect(reply.text).toBe(failure('missing or unknown API key: send a valid key in the X-API-KEY header'));
    expect(sandbox.state.requests.slice(before).map((r) => r.apiKey)).toEqual([false]);
  });

  it('an unknown key is a 401 too, even on a gateway holding a key', async () => {
    const reply = await get(gateway.url, '/api/services', { 'X-API-KEY': 'not-a-key' });
    expect(reply.status).toBe(401);
    expect(reply.text).toBe(failure('missing or unknown API key: send a valid key in the X-API-KEY header'));
  });

  it('the api_key query parameter is used as the key, and never sent on in the URL', async () => {
    const before = sandbox.state.requests.length;
    const staff = await get(keyless.url, `/api/staffs/0/2?api_key=${SANDBOX_KEYS.primary}`);
    expect(staff.status).toBe(200);
    expect(staff.text).toBe(goldenText('staffs'));
    const client = await get(keyless.url, `/api/client?api_key=${SANDBOX_KEYS.primary}&email=G.HOPPER@navy.example.mil`);
    expect(client.text).toBe(goldenText('client'));
    expect(sandbox.state.requests.slice(before)).toEqual([
      { method: 'GET', path: '/api/v1/staff', query: { offset: '0', limit: '2' }, apiKey: true },
      { method: 'GET', path: '/api/v1/clients', query: { email: 'G.HOPPER@navy.example.mil', offset: '0', limit: '1000' }, apiKey: true },
    ]);
    const secondary = await get(keyless.url, `/api/staffs?api_key=${SANDBOX_KEYS.secondary}`);
    expect(secondary.status).toBe(403);
  });

  describe('the account gate', () => {
    afterEach(() => {
      sandbox.state.gate = null;
    });

    it.each([
      ['account_locked', 403, 'the subscription has lapsed: renew it to use the API'],
      ['account_unverified', 403, 'the e-mail address of the account is not verified: verify it to use the API'],
      ['plan_not_allowed', 403, 'the plan does not include the API: upgrade to the top-tier plan'],
      ['maintenance', 503, 'the service is down for maintenance: try again later'],
    ] as const)('%s -> %i with v1 message', async (gate: AccountGate, status, message) => {
      sandbox.state.gate = gate;
      for (const legacy of ['/api/sessions/0/2', '/api/client?username=ghopper', '/api/meetourteam']) {
        const reply = await get(gateway.url, legacy);
        expect(reply.status, legacy).toBe(status);
        expect(reply.text, legacy).toBe(failure(message));
      }
      sandbox.state.gate = null;
      expect((await get(gateway.url, '/api/sessions/0/2')).text).toBe(goldenText('sessions'));
    });
  });

  it('the v1 rate limit answers 429 with its Retry-After', async () => {
    const limited = await startSandbox({ rateLimitPerHour: 2, now: () => Date.UTC(2024, 0, 1) });
    const gw = await startTestGateway({ UPSTREAM_URL: limited.url, UPSTREAM_API_KEY: SANDBOX_KEYS.primary, CACHE_TTL_MS: '0' });
    try {
      expect((await get(gw.url, '/api/staffs/0/2')).text).toBe(goldenText('staffs'));
      expect((await get(gw.url, '/api/staffs/0/2')).status).toBe(200);
      const reply = await get(gw.url, '/api/staffs/0/2');
      expect(reply.status).toBe(429);
      expect(reply.headers.get('retry-after')).toBe('3600');
      expect(reply.text).toBe(failure('hourly rate limit reached for this URL and key'));
      // The window counts per URL: another page is still served.
      expect((await get(gw.url, '/api/staffs/0/3')).status).toBe(200);
    } finally {
      await gw.close();
      await limited.close();
    }
  });
});

describe('/api/testimonials', () => {
  it('serves the operator file, every value a string or null, no v1 call', async () => {
    const before = sandbox.state.requests.length;
    const reply = await get(gateway.url, '/api/testimonials');
    expect(reply.status).toBe(200);
    expect(reply.text).toBe(goldenText('testimonials'));
    expect(sandbox.state.requests.length).toBe(before);
  });

  it('answers 501 when TESTIMONIALS_FILE is not set', async () => {
    const reply = await get(keyless.url, '/api/testimonials');
    expect(reply.status).toBe(501);
    expect(reply.text).toBe(
      '{"status":"failure","response":"testimonials are not available on this gateway (TESTIMONIALS_FILE is not set)"}',
    );
  });
});

describe('every legacy value is a string or null', () => {
  const stringOrNull = (record: LegacyRecord): string[] =>
    Object.entries(record)
      .filter(([, v]) => v !== null && typeof v !== 'string')
      .map(([k, v]) => `${k}=${JSON.stringify(v)}`);

  // Every record of every list method, in full.
  it.each([
    ['/api/clients', 300],
    ['/api/staffs/0/100', 30],
    ['/api/meetourstaff/0/100', 30],
    ['/api/practitioners/0/100', 25],
    ['/api/meetourteam/0/100', 25],
    ['/api/services/0/100', 12],
    ['/api/sessions/0/1000', 500],
    ['/api/testimonials', 3],
  ])('%s: all %i records', async (legacy, count) => {
    const reply = await get(gateway.url, legacy);
    expect(reply.status).toBe(200);
    const body = reply.body as Body;
    expect(Object.keys(body)).toEqual(
      legacy === '/api/testimonials' ? ['status', 'response'] : legacy.startsWith('/api/sessions') ? ['status', 'total', 'timezone', 'response'] : ['status', 'total', 'response'],
    );
    if (body.total !== undefined) expect(body.total).toBe(String(count));
    const list = records(body);
    expect(list).toHaveLength(count);
    const offending = list.flatMap((record, i) => stringOrNull(record).map((v) => `#${i}: ${v}`));
    expect(offending).toEqual([]);
    expect(list.some((record) => 'object' in record)).toBe(false);
  });

  // Every record each detail method can return: each id the list gives, through the detail method.
  it.each([
    ['/api/client?id=', '/api/clients'],
    ['/api/staff/', '/api/staffs/0/100'],
    ['/api/practitioner/', '/api/practitioners/0/100'],
    ['/api/service/', '/api/services/0/100'],
    ['/api/session/', '/api/sessions/0/1000'],
  ])('%s{id} for every id of %s', async (detail, list) => {
    const ids = records((await get(gateway.url, list)).body).map((r) => String(r.id));
    const offending: string[] = [];
    for (let i = 0; i < ids.length; i += 50) {
      const replies = await Promise.all(ids.slice(i, i + 50).map((id) => get(gateway.url, `${detail}${id}`)));
      for (const [j, reply] of replies.entries()) {
        const id = ids[i + j]!;
        if (reply.status !== 200) offending.push(`${id}: HTTP ${reply.status}`);
        const body = reply.body as { status: string; timezone?: unknown; response: LegacyRecord };
        if (body.status !== 'success' || (body.timezone !== undefined && typeof body.timezone !== 'string')) offending.push(`${id}: envelope`);
        if (body.response.id !== id) offending.push(`${id}: answered id ${String(body.response.id)}`);
        offending.push(...stringOrNull(body.response).map((v) => `${id}: ${v}`));
      }
    }
    expect(offending).toEqual([]);
  });
});
