// Keys, paths, verbs, account gates and the non-API extras of the sandbox, over real HTTP.
import { inflateSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { call, errorText, PRIMARY, SECONDARY, useSandbox } from './harness.js';

const sandbox = useSandbox();

describe('API key', () => {
  it('answers 401 invalid_key without the header, or with an unknown key', async () => {
    for (const headers of [{}, { 'X-API-KEY': 'nope' }, { 'X-API-KEY': '' }] as Record<string, string>[]) {
      const r = await call(sandbox().url, '/api/v1/clients', { headers });
      expect(r.status).toBe(401);
      expect(r.text).toBe(errorText('invalid_key', 'missing or unknown API key: send a valid key in the X-API-KEY header'));
      expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
    }
  });

  it('does not take the key from the URL', async () => {
    const r = await call(sandbox().url, '/api/v1/clients?api_key=sandbox-primary-key');
    expect(r.status).toBe(401);
  });

  it('lets the secondary key use clients, services and timezones only', async () => {
    for (const name of ['clients', 'services', 'timezones']) {
      expect((await call(sandbox().url, `/api/v1/${name}?limit=1`, { headers: SECONDARY })).status).toBe(200);
    }
    for (const path of ['/api/v1/staff', '/api/v1/sessions/1', '/api/v1/payments', '/api/v1/discounts?code=SWIM5']) {
      const r = await call(sandbox().url, path, { headers: SECONDARY });
      expect(r.status).toBe(403);
      const name = path.split('/')[3]?.split('?')[0] ?? '';
      expect(r.text).toBe(errorText('resource_not_allowed', `this API key may not use the ${name} resource`));
    }
  });

  it('checks the secondary key scope before the verb', async () => {
    const r = await call(sandbox().url, '/api/v1/payments', { method: 'POST', headers: SECONDARY });
    expect(r.status).toBe(403);
  });
});

describe('paths and verbs', () => {
  it('lists the resources on GET /api/v1 (with or without the trailing slash)', async () => {
    for (const path of ['/api/v1', '/api/v1/']) {
      const r = await call(sandbox().url, path, { headers: PRIMARY });
      expect(r.status).toBe(200);
      const body = r.body as { object: string; data: { object: string; name: string; path: string; methods: string[] }[] };
      expect(Object.keys(body)).toEqual(['object', 'data']);
      expect(body.object).toBe('list');
      expect(body.data.map((d) => d.name)).toEqual([
        'clients', 'discounts', 'locations', 'packages', 'payments', 'practitioners', 'services', 'sessions',
        'skills', 'staff', 'timezones',
      ]);
      expect(body.data[0]).toEqual({ object: 'resource', name: 'clients', path: '/api/v1/clients', methods: ['GET', 'POST'] });
    }
  });

  it('answers 404 unknown_resource for a path that is not a v1 resource', async () => {
    for (const [path, shown] of [
      ['/api/v1/agents', '/api/v1/agents'],
      ['/api/v1/clients/1/sessions', '/api/v1/clients/1/sessions'],
      ['/api/v1//clients', '/api/v1//clients'],
      ['/api/v1/Clients', '/api/v1/Clients'],
    ] as const) {
      const r = await call(sandbox().url, path, { headers: PRIMARY });
      expect(r.status).toBe(404);
      expect(r.text).toBe(errorText('unknown_resource', `${shown} is not a v1 resource`));
    }
  });

  it('answers 404 not_found for an unknown id or one that is not an integer', async () => {
    for (const id of ['999999', '0', 'abc', '1.5', '-1', '01']) {
      const r = await call(sandbox().url, `/api/v1/clients/${id}`, { headers: PRIMARY });
      expect(r.status).toBe(404);
      expect(r.text).toBe(errorText('not_found', `no client with id ${id}`));
    }
  });

  it('answers 405 method_not_allowed with an Allow header naming the supported verbs', async () => {
    const cases: [string, string, string][] = [
      ['DELETE', '/api/v1/clients/1', 'GET'],
      ['PATCH', '/api/v1/clients/1', 'GET'],
      ['PUT', '/api/v1/clients', 'GET, POST'],
      ['POST', '/api/v1/staff', 'GET'],
      ['POST', '/api/v1/clients/1', 'GET'],
      ['DELETE', '/api/v1/payments', 'GET, POST'],
      ['POST', '/api/v1', 'GET'],
    ];
    for (const [method, path, allow] of cases) {
      const r = await call(sandbox().url, path, { method, headers: PRIMARY });
      expect(r.status, `${method} ${path}`).toBe(405);
      expect(r.headers.get('allow')).toBe(allow);
      expect(r.text).toBe(
        errorText('method_not_allowed', `${method} is not supported here; use ${allow.split(', ').join(' or ')}`),
      );
    }
  });

  it('answers HEAD like GET, without a body', async () => {
    const r = await call(sandbox().url, '/api/v1/clients/1', { method: 'HEAD', headers: PRIMARY });
    expect(r.status).toBe(200);
    expect(r.text).toBe('');
  });

  it('answers 410 gone, naming /api/v1/, for any old unversioned URL and any verb, without a key', async () => {
    const expected = errorText('gone', 'the unversioned API has been retired; use the current API at /api/v1/');
    for (const [method, path] of [
      ['GET', '/api/clients/0/10'],
      ['GET', '/api/client?id=1'],
      ['POST', '/api/payment'],
      ['GET', '/api'],
      ['GET', '/api/'],
      ['GET', '/api/v2/clients'],
      ['DELETE', '/api/v1x'],
    ] as const) {
      const r = await call(sandbox().url, path, { method });
      expect(r.status, `${method} ${path}`).toBe(410);
      expect(r.text).toBe(expected);
    }
  });

  it('answers 404 not_found for paths outside the API', async () => {
    const r = await call(sandbox().url, '/nothing/here');
    expect(r.status).toBe(404);
    expect(r.text).toBe(errorText('not_found', 'no such path'));
  });

  it('never sends X-Powered-By or an ETag', async () => {
    const r = await call(sandbox().url, '/api/v1/clients/1', { headers: PRIMARY });
    expect(r.headers.get('x-powered-by')).toBeNull();
    expect(r.headers.get('etag')).toBeNull();
  });
});

describe('account gates', () => {
  afterEach(() => {
    sandbox().state.gate = null;
  });

  it('answers every keyed call with the gate code, after the key check', async () => {
    const cases = [
      ['account_unverified', 403, 'the e-mail address of the account is not verified: verify it to use the API'],
      ['account_locked', 403, 'the subscription has lapsed: renew it to use the API'],
      ['plan_not_allowed', 403, 'the plan does not include the API: upgrade to the top-tier plan'],
      ['maintenance', 503, 'the service is down for maintenance: try again later'],
    ] as const;
    for (const [gate, status, message] of cases) {
      sandbox().state.gate = gate;
      const r = await call(sandbox().url, '/api/v1/clients/1', { headers: PRIMARY });
      expect(r.status).toBe(status);
      expect(r.text).toBe(errorText(gate, message));
      expect((await call(sandbox().url, '/api/v1/clients/1')).status).toBe(401);
    }
  });
});

describe('legacy extras (no key)', () => {
  it('serves the blank headshot as a valid 1x1 PNG', async () => {
    const res = await fetch(`${sandbox().url}/assets/backend/images/headshots/blank.png`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    const png = Buffer.from(await res.arrayBuffer());
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(png.subarray(12, 16).toString('latin1')).toBe('IHDR');
    expect(png.readUInt32BE(16)).toBe(1);
    expect(png.readUInt32BE(20)).toBe(1);
    const idatLength = png.readUInt32BE(33);
    expect(png.subarray(37, 41).toString('latin1')).toBe('IDAT');
    expect(inflateSync(png.subarray(41, 41 + idatLength))).toEqual(Buffer.from([0, 0, 0, 0, 0]));
  });

  it('answers the on-demand link with a deterministic opaque token on the sandbox URL', async () => {
    const first = await call(sandbox().url, '/ondemand/student-42/7/9');
    const again = await call(sandbox().url, '/ondemand/student-42/7/9');
    const other = await call(sandbox().url, '/ondemand/student-43/7/9');
    expect(first.status).toBe(200);
    const body = first.body as { status: string; response: string };
    expect(Object.keys(body)).toEqual(['status', 'response']);
    expect(body.status).toBe('success');
    expect(body.response).toMatch(new RegExp(`^${sandbox().url}/ondemand/form\\?t=[A-Za-z0-9_-]{43}$`));
    expect(body.response).not.toContain('student-42');
    expect(again.text).toBe(first.text);
    expect(other.text).not.toBe(first.text);
  });

  it('answers 400 in the legacy shape when an agent id is not an integer', async () => {
    const r = await call(sandbox().url, '/ondemand/student-42/x/9');
    expect(r.status).toBe(400);
    expect(r.text).toBe(JSON.stringify({ status: 'failure', response: 'primary_agent_id and secondary_agent_id must be integers' }));
  });
});

describe('request log', () => {
  it('records method, path, query and whether a key was present, never the key', async () => {
    const { state, url } = sandbox();
    state.requests.length = 0;
    await call(url, '/api/v1/clients?limit=2&status=active&status=prospect', { headers: PRIMARY });
    await call(url, '/api/v1/staff?api_key=sandbox-secondary-key');
    await call(url, '/api/old', { method: 'POST' });
    expect(state.requests).toEqual([
      { method: 'GET', path: '/api/v1/clients', query: { limit: '2', status: ['active', 'prospect'] }, apiKey: true },
      { method: 'GET', path: '/api/v1/staff', query: { api_key: '[redacted]' }, apiKey: false },
      { method: 'POST', path: '/api/old', query: {}, apiKey: false },
    ]);
    expect(JSON.stringify(state.requests)).not.toContain('sandbox-');
  });
});
