// One exchange with a real HTTP peer on undici's dispatcher: the body's chunks joined, its bytes as they
// came and never decoded (a byte order mark skipped at the start only), Retry-After read from a 429 or 503,
// a reply cut short refused, the deadline ending a call that trickles or that waits for a connection, and
// once the body is taken, the promise that gave it holds nothing of it.
import { Pool } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { exchange, V1DeadlineError, type V1ExchangeReply } from '../../../../src/gateway/upstream/v1-exchange.js';
import { isCollected } from '../../../helpers/collect-garbage.js';
import { startRecordingUpstream, type RecordingUpstream, type UpstreamHandler } from '../../../helpers/recording-upstream.js';

let upstream: RecordingUpstream | undefined;
let pool: Pool | undefined;

afterEach(async () => {
  await pool?.destroy();
  await upstream?.close();
  pool = undefined;
  upstream = undefined;
});

async function poolFor(handler: UpstreamHandler, connections = 4): Promise<Pool> {
  upstream = await startRecordingUpstream(handler);
  pool = new Pool(upstream.url, { connections });
  return pool;
}

const get = (path = '/api/v1/clients') => ({ method: 'GET' as const, path, headers: { accept: 'application/json' }, body: undefined });

describe('exchange', () => {
  it('joins the chunks, a character cut between two of them included, and sends the request as given', async () => {
    const bytes = Buffer.from('{"name":"Zoë","city":"Köln"}');
    const cut = bytes.indexOf(0xc3) + 1;
    const p = await poolFor((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(bytes.subarray(0, cut));
      setTimeout(() => res.end(bytes.subarray(cut)), 10);
    });
    const reply = await exchange(p, { method: 'POST', path: '/api/v1/payments', headers: { 'x-api-key': 'k' }, body: '{"a":1}' }, 5000);
    expect([reply.status, reply.retryAfter, reply.body.take()]).toEqual([200, undefined, Buffer.from('{"name":"Zoë","city":"Köln"}')]);
    expect(upstream!.received.map((r) => [r.method, r.url, r.headers['x-api-key'], r.body.toString()])).toEqual([['POST', '/api/v1/payments', 'k', '{"a":1}']]);
  });

  it('gives the bytes as they came, never decoded: bytes that are not UTF-8 pass through unchanged', async () => {
    // A lone continuation byte, a truncated sequence and an overlong one: a decode would replace each.
    const bytes = Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0x80, 0xe2, 0x82, 0xc0, 0xaf, 0xff]), Buffer.from('é"}')]);
    const p = await poolFor((_req, res) => {
      res.writeHead(200);
      res.write(bytes.subarray(0, 7));
      setTimeout(() => res.end(bytes.subarray(7)), 10);
    });
    const body = (await exchange(p, get(), 5000)).body.take();
    expect(body.equals(bytes)).toBe(true);
  });

  it('skips a UTF-8 byte order mark at the start, and only there; an empty body is no bytes', async () => {
    const p = await poolFor((req, res) => {
      res.writeHead(200);
      if (req.url.endsWith('empty')) res.end('');
      else if (req.url.endsWith('twice')) res.end(Buffer.from([0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf, 0x31]));
      else if (req.url.endsWith('short')) res.end(Buffer.from([0xef, 0xbb]));
      else res.end(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":"\ufeff"}')]));
    });
    expect((await exchange(p, get(), 5000)).body.take()).toEqual(Buffer.from('{"a":"\ufeff"}'));
    expect((await exchange(p, get('/api/v1/twice'), 5000)).body.take()).toEqual(Buffer.from([0xef, 0xbb, 0xbf, 0x31]));
    expect((await exchange(p, get('/api/v1/short'), 5000)).body.take()).toEqual(Buffer.from([0xef, 0xbb]));
    expect((await exchange(p, get('/api/v1/empty'), 5000)).body.take()).toEqual(Buffer.alloc(0));
  });

  it('reads Retry-After (any case) from a 429 or a 503, and from no other status', async () => {
    const p = await poolFor((req, res) => {
      res.writeHead(Number(req.url.slice(1)), { 'RETRY-after': '7' });
      res.end('{}');
    });
    const replies = await Promise.all(['/429', '/503', '/500', '/200'].map(async (path) => (await exchange(p, get(path), 5000)).retryAfter));
    expect(replies).toEqual(['7', '7', undefined, undefined]);
  });

  it('rejects a reply whose connection closes before its body ends', async () => {
    const p = await poolFor((_req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('{"a":');
      setTimeout(() => res.destroy(), 10);
    });
    await expect(exchange(p, get(), 5000)).rejects.toMatchObject({ name: 'SocketError' });
  });

  it('ends a call whose body still trickles at the deadline, and the peer sees it given up', async () => {
    let written = 0;
    let givenUp!: (chunks: number) => void;
    const closed = new Promise<number>((resolve) => (givenUp = resolve));
    const p = await poolFor((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"data":[');
      const more = setInterval(() => res.write(`{"id":${++written}},`), 20);
      res.once('close', () => {
        clearInterval(more);
        givenUp(written);
      });
    });
    await expect(exchange(p, get(), 120)).rejects.toBeInstanceOf(V1DeadlineError);
    expect(await closed).toBeGreaterThan(0);
  });

  it('tells a call still waiting for a connection at its deadline then, not when a connection frees', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const p = await poolFor(async (req, res) => {
      if (req.url.endsWith('hold')) await held;
      res.writeHead(200);
      res.end('{}');
    }, 1);
    const holding = exchange(p, get('/api/v1/hold'), 5000);
    await expect(exchange(p, get('/api/v1/queued'), 100)).rejects.toBeInstanceOf(V1DeadlineError);
    // The queued call never reaches the peer once the connection frees: it was aborted.
    release();
    expect((await holding).status).toBe(200);
    const after = await exchange(p, get('/api/v1/after'), 5000);
    expect(after.status).toBe(200);
    expect(upstream!.received.map((r) => r.url)).toEqual(['/api/v1/hold', '/api/v1/after']);
  });

  it('once the body is taken, the promise that gave it, still held, keeps nothing of it', async () => {
    const size = 768 * 1024;
    const p = await poolFor((_req, res) => {
      res.writeHead(200, { 'content-length': String(size) });
      res.write(Buffer.alloc(size / 2, 'x'));
      res.end(Buffer.alloc(size / 2, 'y'));
    });
    const call = exchange(p, get(), 5000);
    const reply = await call;
    expect(await isCollected(takenAndWatched(reply, size))).toBe(true);
    expect(await call).toBe(reply);
  });
});

/** Takes the reply's body as its caller does, and watches it: no local of the test keeps it. */
function takenAndWatched(reply: V1ExchangeReply, size: number): WeakRef<Buffer> {
  const body = reply.body.take();
  expect(body).toHaveLength(size);
  return new WeakRef(body);
}
