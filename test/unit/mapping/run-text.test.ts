// The engine's reply text against the plain engine (records built with toLegacyRecord, the envelope as a
// value, the sorted lists by the previous sort, then JSON.stringify), for the shipped mappings of every
// kind, on random v1 data.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadMappingDirectorySync } from '../../../src/gateway/loaders/mapping-files.js';
import { toLegacyRecord, type V1Record } from '../../../src/mapping/legacy-record.js';
import { compileMapping, runMappingText, type EngineDeps } from '../../../src/mapping/run.js';
import type { Mapping, SortedListMapping } from '../../../src/mapping/schema.js';
import type { RosterStore, SortedRoster } from '../../../src/mapping/sorted-roster.js';
import type { V1Call } from '../../../src/mapping/v1-reply.js';
import { handOff } from '../../../src/shared/hand-off.js';
import { referenceSortRecords } from './reference-order.js';
import { anyNumber, anyText, anyValue, recordOf, sourceNames } from './v1-arbitraries.js';

/** The reply's text, taken from its box. */
const textOf = async (...args: Parameters<typeof runMappingText>) => (await runMappingText(...args)).take();

const MAPPINGS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'mappings');
const shipped = loadMappingDirectorySync(MAPPINGS).reads;
const method = <K extends Mapping['kind']>(name: string, kind: K) => {
  const mapping = shipped.get(name);
  if (mapping?.kind !== kind) throw new Error(`${name} is not a ${kind} mapping`);
  return mapping as Extract<Mapping, { kind: K }>;
};

const legacy = (mapping: Mapping, record: V1Record) => toLegacyRecord(record, mapping.record.fields, mapping.record.nulls);

function deps(answer: (call: V1Call) => unknown, extra: Partial<EngineDeps> = {}): EngineDeps & { calls: V1Call[] } {
  const calls: V1Call[] = [];
  return {
    calls,
    v1Get: async (call) => {
      calls.push(call);
      return handOff(answer(call));
    },
    accountTimezone: undefined,
    staticRecords: () => undefined,
    ...extra,
  };
}

/** v1 records a mapping reads, each field of any JSON type, present or missing. */
const recordsFor = (mapping: Mapping, maxLength: number) =>
  fc.array(fc.array(fc.tuple(fc.constantFrom(...sourceNames(mapping.record.fields), 'timezone'), anyValue), { maxLength: 12 }).map(recordOf), { maxLength });

describe('list replies', () => {
  it.each(['sessions', 'clients', 'staffs', 'services', 'practitioners'])('%s: the plain engine text, timezone included', (name) => {
    const mapping = method(name, 'list');
    const compiled = compileMapping(mapping);
    fc.assert(
      fc.asyncProperty(recordsFor(mapping, 6), fc.nat(), fc.option(anyText, { nil: undefined }), async (data, total, accountTimezone) => {
        const text = await textOf(compiled, { segments: [], query: [] }, deps(() => ({ total, has_more: false, data }), { accountTimezone }));
        const first = data[0]?.timezone;
        const body: Record<string, unknown> = { status: 'success', total: String(total) };
        if (mapping.timezone) body.timezone = typeof first === 'string' && first !== '' ? first : (accountTimezone ?? mapping.timezone.fallback);
        body.response = data.map((r) => legacy(mapping, r));
        expect(text).toBe(JSON.stringify(body));
      }),
      { numRuns: 150 },
    );
  });
});

describe('detail, lookup and static replies', () => {
  it('session: one record, with its timezone', async () => {
    const mapping = method('session', 'detail');
    const compiled = compileMapping(mapping);
    await fc.assert(
      fc.asyncProperty(recordsFor(mapping, 1), fc.oneof(anyText, anyNumber), async ([record], tz) => {
        const found = { ...record, id: 7, timezone: tz };
        const text = await textOf(compiled, { segments: ['7'], query: [] }, deps(() => found));
        const timezone = typeof tz === 'string' && tz !== '' ? tz : mapping.timezone!.fallback;
        expect(text).toBe(JSON.stringify({ status: 'success', timezone, response: legacy(mapping, found) }));
      }),
      { numRuns: 150 },
    );
  });

  it('client: the record a lookup finds', async () => {
    const mapping = method('client', 'lookup');
    const found = { id: 3, email: 'a"b@example.com', username: 'x\u2028', hide_costs: true, address2: null };
    const text = await textOf(compileMapping(mapping), { segments: [], query: [['id', '3']] }, deps(() => found));
    expect(text).toBe(JSON.stringify({ status: 'success', response: legacy(mapping, found) }));
  });

  it('testimonials: every record of the operator file', async () => {
    const mapping = method('testimonials', 'static');
    const records = [{ id: 1, testimonial: '<b>"Great"</b>\n' }, { id: 2 }];
    const text = await textOf(compileMapping(mapping), { segments: [], query: [] }, deps(() => undefined, { staticRecords: () => records }));
    expect(text).toBe(JSON.stringify({ status: 'success', response: records.map((r) => legacy(mapping, r)) }));
  });
});

/** v1's pages of a listing, `pageSize` at a time. */
const pagesOf = (all: readonly V1Record[]) => (call: V1Call) => {
  const [offset, limit] = [Number(call.query.offset), Number(call.query.limit)];
  return { object: 'list', total: all.length, has_more: offset + limit < all.length, data: all.slice(offset, offset + limit) };
};

/** A roster store holding at most one roster, counting the reads it let run. */
function oneRosterStore(): RosterStore & { kept: SortedRoster | undefined; reads: number } {
  const store = {
    kept: undefined as SortedRoster | undefined,
    reads: 0,
    async roster(read: () => Promise<SortedRoster>) {
      if (store.kept) return store.kept;
      store.reads++;
      store.kept = await read();
      return store.kept;
    },
  };
  return store;
}

describe('team listings (sorted lists)', () => {
  const teamRoster = (mapping: Mapping) =>
    fc.array(
      fc.record({ priority: fc.oneof(fc.integer({ min: 0, max: 5 }), fc.constantFrom(null, '', '3', 'x')), first_name: fc.oneof(fc.constantFrom('Élodie', 'elena', 'Zoë', 'zoe', "O'Brien", null, ''), anyText), rest: recordsFor(mapping, 1) }),
      { maxLength: 60 },
    ).map((rows) => rows.map(({ rest, ...keys }, i) => ({ ...(rest[0] ?? {}), ...keys, id: i + 1 })));

  it.each(['meetourteam', 'meetourstaff'])('%s: every cut is the plain engine text, read from pages of any size', async (name) => {
    const shippedMapping = method(name, 'sorted-list');
    await fc.assert(
      fc.asyncProperty(teamRoster(shippedMapping), fc.integer({ min: 1, max: 25 }), fc.nat(70), fc.integer({ min: 1, max: 100 }), async (all, pageSize, offset, limit) => {
        const mapping: SortedListMapping = { ...shippedMapping, source: { ...shippedMapping.source, pageSize } };
        const text = await textOf(compileMapping(mapping), { segments: [String(offset), String(limit)], query: [] }, deps(pagesOf(all)));
        const sorted = referenceSortRecords(all, mapping.sort);
        const response = sorted.slice(offset, offset + Math.min(limit, mapping.paging.max)).map((r) => legacy(mapping, r));
        expect(text).toBe(JSON.stringify({ status: 'success', total: String(all.length), response }));
      }),
      { numRuns: 200 },
    );
  });

  it('keeps the roster it reads, and cuts other pages from a kept roster without asking v1', async () => {
    const mapping = method('meetourteam', 'sorted-list');
    const compiled = compileMapping(mapping);
    const all = Array.from({ length: 45 }, (_, i) => ({ id: i + 1, first_name: ['Zoë', 'élodie', 'Al', "O'Neil"][i % 4], priority: i % 3 }));
    const store = oneRosterStore();
    const first = deps(pagesOf(all), { rosters: store });
    const fresh = await textOf(compiled, { segments: ['0', '10'], query: [] }, first);
    expect([first.calls.length, store.reads]).toEqual([1, 1]);
    for (const cut of [['10', '10'], ['40', '10'], ['45'], ['0', '100']]) {
      const again = deps(pagesOf(all), { rosters: store });
      const kept = await textOf(compiled, { segments: cut, query: [] }, again);
      const read = await textOf(compiled, { segments: cut, query: [] }, deps(pagesOf(all)));
      expect(kept).toBe(read);
      expect([again.calls.length, store.reads]).toEqual([0, 1]);
    }
    expect(fresh).toBe(await textOf(compiled, { segments: ['0', '10'], query: [] }, deps(pagesOf(all))));
  });

  it('hands the store a failing read as it fails: nothing to keep', async () => {
    const mapping: SortedListMapping = { ...method('meetourteam', 'sorted-list'), source: { resource: 'practitioners', pageSize: 2, maxPages: 3 } };
    const store = oneRosterStore();
    const endless = deps(() => ({ total: 9, has_more: true, data: [{ id: 1 }] }), { rosters: store });
    await expect(textOf(compileMapping(mapping), { segments: [], query: [] }, endless)).rejects.toMatchObject({ code: 'LGW_UPSTREAM_BAD_REPLY' });
    expect([store.reads, store.kept]).toEqual([1, undefined]);
  });
});
