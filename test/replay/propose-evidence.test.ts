// What the mapping proposal reads from a differing entry (src/replay/propose/entry-evidence.ts), and how it
// finds the v1 records behind a call through the call's own mapping and pairs them (call-records.ts).
import { describe, expect, it } from 'vitest';
import { SHIPPED_MAPPINGS_DIR } from '../../src/gateway/config.js';
import { loadMappingFiles } from '../../src/gateway/loaders/mapping-files.js';
import { compileMapping } from '../../src/mapping/run.js';
import type { V1Call } from '../../src/mapping/v1-reply.js';
import { pairRecords, v1RecordsBehind } from '../../src/replay/propose/call-records.js';
import { entryEvidence, legacyCallOf, recordFieldOf } from '../../src/replay/propose/entry-evidence.js';
import type { ReportEntry } from '../../src/replay/report/entry.js';
import { GatewayError } from '../../src/shared/errors.js';
import { handOff } from '../../src/shared/hand-off.js';
import { NumberLiteral, type JsonValue } from '../../src/shared/json-exact.js';

const mappings = await loadMappingFiles(SHIPPED_MAPPINGS_DIR);

function entry(url: string, diffs: ReportEntry['diffs'], o: Partial<ReportEntry> = {}): ReportEntry {
  // One entry of either shape (a not-comparable one needs its reason): the caller picks.
  return { index: 5, method: 'GET', url, legacyMethod: 'x', outcome: 'different', diffs, status: { expected: 200, actual: 200 }, ...o } as ReportEntry;
}

describe('entry evidence', () => {
  it('reads the record and field of a difference path', () => {
    expect(recordFieldOf('$.response[3].first_name')).toEqual({ position: 3, field: 'first_name' });
    expect(recordFieldOf('$.response["hide costs"]')).toEqual({ position: 0, field: 'hide costs' });
    expect(recordFieldOf('$.response[2]')).toBeUndefined();
    expect(recordFieldOf('$.timezone')).toBeUndefined();
    expect(recordFieldOf('HTTP status')).toBeUndefined();
  });

  it('reads the legacy call as the gateway does, without the key', () => {
    expect(legacyCallOf('https://old.example.com/api/client?email=a%40b.c&api_key=[REDACTED]&x=1')).toEqual({
      method: 'client',
      call: { segments: [], query: [['email', 'a@b.c'], ['x', '1']] },
    });
    expect(legacyCallOf('/api/practitioners/0/5/')).toEqual({ method: 'practitioners', call: { segments: ['0', '5'], query: [] } });
    expect(legacyCallOf('/assets/app.js')).toBeUndefined();
  });

  it('keeps, for every record of the reply, its id and its recorded values of the fields that differ', () => {
    const recorded: JsonValue = {
      status: 'success',
      response: [
        { admin_id: null, pract_id: '2', first_name: 'Grace', priority: '1' },
        { admin_id: null, pract_id: new NumberLiteral('1.0'), first_name: 'Ada', priority: '1' },
      ],
    };
    const found = entryEvidence(
      entry('/api/meetourteam/0/2', [
        { path: '$.response[0].first_name', kind: 'type', expected: 'Grace', actual: null },
        { path: '$.response[1].legacy_flag', kind: 'missing', expected: '1' },
        { path: '$.response[1]', kind: 'extra', actual: {} },
        { path: '$.status', kind: 'value', expected: 'success', actual: 'failure' },
      ]),
      recorded,
      mappings,
    );
    expect(found).toEqual({
      index: 5,
      method: 'meetourteam',
      call: { segments: ['0', '2'], query: [] },
      records: [
        { id: '2', values: new Map([['first_name', 'Grace']]) },
        { id: '1.0', values: new Map([['first_name', 'Ada']]) },
      ],
      fields: ['first_name'],
      outsideView: ['legacy_flag'],
      seen: [
        { field: 'first_name', position: 0, entry: 5, recorded: 'Grace', gateway: null },
        { field: 'legacy_flag', position: 1, entry: 5, recorded: '1' },
      ],
    });
  });

  it('says nothing about entries that are not mapped v1 reads of the same status', () => {
    const diffs: ReportEntry['diffs'] = [{ path: '$.response.first_name', kind: 'value', expected: 'a', actual: 'b' }];
    const reply = { status: 'success', response: { id: '1', first_name: 'a' } };
    expect(entryEvidence(entry('/api/staff/1', diffs), reply, mappings)).toBeDefined();
    expect(entryEvidence(entry('/api/staff/1', diffs, { status: { expected: 200, actual: 404 } }), reply, mappings)).toBeUndefined();
    expect(entryEvidence(entry('/api/staff/1', diffs, { method: 'POST' }), reply, mappings)).toBeUndefined();
    expect(entryEvidence(entry('/api/testimonials', diffs), { status: 'success', response: [{ id: '1' }] }, mappings)).toBeUndefined();
    expect(entryEvidence(entry('/api/v1/staff', diffs), reply, mappings)).toBeUndefined();
    expect(entryEvidence(entry('/api/staff/1', [{ path: '$.response.id', kind: 'extra', actual: '1' }]), reply, mappings)).toBeUndefined();
  });
});

describe('v1 records behind a call', () => {
  it('asks v1 as the mapping does (a lookup reads the filtered list) and keeps every record sent', async () => {
    const asked: V1Call[] = [];
    const compiled = compileMapping(mappings.get('client')!);
    const read = await v1RecordsBehind(compiled, { segments: [], query: [['email', 'g@x.org']] }, async (call) => {
      asked.push(call);
      return handOff({ object: 'list', total: 2, has_more: false, data: [{ id: 7, email: 'a@x.org' }, { id: 8, email: 'g@x.org' }] });
    });
    expect(asked).toEqual([{ path: '/clients', query: { email: 'g@x.org', offset: '0', limit: '1000' } }]);
    expect(read).toEqual({ records: [{ id: 7, email: 'a@x.org' }, { id: 8, email: 'g@x.org' }] });
  });

  it('keeps the first failure, and the records read before it', async () => {
    const compiled = compileMapping(mappings.get('practitioner')!);
    const read = await v1RecordsBehind(compiled, { segments: ['9'], query: [] }, async () => {
      throw new GatewayError('LGW_UPSTREAM_ERROR', 'no such record', { status: 404 });
    });
    expect(read).toEqual({ records: [], error: 'no such record' });
  });

  it('pairs recorded records with v1 records by id, as whole numbers; a detail read without an id by its one record', () => {
    const list = compileMapping(mappings.get('practitioners')!);
    const v1 = [{ id: 42, n: 'a' }, { id: '7', n: 'b' }];
    const recorded = [{ id: '042', values: new Map() }, { id: '7', values: new Map() }, { id: '9', values: new Map() }];
    expect(pairRecords(list, recorded, v1)).toEqual([v1[0], v1[1], undefined]);
    const detail = compileMapping({ ...mappings.get('practitioner')!, record: { ...mappings.get('practitioner')!.record, fields: [{ name: 'first_name' }] } });
    expect(pairRecords(detail, [{ id: undefined, values: new Map() }], [v1[0]!])).toEqual([v1[0]]);
    expect(pairRecords(detail, [{ id: undefined, values: new Map() }], v1)).toEqual([undefined]);
  });
});
