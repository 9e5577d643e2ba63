// A v1 reply's body read to its text, handed off (shared/hand-off.ts). Not undici's body.text(): the
// promise that gives its text stays reachable from the request's undici handler, which is old by the time
// the reply arrives, so every reply's text was kept until the next full collection. Here the chunks are
// dropped as soon as they are decoded, and the promise gives a box the caller empties.
import type { Readable } from 'node:stream';
import { handOff, type HandOff } from '../../shared/hand-off.js';

/** A UTF-8 byte order mark at the start is skipped, as undici's text() does. */
function decode(bytes: Buffer): string {
  const bom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  return bytes.toString('utf8', bom ? 3 : 0);
}

/** Rejects with the body's own error (undici's size limit and timeouts come this way), or when the body
 * closes before its end. */
export function readBodyText(body: Readable): Promise<HandOff<string>> {
  return new Promise((resolve, reject) => {
    let chunks: Buffer[] = [];
    let length = 0;
    body.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      length += chunk.length;
    });
    body.once('error', reject);
    // 'close' follows 'end' on every body: an error is made only for one that did not end.
    body.once('close', () => {
      if (!body.readableEnded) reject(new Error('the reply body closed before its end'));
    });
    body.once('end', () => {
      const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, length);
      chunks = [];
      resolve(handOff(decode(bytes)));
    });
  });
}
