// What a recorded call reads and writes, from the shipped mappings (no table of methods in the code), and
// what becomes of a read after a replayed write of it: its data differences marked, its shape ones not.
import { beforeAll, describe, expect, it } from 'vitest';
import { SHIPPED_MAPPINGS_DIR } from '../../src/gateway/config.js';
import { loadMappingDirectory } from '../../src/gateway/loaders/mapping-files.js';
import type { ReplayDifference } from '../../src/replay/report/replay-difference.js';
import type { RecordedExchange } from '../../src/replay/recordings/recording.js';
import { markCausedByReplay, ReplayedWrites, resourcesRead, resourcesWritten, type MappedResources } from '../../src/replay/run/write-effects.js';

let mappings: MappedResources;
beforeAll(async () => {
  mappings = await loadMappingDirectory(SHIPPED_MAPPINGS_DIR);
});

const exchange = (method: string, url: string, body?: RecordedExchange['request']['body']): RecordedExchange => ({
  index: 0,
  location: 'line 1',
  request: { method, url, headers: [], body },
  response: { status: 200, headers: [], body: { kind: 'text', text: '{}' } },
});

describe('resources read and written', () => {
  it('a legacy read reads its mapping\'s v1 source; a passthrough v1 call its first path segment', () => {
    expect(resourcesRead(exchange('GET', '/api/clients/0/50'), mappings)).toEqual(['clients']);
    expect(resourcesRead(exchange('GET', 'https://old.example.com/api/client?email=a@b.c'), mappings)).toEqual(['clients']);
    expect(resourcesRead(exchange('GET', '/api/meetourteam/0/5'), mappings)).toEqual(['practitioners']);
    expect(resourcesRead(exchange('GET', '/api/v1/clients?limit=1'), mappings)).toEqual(['clients']);
    // An operator's file, a method no mapping knows, a write: nothing.
    expect(resourcesRead(exchange('GET', '/api/testimonials'), mappings)).toEqual([]);
    expect(resourcesRead(exchange('GET', '/api/unknown/1'), mappings)).toEqual([]);
    expect(resourcesRead(exchange('POST', '/api/clients/0/50'), mappings)).toEqual([]);
  });

  it('the payment writes payments, and clients when it names no client_id (it creates one)', () => {
    const newClient = exchange('POST', '/api/payment', { kind: 'form', fields: [['first_name', 'Ann'], ['revenue_amount', '5']] });
    expect(resourcesWritten(newClient, mappings)).toEqual(['clients', 'payments']);
    const existing = exchange('POST', '/api/payment', { kind: 'text', text: 'client_id=4&revenue_amount=5' });
    expect(resourcesWritten(existing, mappings)).toEqual(['payments']);
    expect(resourcesWritten(exchange('POST', '/api/payment', { kind: 'text', text: 'client_id=&revenue_amount=5' }), mappings)).toEqual(['clients', 'payments']);
    expect(resourcesWritten(newClient, { ...mappings, payment: undefined })).toEqual([]);
  });

  it('a v1 passthrough write writes its resource; another write is not followed; a read writes nothing', () => {
    expect(resourcesWritten(exchange('DELETE', '/api/v1/clients/4'), mappings)).toEqual(['clients']);
    expect(resourcesWritten(exchange('POST', '/api/other'), mappings)).toEqual([]);
    expect(resourcesWritten(exchange('GET', '/api/v1/clients'), mappings)).toEqual([]);
  });
});

describe('reads after replayed writes', () => {
  it('marks what data changes (value, missing, extra, order) as caused by the replay, not the shape', () => {
    const diffs: ReplayDifference[] = [
      { path: '$.total', kind: 'value', expected: '50', actual: '51' },
      { path: '$.response[50]', kind: 'extra', actual: {} },
      { path: '$.response[1]', kind: 'missing', expected: {} },
      { path: '$.response', kind: 'order', expected: [], actual: [] },
      { path: '$.response[0].id', kind: 'type', expected: '1', actual: 1 },
      { path: '$.response[0].cost', kind: 'format', expected: '5', actual: '5.00' },
      { path: '$.response[0]', kind: 'key-order', expected: [], actual: [] },
      { path: 'HTTP status', kind: 'status', expected: 200, actual: 500 },
    ];
    expect(markCausedByReplay(diffs).map((d) => `${d.kind}:${d.cause ?? 'gateway'}`)).toEqual([
      'value:replay', 'extra:replay', 'missing:replay', 'order:replay', 'type:gateway', 'format:gateway', 'key-order:gateway', 'status:gateway',
    ]);
  });

  it('follows the file in order: only reads after a write of what they read, and says so in one warning', () => {
    const writes = new ReplayedWrites(mappings);
    expect(writes.readsWritten(exchange('GET', '/api/clients/0/50'))).toBe(false);
    writes.add(exchange('POST', '/api/payment', { kind: 'text', text: 'first_name=A&revenue_amount=5' }));
    expect(writes.readsWritten(exchange('GET', '/api/staffs/0/5'))).toBe(false);
    expect(writes.readsWritten(exchange('GET', '/api/clients/0/50'))).toBe(true);
    expect(writes.readsWritten(exchange('GET', '/api/client?id=9'))).toBe(true);
    expect(writes.warning()).toBe(
      'warning: 2 replayed reads (client, clients) read what an earlier replayed write changed (v1 clients; 1 write in all): ' +
        'writes are sent in recorded order, one at a time; the value, missing, extra and order differences of those reads are marked ' +
        '"cause": "replay" and not counted as gateway differences',
    );
    expect(new ReplayedWrites(mappings).warning()).toBeUndefined();
    // Without the mappings nothing is followed.
    const blind = new ReplayedWrites(undefined);
    blind.add(exchange('POST', '/api/payment'));
    expect(blind.readsWritten(exchange('GET', '/api/clients/0/50'))).toBe(false);
  });
});
