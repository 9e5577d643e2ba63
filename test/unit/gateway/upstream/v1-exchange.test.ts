// One exchange with a real HTTP peer on undici's dispatcher: the body's chunks joined and decoded (a byte
// order mark skipped at the start only), Retry-After read from a 429 or 503, a reply cut short refused,
// the deadline ending a call that trickles or that waits for a connection, and once the text is taken, the
// promise that gave it holds nothing of it.
import { Pool } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { exchange, V1DeadlineError } from '../../../../src/gateway/upstream/v1-exchange.js';
import { liveHeapBytes } from '../../../helpers/collect-garbage.js';
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
    expect([reply.status, reply.retryAfter, reply.text.take()]).toEqual([200, undefined, '{"name":"Zoë","city":"Köln"}']);
    expect(upstream!.received.map((r) => [r.method, r.url, r.headers['x-api-key'], r.body.toString()])).toEqual([['POST', '/api/v1/payments', 'k', '{"a":1}']]);
  });

  it('skips a UTF-8 byte order mark at the start, and only there; an empty body is an empty text', async () => {
    const p = await poolFor((req, res) => {
      res.writeHead(200);
      res.end(req.url.endsWith('empty') ? '' : Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":"\ufeff"}')]));
    });
    expect((await exchange(p, get(), 5000)).text.take()).toBe('{"a":"\ufeff"}');
    expect((await exchange(p, get('/api/v1/empty'), 5000)).text.take()).toBe('');
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

  it('once the text is taken, the promise that gave it, still held, keeps nothing of it', async () => {
    // Under 1 MB: Node keeps a larger decoded text outside V8's heap, where the heap's size cannot see it.
    const size = 768 * 1024;
    const p = await poolFor((_req, res) => {
      res.writeHead(200, { 'content-length': String(size) });
      res.write(Buffer.alloc(size / 2, 'x'));
      res.end(Buffer.alloc(size / 2, 'y'));
    });
    const call = exchange(p, get(), 5000);
    const reply = await call;
    const holding = await liveHeapBytes();
    expect(reply.text.take()).toHaveLength(size);
    const after = await liveHeapBytes();
    expect(holding - after).toBeGreaterThan(size * 0.9);
    expect(await call).toBe(reply);
  });
});
