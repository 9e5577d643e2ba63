// A list page read with the cache off is translated as v1's bytes come: a page sent in pieces (cut inside a
// record, a number and a character) answers exactly the reply of the same page read whole, with its length;
// a page that turns out malformed half-way, after records were translated, is still the legacy 502 and
// nothing of the translated records is sent; a connection cut half-way is retried and the retry's page is
// translated afresh. Gateway + recording fake upstream on loopback; the exact bytes, and what reached v1.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadMappingDirectorySync } from '../../src/gateway/loaders/mapping-files.js';
import { compileMapping, runMappingText } from '../../src/mapping/run.js';
import { handOff } from '../../src/shared/hand-off.js';
import { get, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { startRecordingUpstream, type RecordingUpstream } from '../helpers/recording-upstream.js';

const MAPPINGS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'mappings');
const clients = compileMapping(loadMappingDirectorySync(MAPPINGS).reads.get('clients')!);

let upstream: RecordingUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startRecordingUpstream();
  gateway = await startTestGateway({ UPSTREAM_URL: upstream.url, UPSTREAM_API_KEY: 'k', CACHE_TTL_MS: '0' });
});
afterAll(async () => {
  await gateway.close();
  await upstream.close();
});
beforeEach(() => {
  upstream.received.length = 0;
});

const record = (id: number) => ({ object: 'client', id, first_name: `Zoë ${id}`, last_name: 'Ng', city: null, email: `c${id}@example.com`, timezone: 'Europe/Paris' });
const page = Buffer.from(JSON.stringify({ object: 'list', total: 1234, limit: 3, offset: 0, has_more: true, data: [record(1), record(22), record(333)] }));

/** The reply the engine writes for `page` read whole and parsed. */
async function wholeReply(): Promise<string> {
  const reply = await runMappingText(clients, { segments: ['0', '3'], query: [] }, { v1Get: async () => handOff(JSON.parse(page.toString())), accountTimezone: undefined, staticRecords: () => undefined });
  return reply.take().toString();
}

/** Writes `pieces` one after the other, each once the one before it has gone out, then ends (or cuts) the reply. */
function writeInPieces(res: ServerResponse, pieces: readonly Buffer[], then: 'end' | 'cut'): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  const next = (i: number): void => {
    if (i === pieces.length) {
      if (then === 'end') res.end();
      else res.socket?.destroy();
      return;
    }
    res.write(pieces[i]!, () => setImmediate(() => next(i + 1)));
  };
  next(0);
}

/** `bytes` cut at `at`. */
const cut = (bytes: Buffer, ...at: number[]): Buffer[] => [0, ...at].map((from, i) => bytes.subarray(from, at[i] ?? bytes.length));

describe('a list page translated as it comes', () => {
  it('answers the bytes of the page read whole, cut inside a record, a number and a character', async () => {
    const inCharacter = page.indexOf('ë') + 1;
    const inNumber = page.indexOf('333') + 2;
    upstream.handle((_req, res) => writeInPieces(res, cut(page, 40, inCharacter, 200, inNumber), 'end'));
    const reply = await get(gateway.url, '/api/clients/0/3');
    const expected = await wholeReply();
    expect(reply.status).toBe(200);
    expect(reply.text).toBe(expected);
    expect(reply.headers.get('content-length')).toBe(String(Buffer.byteLength(expected)));
    expect(expected.startsWith('{"status":"success","total":"1234","response":[{"id":"1",')).toBe(true);
    expect(upstream.received.map((r) => r.url)).toEqual(['/api/v1/clients?offset=0&limit=3']);
  });

  it('answers the legacy 502 for a page that turns out malformed after records were translated', async () => {
    const broken = Buffer.concat([page.subarray(0, page.indexOf('{"object":"client","id":333')), Buffer.from('{"id":3,}]}')]);
    upstream.handle((_req, res) => writeInPieces(res, cut(broken, 100, 250), 'end'));
    const reply = await get(gateway.url, '/api/clients/0/3');
    expect(reply.status).toBe(502);
    expect(reply.text).toBe(JSON.stringify({ status: 'failure', response: 'the upstream sent a reply that is not valid JSON' }));
    // Not retried: a malformed 200 is not a transient fault.
    expect(upstream.received).toHaveLength(1);
  });

  it('retries a page whose connection is cut half-way, and translates the retry afresh', async () => {
    let calls = 0;
    upstream.handle((_req, res) => {
      if (++calls === 1) writeInPieces(res, cut(page, 150), 'cut');
      else writeInPieces(res, cut(page, 60, 300), 'end');
    });
    const reply = await get(gateway.url, '/api/clients/0/3');
    expect(reply.status).toBe(200);
    expect(reply.text).toBe(await wholeReply());
    expect(upstream.received.map((r) => r.url)).toEqual(['/api/v1/clients?offset=0&limit=3', '/api/v1/clients?offset=0&limit=3']);
  });
});
