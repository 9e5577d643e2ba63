// The v1 client against a real HTTP peer: a reply it parsed carries the length of the text v1 sent, which
// the response cache sizes its entry by.
import { afterEach, describe, expect, it } from 'vitest';
import { V1Client } from '../../../../src/gateway/upstream/v1-client.js';
import { startRecordingUpstream, type RecordingUpstream } from '../../../helpers/recording-upstream.js';

let upstream: RecordingUpstream | undefined;
let client: V1Client | undefined;

afterEach(async () => {
  await client?.close();
  await upstream?.close();
});

describe('V1Client.getJson', () => {
  it('gives the parsed body and the length of the JSON text it was parsed from', async () => {
    // Spaces and a multi-byte character: the text's length, not the re-serialised body's, nor its bytes.
    const text = '{ "object": "list", "data": [ { "id": 1, "name": "Zoë" } ] }';
    upstream = await startRecordingUpstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    });
    client = new V1Client({ upstreamUrl: upstream.url, timeoutMs: 5000 });
    const reply = await client.getJson({ path: '/clients', query: {}, apiKey: 'k' });
    expect(reply).toEqual({ status: 200, body: { object: 'list', data: [{ id: 1, name: 'Zoë' }] }, textLength: text.length });
    expect(upstream.received.map((r) => r.url)).toEqual(['/api/v1/clients']);
  });
});
