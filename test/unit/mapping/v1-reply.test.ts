// The single-record rule: a v1 record read by id is an object carrying the requested id, or a 502 fault.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { asV1List, asV1Record, isRequestedId } from '../../../src/mapping/v1-reply.js';

describe('isRequestedId', () => {
  it.each([
    [42, '42'],
    ['42', '42'],
    ['042', '42'],
    [0, '0'],
    ['0', '0'],
  ])('%j is the requested id %j (compared as whole numbers)', (actual, requested) => {
    expect(isRequestedId(actual, requested)).toBe(true);
  });

  it.each([
    [43, '42'],
    ['43', '42'],
    [42.5, '42'],
    [-42, '42'],
    ['42 ', '42'],
    ['4e1', '40'],
    [true, '1'],
    [null, '42'],
    [undefined, '42'],
    [{}, '42'],
    [[42], '42'],
    [2 ** 53 + 2, String(2 ** 53 + 2)],
  ])('%j is not the requested id %j', (actual, requested) => {
    expect(isRequestedId(actual, requested)).toBe(false);
  });

  it('compares an id that is not a whole number as the same text', () => {
    expect(isRequestedId('abc', 'abc')).toBe(true);
    expect(isRequestedId('ABC', 'abc')).toBe(false);
  });
});

describe('asV1Record', () => {
  const requested = { idField: 'id', id: '2' };

  it('returns the record that carries the requested id, number or string', () => {
    expect(asV1Record({ object: 'staff', id: 2, first_name: 'Ann' }, requested)).toEqual({ object: 'staff', id: 2, first_name: 'Ann' });
    expect(asV1Record({ id: '2' }, requested)).toEqual({ id: '2' });
  });

  it.each([[[]], ['x'], [null], [7], [[{ id: 2 }]]])('refuses %j: not an object', (body) => {
    expect(() => asV1Record(body, requested)).toThrow(
      expect.objectContaining({
        code: 'LGW_UPSTREAM_BAD_REPLY',
        status: 502,
        message: 'the upstream sent a record the gateway does not understand (body: expected a JSON object)',
      }),
    );
  });

  it.each([[{ data: 'not a list' }], [{}], [{ id: 3 }], [{ id: '3' }], [{ id: null }], [{ object: 'list', data: [{ id: 2 }] }]])(
    'refuses %j: not the requested id',
    (body) => {
      expect(() => asV1Record(body, requested)).toThrow(
        expect.objectContaining({
          code: 'LGW_UPSTREAM_BAD_REPLY',
          status: 502,
          message: 'the upstream sent a record the gateway does not understand (id: not the requested id 2)',
        }),
      );
    },
  );

  it('reads the id from the field it is given', () => {
    expect(asV1Record({ uid: 2, id: 9 }, { idField: 'uid', id: '2' })).toEqual({ uid: 2, id: 9 });
    expect(() => asV1Record({ id: 2 }, { idField: 'uid', id: '2' })).toThrow('(uid: not the requested id 2)');
  });

  it('never puts the value v1 sent in the message', () => {
    expect(() => asV1Record({ id: 'secret-looking-value' }, requested)).toThrow(expect.objectContaining({ message: expect.not.stringContaining('secret') }));
  });
});

describe('asV1List', () => {
  it('still refuses a list without data', () => {
    expect(() => asV1List({ data: 'not a list' })).toThrow(expect.objectContaining({ code: 'LGW_UPSTREAM_BAD_REPLY', status: 502 }));
  });
});

describe('asV1List: the hand check is listEnvelope', () => {
  it('accepts and refuses exactly what the zod envelope does', () => {
    const envelope = z.object({ total: z.number().int().min(0), has_more: z.boolean(), data: z.array(z.custom((v) => typeof v === 'object' && v !== null && !Array.isArray(v))) });
    const field = fc.oneof(fc.jsonValue({ maxDepth: 1 }), fc.constantFrom(undefined, -1, 0.5, 3, 2 ** 53, Number.MAX_SAFE_INTEGER, true, [], [{}], [null], [[]], [{ a: 1 }, 2]));
    fc.assert(
      fc.property(fc.record({ total: field, has_more: field, data: field, object: field }, { requiredKeys: [] }), (body) => {
        const ok = envelope.safeParse(body).success;
        if (ok) expect(asV1List(body).data).toEqual((body as { data: unknown[] }).data);
        else expect(() => asV1List(body)).toThrow();
      }),
      { numRuns: 2000 },
    );
  });
});
