// The v1 client against a real HTTP peer: a reply it parsed carries the length of the text v1 sent, which
// the response cache sizes its entry by, and a large one the text itself, which the cache keeps; a reply
// read as bytes is v1's bytes as they came, neither decoded nor parsed; UPSTREAM_TIMEOUT_MS bounds the whole
// call, the body included; a body its caller has taken is held by nothing the call made.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { PageTranslation } from '../../../../src/mapping/v1-reply.js';
import { GatewayError } from '../../../../src/shared/errors.js';
import { withUpstreamMetrics } from '../../../../src/gateway/upstream/metered.js';
import { withRetry } from '../../../../src/gateway/upstream/retry.js';
import { withSingleFlight } from '../../../../src/gateway/upstream/single-flight.js';
import { KEEPS_TEXT_FROM, V1Client, type V1Json } from '../../../../src/gateway/upstream/v1-client.js';
import { isCollected } from '../../../helpers/collect-garbage.js';
import { startRecordingUpstream, type RecordingUpstream } from '../../../helpers/recording-upstream.js';
import { plain } from './fake-transport.js';

let upstream: RecordingUpstream | undefined;
let client: V1Client | undefined;

afterEach(async () => {
  await client?.close();
  await upstream?.close();
  client = undefined;
  upstream = undefined;
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
    expect(plain(reply)).toEqual({ status: 200, body: { value: { object: 'list', data: [{ id: 1, name: 'Zoë' }] } }, textLength: text.length });
    expect(upstream.received.map((r) => r.url)).toEqual(['/api/v1/clients']);
  });

  it('gives the text itself too when it is KEEPS_TEXT_FROM characters or more, and only then', async () => {
    const textOf = (chars: number) => {
      const head = '{"data":"';
      return `${head}${'x'.repeat(chars - head.length - 2)}"}`;
    };
    const texts = [textOf(KEEPS_TEXT_FROM - 1), textOf(KEEPS_TEXT_FROM)];
    upstream = await startRecordingUpstream((req, res) => {
      const text = texts[Number(new URL(req.url ?? '', 'http://x').searchParams.get('n'))]!;
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    });
    client = new V1Client({ upstreamUrl: upstream.url, timeoutMs: 5000 });
    const read = (n: string) => client!.getJson({ path: '/clients', query: { n }, apiKey: 'k' });
    const [shorter, long] = [await read('0'), await read('1')];
    expect(plain(shorter)).toEqual({ status: 200, body: { value: { data: 'x'.repeat(KEEPS_TEXT_FROM - 12) } }, textLength: KEEPS_TEXT_FROM - 1 });
    expect(plain(long)).toEqual({ status: 200, body: { value: { data: 'x'.repeat(KEEPS_TEXT_FROM - 11) }, text: texts[1] }, textLength: KEEPS_TEXT_FROM });
    // The body is read once.
    expect(() => long.body.take()).toThrow('a handed-off value was taken twice');
  });

  it('answers a 2xx body that is not JSON as a bad reply', async () => {
    upstream = await startRecordingUpstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"data": [1, 2');
    });
    client = new V1Client({ upstreamUrl: upstream.url, timeoutMs: 5000 });
    await expect(client.getJson({ path: '/clients', query: {}, apiKey: 'k' })).rejects.toMatchObject({
      code: 'LGW_UPSTREAM_BAD_REPLY',
      message: 'the upstream sent a reply that is not valid JSON',
    });
  });
});

/** An upstream answering `/clients?n=i` with the ith of `bodies`, status 200. */
async function bodiesUpstream(bodies: readonly Buffer[]): Promise<RecordingUpstream> {
  return startRecordingUpstream((req, res) => {
    const body = bodies[Number(new URL(req.url ?? '', 'http://x').searchParams.get('n'))]!;
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
    res.end(body);
  });
}

describe("V1Client.getJson, form 'bytes'", () => {
  it("gives v1's bytes as they came, neither decoded nor parsed, whatever their length, with their length in bytes", async () => {
    const bodies = [
      // Not JSON: no error in this form.
      Buffer.from('{"data": [1, 2'),
      Buffer.from(`{ "data": "${'x'.repeat(KEEPS_TEXT_FROM)}" }`),
      // Characters of two and three bytes: the length is the bytes', not the characters'.
      Buffer.from('{"name":"Zoë","city":"Köln","sign":"€"}'),
      // Bytes that are not UTF-8 (a lone continuation byte, a truncated sequence, 0xff): a decode would
      // replace each of them.
      Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0x80, 0xe2, 0x82, 0xff]), Buffer.from('"}')]),
      Buffer.alloc(0),
    ];
    upstream = await bodiesUpstream(bodies);
    client = new V1Client({ upstreamUrl: upstream.url, timeoutMs: 5000 });
    for (const [n, bytes] of bodies.entries()) {
      const reply = plain(await client.getJson({ path: '/clients', query: { n: String(n) }, apiKey: 'k', form: 'bytes' }));
      expect(reply).toEqual({ status: 200, body: { bytes }, textLength: bytes.length });
    }
    expect(bodies[2]!.length).not.toBe(bodies[2]!.toString('utf8').length);
  });

  it('skips a UTF-8 byte order mark at the start, in either form', async () => {
    const bodies = [Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"name":"Zoë"}')])];
    upstream = await bodiesUpstream(bodies);
    client = new V1Client({ upstreamUrl: upstream.url, timeoutMs: 5000 });
    const asBytes = plain(await client.getJson({ path: '/clients', query: { n: '0' }, apiKey: 'k', form: 'bytes' }));
    expect(asBytes).toEqual({ status: 200, body: { bytes: Buffer.from('{"name":"Zoë"}') }, textLength: Buffer.byteLength('{"name":"Zoë"}') });
    const asJson = plain(await client.getJson({ path: '/clients', query: { n: '0' }, apiKey: 'k' }));
    expect(asJson).toEqual({ status: 200, body: { value: { name: 'Zoë' } }, textLength: '{"name":"Zoë"}'.length });
  });

  it("still reads a 4xx or 5xx for v1's error message", async () => {
    upstream = await startRecordingUpstream((req, res) => {
      const status = req.url.includes('/7') ? 404 : 503;
      res.writeHead(status, { 'content-type': 'application/json', 'retry-after': '9' });
      res.end(Buffer.from(`{"error":{"code":"${status === 404 ? 'not_found' : 'down'}","message":"No client 7 (Zoë)"}}`));
    });
    client = new V1Client({ upstreamUrl: upstream.url, timeoutMs: 5000 });
    const notFound = await client.getJson({ path: '/clients/7', query: {}, apiKey: 'k', form: 'bytes' }).catch((e: unknown) => e);
    expect(notFound).toBeInstanceOf(GatewayError);
    expect(notFound).toMatchObject({ code: 'LGW_UPSTREAM_ERROR', status: 404, message: 'No client 7 (Zoë)', upstreamCode: 'not_found' });
    const down = await client.getJson({ path: '/clients/8', query: {}, apiKey: 'k', form: 'bytes' }).catch((e: unknown) => e);
    expect(down).toBeInstanceOf(GatewayError);
    expect(down).toMatchObject({ code: 'LGW_UPSTREAM_ERROR', status: 503, message: 'No client 7 (Zoë)', upstreamCode: 'down', headers: { 'retry-after': '9' } });
  });
});

/** A translation that notes the pieces it is given and "translates" a page to its length, or declines it. */
function notingTranslation(declines: boolean): PageTranslation & { pieces: string[]; opened: number } {
  const noted = {
    id: 'noting',
    pieces: [] as string[],
    opened: 0,
    open: () => {
      noted.opened++;
      let length = 0;
      return {
        write: (piece: Buffer) => {
          noted.pieces.push(piece.toString());
          length += piece.length;
        },
        end: () => (declines ? undefined : { total: length, bytes: Buffer.from(`translated ${length}`) }),
      };
    },
  };
  return noted;
}

describe("V1Client.getJson, form 'bytes' with a translation", () => {
  it('gives the translation made of the pieces as they came, not the bytes', async () => {
    let finish!: () => void;
    const secondHalf = new Promise<void>((resolve) => (finish = resolve));
    upstream = await startRecordingUpstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      // The first half is read before the second is written.
      res.write('{"total":0,', () => void secondHalf.then(() => res.end('"data":[]}')));
    });
    client = new V1Client({ upstreamUrl: upstream.url, timeoutMs: 5000 });
    const translation = notingTranslation(false);
    const call = client.getJson({ path: '/clients', query: {}, apiKey: 'k', form: 'bytes', translation });
    await vi.waitFor(() => expect(translation.pieces).toEqual(['{"total":0,']));
    finish();
    expect(plain(await call)).toEqual({ status: 200, body: { translated: { total: 21, bytes: Buffer.from('translated 21') } } });
    expect(translation.pieces.join('')).toBe('{"total":0,"data":[]}');
  });

  it("gives the page's bytes (a mark skipped) when the translation declines it, and never translates a 4xx or 5xx", async () => {
    const page = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"name":"Zoë"}')]);
    upstream = await startRecordingUpstream((req, res) => {
      const status = req.url.includes('/7') ? 404 : 200;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(status === 200 ? page : '{"error":{"code":"not_found","message":"No client 7"}}');
    });
    client = new V1Client({ upstreamUrl: upstream.url, timeoutMs: 5000 });
    const translation = notingTranslation(true);
    const reply = plain(await client.getJson({ path: '/clients', query: {}, apiKey: 'k', form: 'bytes', translation }));
    expect(reply).toEqual({ status: 200, body: { bytes: page.subarray(3) }, textLength: page.length - 3 });
    expect(translation.pieces.join('')).toBe(page.toString());
    const notFound = client.getJson({ path: '/clients/7', query: {}, apiKey: 'k', form: 'bytes', translation });
    await expect(notFound).rejects.toMatchObject({ code: 'LGW_UPSTREAM_ERROR', status: 404, message: 'No client 7' });
    expect(translation.opened).toBe(1);
  });
});

/** Takes the reply's body as its caller does, and watches it: no local of the test keeps it. */
function takenAndWatched(reply: V1Json): WeakRef<object> {
  const body = reply.body.take().value as { data: unknown[] };
  expect(body.data).toHaveLength(50);
  return new WeakRef(body);
}

describe('a reply through the upstream layers', () => {
  it('once its caller takes the body, the call it came from, still held, keeps nothing of it', async () => {
    const text = JSON.stringify({ object: 'list', data: Array.from({ length: 50 }, (_, id) => ({ id, name: `n${id}` })) });
    upstream = await startRecordingUpstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    });
    client = new V1Client({ upstreamUrl: upstream.url, timeoutMs: 5000 });
    // The layers the gateway puts around its client when the cache is off (hardened-transport.ts).
    const transport = withSingleFlight(withRetry(withUpstreamMetrics(client, () => {})));
    const call = transport.getJson({ path: '/clients', query: {}, apiKey: 'k' });
    const reply = await call;
    const ref = takenAndWatched(reply);
    expect(await isCollected(ref)).toBe(true);
    expect(await call).toBe(reply);
  });
});

describe('V1Client deadline', () => {
  it('ends a call whose body still trickles at the deadline with a timeout, and stops reading it', async () => {
    // Each chunk comes well within undici's idle-body timeout: only a deadline on the whole call ends it.
    let written = 0;
    let givenUp!: (chunks: number) => void;
    const closed = new Promise<number>((resolve) => (givenUp = resolve));
    upstream = await startRecordingUpstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"object":"list","data":[');
      const more = setInterval(() => res.write(`{"id":${++written}},`), 40);
      res.once('close', () => {
        clearInterval(more);
        givenUp(written);
      });
    });
    client = new V1Client({ upstreamUrl: upstream.url, timeoutMs: 150 });
    await expect(client.getJson({ path: '/clients', query: {}, apiKey: 'k' })).rejects.toMatchObject({ code: 'LGW_UPSTREAM_TIMEOUT' });
    // The upstream saw the call given up while it was still writing (it would write forever otherwise).
    expect(await closed).toBeGreaterThan(0);
  });
});
