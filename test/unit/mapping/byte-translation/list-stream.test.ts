// A list page translated as its bytes come answers the bytes of the same page translated whole (which
// list-translation.test.ts holds to the engine's): cut anywhere, the sandbox's and the bench's pages, random
// pages with a fixed seed (their volume is in list-stream.long.test.ts); and an ordinary page is never left
// to be read whole, however it is cut.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchPages, checkRandomPages, expectStreamedAsWhole, lists, piecesOf, streamed, translationOf } from './streamed-pages.js';

const GOLDEN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'golden');

/** The sandbox's v1 page of each list method, as the golden fixture keeps it. */
const sandboxPage = (method: string): Buffer => {
  const fixture = JSON.parse(readFileSync(path.join(GOLDEN, `${method}.json`), 'utf8')) as { v1: Array<{ reply: unknown }> };
  return Buffer.from(JSON.stringify(fixture.v1[0]!.reply));
};

describe('a list page translated as its bytes come', () => {
  it.each(lists.map((m) => [m.method, m] as const))('%s: the sandbox page, cut at every byte, as whole and never declined', (method, mapping) => {
    const translate = translationOf(mapping);
    const page = sandboxPage(method);
    for (let at = 0; at <= page.length; at++) {
      expect(expectStreamedAsWhole(translate, page, [at, at + 5], undefined, at % 2 === 0), `cut at ${at}`).toBeDefined();
    }
  });

  it.each(lists.map((m) => [m.method, m] as const))('%s: the bench pages, in pieces of 1 byte to 64 KB, as whole and never declined', (_method, mapping) => {
    const translate = translationOf(mapping);
    for (const records of [0, 1, 10, 100, 1000]) {
      for (const page of benchPages(records)) {
        // Pieces of a few bytes only where the page is short: each cut is a record read again.
        for (const size of records <= 10 ? [1, 7, 500] : [500, 16 * 1024, 64 * 1024]) {
          const cuts = Array.from({ length: Math.ceil(page.length / size) }, (_, i) => i * size);
          const own = expectStreamedAsWhole(translate, page, cuts, 'Europe/Paris', size !== 500);
          expect(own, `${mapping.method}, ${records} records, pieces of ${size}`).toBeDefined();
        }
      }
    }
  });

  it('random pages of every list mapping, cut at random, behind a mark or not: as whole (a fixed seed)', () => {
    checkRandomPages(60, 36);
  });

  it('declines a page whose mark is cut short or wrong, as the engine refuses it', () => {
    const translate = translationOf(lists.find((m) => m.method === 'clients')!);
    const page = Buffer.from('{"total":0,"has_more":false,"data":[]}');
    expect(streamed(translate, piecesOf(Buffer.concat([Buffer.from([0xef, 0xbb]), page]), [1]), undefined).own).toBeUndefined();
    expect(streamed(translate, [Buffer.from([0xef]), Buffer.from([0xbb, 0xbf]), page], undefined).own?.bytes.toString()).toBe(
      '{"status":"success","total":"0","response":[]}',
    );
  });
});
