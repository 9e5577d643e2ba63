// A v1 reply body read to its text: chunks joined, a UTF-8 byte order mark skipped, the body's own error
// or an early close refused; and once the text is taken, the promise that gave it holds nothing of it.
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readBodyText } from '../../../../src/gateway/upstream/body-text.js';
import { liveHeapBytes } from '../../../helpers/collect-garbage.js';

const bodyOf = (...chunks: Buffer[]) => Readable.from(chunks, { objectMode: false });

describe('readBodyText', () => {
  it('joins the chunks, a character cut between two of them included', async () => {
    const bytes = Buffer.from('{"name":"Zoë","city":"Köln"}');
    const cut = bytes.indexOf(0xc3) + 1;
    const text = (await readBodyText(bodyOf(bytes.subarray(0, cut), bytes.subarray(cut)))).take();
    expect(text).toBe('{"name":"Zoë","city":"Köln"}');
  });

  it('skips a UTF-8 byte order mark at the start, and only there', async () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    expect((await readBodyText(bodyOf(bom, Buffer.from('{"a":"\ufeff"}')))).take()).toBe('{"a":"\ufeff"}');
  });

  it('gives an empty text for an empty body', async () => {
    expect((await readBodyText(bodyOf())).take()).toBe('');
  });

  it("rejects with the body's own error", async () => {
    const body = new Readable({ read() {} });
    const reading = readBodyText(body);
    body.push(Buffer.from('{"a":'));
    body.destroy(new Error('socket hang up'));
    await expect(reading).rejects.toThrow('socket hang up');
  });

  it('rejects a body that closes before its end', async () => {
    const body = new Readable({ read() {} });
    const reading = readBodyText(body);
    body.push(Buffer.from('{"a":'));
    body.destroy();
    await expect(reading).rejects.toThrow('the reply body closed before its end');
  });

  it('once the text is taken, the promise that gave it, still held, keeps nothing of it', async () => {
    // Under 1 MB: Node keeps a larger decoded text outside V8's heap, where the heap's size cannot see it.
    const size = 768 * 1024;
    const reading = readBodyText(bodyOf(Buffer.alloc(size / 2, 'x'), Buffer.alloc(size / 2, 'y')));
    const box = await reading;
    const holding = await liveHeapBytes();
    expect(box.take()).toHaveLength(size);
    const after = await liveHeapBytes();
    // The text was on the heap while the box held it, and is gone though `reading` is still held.
    expect(holding - after).toBeGreaterThan(size * 0.9);
    expect(await reading).toBe(box);
  });
});
