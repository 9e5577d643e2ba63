import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/shared/errors.js';
import { validateMappingSet } from '../../../src/mapping/mapping-set.js';
import type { Mapping } from '../../../src/mapping/schema.js';
import { runMapping, type EngineDeps } from '../../../src/mapping/run.js';
import type { V1Call } from '../../../src/mapping/v1-reply.js';
import { handOff } from '../../../src/shared/hand-off.js';

/** A v1 port answering from a function, remembering every call. */
function fakeV1(answer: (call: V1Call) => unknown) {
  const calls: V1Call[] = [];
  const deps: EngineDeps = {
    v1Get: async (call) => {
      calls.push(call);
      const out = answer(call);
      if (out instanceof Error) throw out;
      return handOff(out);
    },
    accountTimezone: undefined,
    staticRecords: () => undefined,
  };
  return { calls, deps };
}

const list = (data: object[], total = data.length, hasMore = false) => ({ object: 'list', total, limit: 100, offset: 0, has_more: hasMore, data });

/** A method file written with its record inline, resolved as the set validation resolves it. */
function m(raw: { method: string; record: { nulls?: string; fields: object[] } } & Record<string, unknown>): Mapping {
  const { record, ...method } = raw;
  const set = validateMappingSet({
    records: [{ file: 'records/test.yaml', name: 'test', data: { ...record, views: { every: 'all' } } }],
    methods: [{ file: `${raw.method}.yaml`, data: { ...method, record: 'test', view: 'every' } }],
  });
  return set.get(raw.method)!;
}

const peopleFile = {
  method: 'people',
  description: 'test',
  kind: 'list',
  source: { resource: 'people' },
  paging: { default: 20, max: 100 },
  record: {
    nulls: 'keep',
    fields: [{ name: 'id' }, { name: 'full', derive: { template: '{first} {last}' } }, { name: 'cost', format: 'money' }, { name: 'gone', missing: true }, { name: 'minTime', default: '08:00:00' }, { name: 'nick', from: 'nickname', nulls: 'empty' }],
  },
};
const people = m(peopleFile);

describe('list mappings', () => {
  it('makes one v1 call with offset and limit, and builds the legacy envelope and records in field order', async () => {
    const { calls, deps } = fakeV1(() => list([{ object: 'person', id: 7, first: 'Ada', last: 'L', cost: 45.5, nickname: null }], 31));
    const body = await runMapping(people, { segments: ['5', '2'], query: [] }, deps);
    expect(calls).toEqual([{ path: '/people', query: { offset: '5', limit: '2' } }]);
    expect(JSON.stringify(body)).toBe(
      '{"status":"success","total":"31","response":[{"id":"7","full":"Ada L","cost":"45.50","gone":null,"minTime":"08:00:00","nick":""}]}',
    );
  });

  it('refuses bad paging before any v1 call', async () => {
    const { calls, deps } = fakeV1(() => list([]));
    await expect(runMapping(people, { segments: ['-1', '5'], query: [] }, deps)).rejects.toMatchObject({ code: 'LGW_BAD_REQUEST', status: 400 });
    expect(calls).toEqual([]);
  });

  it('answers a bad upstream list shape as a 502', async () => {
    const { deps } = fakeV1(() => ({ data: 'nope' }));
    await expect(runMapping(people, { segments: [], query: [] }, deps)).rejects.toMatchObject({ code: 'LGW_UPSTREAM_BAD_REPLY', status: 502 });
  });

  it('puts the first record\'s timezone before response, else ACCOUNT_TIMEZONE, else the fallback', async () => {
    const withTz = m({ ...peopleFile, timezone: { from: 'timezone', fallback: 'America/New_York' } });
    const one = fakeV1(() => list([{ id: 1, timezone: 'America/Chicago' }]));
    expect(Object.keys(await runMapping(withTz, { segments: [], query: [] }, one.deps))).toEqual(['status', 'total', 'timezone', 'response']);
    expect((await runMapping(withTz, { segments: [], query: [] }, one.deps)).timezone).toBe('America/Chicago');
    const none = fakeV1(() => list([]));
    expect((await runMapping(withTz, { segments: [], query: [] }, none.deps)).timezone).toBe('America/New_York');
    none.deps.accountTimezone = 'Europe/London';
    expect((await runMapping(withTz, { segments: [], query: [] }, none.deps)).timezone).toBe('Europe/London');
  });
});

const sorted = m({
  method: 'sorted',
  description: 'test',
  kind: 'sorted-list',
  source: { resource: 'staff', pageSize: 2, maxPages: 5 },
  paging: { default: 20, max: 100 },
  sort: [{ field: 'priority', type: 'number' }, { field: 'first_name', type: 'text' }],
  record: { nulls: 'keep', fields: [{ name: 'staff_id', from: 'id' }, { name: 'first_name' }, { name: 'priority' }] },
});

describe('sorted-list mappings', () => {
  const all = [
    { id: 1, first_name: 'zoe', priority: 2 },
    { id: 2, first_name: 'Bob', priority: 1 },
    { id: 3, first_name: 'amy', priority: 2 },
    { id: 4, first_name: 'Cal', priority: null },
    { id: 5, first_name: 'Abe', priority: 1 },
  ];
  const pages = (call: V1Call) => {
    const offset = Number(call.query.offset);
    const limit = Number(call.query.limit);
    return list(all.slice(offset, offset + limit), all.length, offset + limit < all.length);
  };

  it('reads every v1 page, sorts by priority then first name, then cuts start/limit', async () => {
    const { calls, deps } = fakeV1(pages);
    const body = await runMapping(sorted, { segments: ['1', '3'], query: [] }, deps);
    expect(calls.map((c) => c.query)).toEqual([
      { offset: '0', limit: '2' },
      { offset: '2', limit: '2' },
      { offset: '4', limit: '2' },
    ]);
    expect(body).toEqual({
      status: 'success',
      total: '5',
      response: [
        { staff_id: '2', first_name: 'Bob', priority: '1' },
        { staff_id: '3', first_name: 'amy', priority: '2' },
        { staff_id: '1', first_name: 'zoe', priority: '2' },
      ],
    });
  });

  it('gives up with a 502 on an upstream that never stops saying has_more', async () => {
    const { deps } = fakeV1(() => list([{ id: 1 }], 1, true));
    await expect(runMapping(sorted, { segments: [], query: [] }, deps)).rejects.toMatchObject({ code: 'LGW_UPSTREAM_BAD_REPLY' });
  });
});

const lookup = m({
  method: 'client',
  description: 'test',
  kind: 'lookup',
  source: { resource: 'clients', pageSize: 1000, maxPages: 3 },
  exclusive: [
    { param: 'id', via: 'detail', value: 'integer' },
    { param: 'email', via: 'filter', filter: 'email', field: 'email', match: 'list-contains-ci' },
    { param: 'username', via: 'filter', filter: 'username', field: 'username', match: 'equals-ci' },
  ],
  combinable: [
    { param: 'first_name', via: 'filter', filter: 'first_name', field: 'first_name', match: 'equals-ci' },
    { param: 'last_name', via: 'filter', filter: 'last_name', field: 'last_name', match: 'equals-ci' },
  ],
  notFound: 'client not found',
  record: { nulls: 'keep', fields: [{ name: 'id' }, { name: 'email' }, { name: 'username' }] },
});

describe('lookup mappings', () => {
  const clients = [
    { id: 1, email: 'x@example.com', username: 'Ann', first_name: 'Ann', last_name: 'Lee' },
    { id: 2, email: 'a@example.com, B@Example.com', username: 'bo', first_name: 'Bo', last_name: 'Lee' },
  ];
  // An upstream that ignores every filter: the gateway's own check must still pick the right record.
  const ignoringFilters = () => list(clients);

  it('uses the first of id, email, username to appear in the query string', async () => {
    const { calls, deps } = fakeV1(ignoringFilters);
    const body = await runMapping(lookup, { segments: [], query: [['username', 'ANN'], ['email', 'b@example.com']] }, deps);
    expect(body).toEqual({ status: 'success', response: { id: '1', email: 'x@example.com', username: 'Ann' } });
    expect(calls).toEqual([{ path: '/clients', query: { username: 'ANN', offset: '0', limit: '1000' } }]);
  });

  it('matches any address of a comma-separated list, case-insensitively', async () => {
    const { deps } = fakeV1(ignoringFilters);
    const body = await runMapping(lookup, { segments: [], query: [['first_name', 'Ann'], ['email', 'b@example.com']] }, deps);
    expect((body.response as { id: string }).id).toBe('2');
  });

  it('reads a list field sent as an array as its items, and skips an object it cannot match', async () => {
    const odd = [
      { id: 3, email: JSON.parse('{"toString":0}'), username: JSON.parse('{"toString":0}') },
      { id: 4, email: ['c@example.com', 'D@example.com'], username: 'di' },
    ];
    const { deps } = fakeV1(() => list(odd));
    const body = await runMapping(lookup, { segments: [], query: [['email', 'd@example.com']] }, deps);
    expect(body).toEqual({ status: 'success', response: { id: '4', email: '["c@example.com","D@example.com"]', username: 'di' } });
    await expect(runMapping(lookup, { segments: [], query: [['username', 'x']] }, deps)).rejects.toMatchObject({ code: 'LGW_NOT_FOUND', status: 404 });
  });

  it('reads a detail record for id, and answers 404 when v1 has none', async () => {
    const { calls, deps } = fakeV1((c) => (c.path === '/clients/2' ? { object: 'client', ...clients[1] } : new GatewayError('LGW_UPSTREAM_ERROR', 'not found', { status: 404 })));
    expect((await runMapping(lookup, { segments: [], query: [['id', '2']] }, deps)).response).toEqual({ id: '2', email: 'a@example.com, B@Example.com', username: 'bo' });
    await expect(runMapping(lookup, { segments: [], query: [['id', '9']] }, deps)).rejects.toMatchObject({ code: 'LGW_NOT_FOUND', status: 404, message: 'client not found' });
    expect(calls.map((c) => c.path)).toEqual(['/clients/2', '/clients/9']);
  });

  it('combines first_name and last_name, and answers 404 when nothing matches', async () => {
    const { calls, deps } = fakeV1(ignoringFilters);
    expect(((await runMapping(lookup, { segments: [], query: [['last_name', 'lee'], ['first_name', 'bo']] }, deps)).response as { id: string }).id).toBe('2');
    expect(calls[0]).toEqual({ path: '/clients', query: { first_name: 'bo', last_name: 'lee', offset: '0', limit: '1000' } });
    await expect(runMapping(lookup, { segments: [], query: [['first_name', 'Zed']] }, deps)).rejects.toMatchObject({ code: 'LGW_NOT_FOUND' });
  });

  it.each([
    [[], 'one of id, email, username, first_name, last_name is required'],
    [[['id', 'abc']], 'id must be a whole number'],
    [[['email', ' ']], 'email must not be empty'],
  ])('refuses %j without a v1 call', async (query, message) => {
    const { calls, deps } = fakeV1(ignoringFilters);
    await expect(runMapping(lookup, { segments: [], query: query as Array<[string, string]> }, deps)).rejects.toMatchObject({ code: 'LGW_BAD_REQUEST', message });
    expect(calls).toEqual([]);
  });
});

describe('static mappings', () => {
  const testimonials = m({
    method: 'testimonials',
    description: 'test',
    kind: 'static',
    source: { setting: 'TESTIMONIALS_FILE' },
    unavailable: 'not configured',
    record: { nulls: 'keep', fields: [{ name: 'id' }, { name: 'testimonial' }] },
  });

  it('answers the operator records, or 501 when the file is not configured', async () => {
    const { deps } = fakeV1(() => list([]));
    await expect(runMapping(testimonials, { segments: [], query: [] }, deps)).rejects.toMatchObject({ code: 'LGW_NOT_CONFIGURED', status: 501 });
    deps.staticRecords = () => [{ id: 1, testimonial: '<b>Great</b>' }];
    expect(await runMapping(testimonials, { segments: [], query: [] }, deps)).toEqual({ status: 'success', response: [{ id: '1', testimonial: '<b>Great</b>' }] });
  });
});

describe('single-record reads: the record must be the one requested', () => {
  const detailFile = {
    method: 'thing',
    description: 'test',
    kind: 'detail',
    source: { resource: 'things' },
    record: { nulls: 'keep', fields: [{ name: 'id' }, { name: 'name' }] },
  };
  const detail = m(detailFile);
  const malformed: Array<[unknown]> = [[{ data: 'not a list' }], [[]], ['x'], [{}], [{ id: 3, name: 'Other' }], [{ id: '3' }]];

  it('answers the record whose id is the requested one, as a number or a string', async () => {
    for (const id of [2, '2']) {
      const { calls, deps } = fakeV1(() => ({ object: 'thing', id, name: 'Two' }));
      expect(await runMapping(detail, { segments: ['02'], query: [] }, deps)).toEqual({ status: 'success', response: { id: '2', name: 'Two' } });
      expect(calls).toEqual([{ path: '/things/2', query: {} }]);
    }
  });

  it.each(malformed)('detail: %j is a 502, not an empty or foreign record', async (body) => {
    const { calls, deps } = fakeV1(() => body);
    await expect(runMapping(detail, { segments: ['2'], query: [] }, deps)).rejects.toMatchObject({
      code: 'LGW_UPSTREAM_BAD_REPLY',
      status: 502,
      message: expect.stringMatching(/^the upstream sent a record the gateway does not understand \((body: expected a JSON object|id: not the requested id 2)\)$/),
    });
    expect(calls).toHaveLength(1);
  });

  it.each(malformed)('lookup by id: %j is a 502, not a 404 or a foreign record', async (body) => {
    const { calls, deps } = fakeV1(() => body);
    await expect(runMapping(lookup, { segments: [], query: [['id', '2']] }, deps)).rejects.toMatchObject({ code: 'LGW_UPSTREAM_BAD_REPLY', status: 502 });
    expect(calls).toEqual([{ path: '/clients/2', query: {} }]);
  });

  it('reads the id from the source\'s idField when the mapping names one (default: id)', async () => {
    expect(detail.kind === 'detail' && detail.source.idField).toBe('id');
    const byUid = m({ ...detailFile, source: { resource: 'things', idField: 'uid' } });
    const good = fakeV1(() => ({ uid: 2, id: 9, name: 'Two' }));
    expect((await runMapping(byUid, { segments: ['2'], query: [] }, good.deps)).response).toEqual({ id: '9', name: 'Two' });
    const bad = fakeV1(() => ({ id: 2, name: 'Two' }));
    await expect(runMapping(byUid, { segments: ['2'], query: [] }, bad.deps)).rejects.toMatchObject({
      code: 'LGW_UPSTREAM_BAD_REPLY',
      message: 'the upstream sent a record the gateway does not understand (uid: not the requested id 2)',
    });
  });

  it('a list mapping takes no idField', () => {
    expect(() => m({ ...peopleFile, method: 'people2', source: { resource: 'people', idField: 'id' } })).toThrow();
  });
});
