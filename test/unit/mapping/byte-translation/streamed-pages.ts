// The comparison of a list page translated as its bytes come (cut anywhere, in pieces of any size, behind a
// byte order mark or not) with the same page translated whole: the same reply bytes, or, where the stream
// declines, the whole page's translation is what the gateway then answers. Over every shipped list mapping,
// on the sandbox's pages, the bench's pages and random pages (valid, broken, and with bytes that are not
// UTF-8). Shared by the quick test (a fixed seed, a few runs) and the long one (the volume).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { expect } from 'vitest';
import { client, listText, practitioner } from '../../../../bench/fake-records.js';
import { loadMappingDirectorySync } from '../../../../src/gateway/loaders/mapping-files.js';
import { compileListByteTranslation, type ListByteTranslation, type TranslatedList } from '../../../../src/mapping/byte-translation/list-translation.js';
import type { ListMapping } from '../../../../src/mapping/schema.js';
import { sourceNames } from '../v1-arbitraries.js';
import { broken, spelledPage } from './page-arbitraries.js';

const MAPPINGS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', 'mappings');
export const lists = [...loadMappingDirectorySync(MAPPINGS).reads.values()].filter((m): m is ListMapping => m.kind === 'list');

const BYTE_ORDER_MARK = Buffer.from([0xef, 0xbb, 0xbf]);

export function translationOf(mapping: ListMapping): ListByteTranslation {
  const translate = compileListByteTranslation(mapping);
  if (!translate) throw new Error(`${mapping.method}: not translated`);
  return translate;
}

/** `page` cut at `cuts` (positions, any order, repeats allowed). */
export function piecesOf(page: Buffer, cuts: readonly number[]): Buffer[] {
  const at = [...new Set(cuts.map((c) => Math.min(c, page.length)))].sort((a, b) => a - b);
  const pieces: Buffer[] = [];
  let from = 0;
  for (const to of [...at, page.length]) {
    if (to > from) pieces.push(page.subarray(from, to));
    from = to;
  }
  return pieces;
}

/** The page streamed in `pieces`: the stream's translation, and what is answered (the whole page's when it declined). */
export function streamed(translate: ListByteTranslation, pieces: readonly Buffer[], zone: string | undefined): { own: TranslatedList | undefined } {
  const stream = translate.open(zone);
  for (const piece of pieces) stream.write(piece);
  return { own: stream.end() };
}

/** `bytes` without the byte order mark at their start, as the v1 exchange gives a page read whole. */
const withoutMark = (bytes: Buffer): Buffer => (bytes.subarray(0, 3).equals(BYTE_ORDER_MARK) ? bytes.subarray(3) : bytes);

/**
 * Checks that `page` streamed in pieces (a mark put before it or not) answers the bytes the whole page does,
 * the whole page being what the exchange reads: its bytes without one mark at their start.
 */
export function expectStreamedAsWhole(translate: ListByteTranslation, page: Buffer, cuts: readonly number[], zone: string | undefined, marked: boolean): TranslatedList | undefined {
  const sent = marked ? Buffer.concat([BYTE_ORDER_MARK, page]) : page;
  const read = withoutMark(sent);
  const whole = translate(read, zone);
  const { own } = streamed(translate, piecesOf(sent, cuts), zone);
  const answered = own ?? translate(read, zone);
  expect(answered?.bytes.toString('latin1'), sent.toString('latin1')).toBe(whole?.bytes.toString('latin1'));
  expect(answered?.total).toBe(whole?.total);
  // A stream declines only what the whole page declines, or a record longer than it carries.
  if (own === undefined && whole !== undefined) expect(read.length, read.toString('latin1')).toBeGreaterThan(64 * 1024);
  return own;
}

const zones = fc.constantFrom(undefined, 'Europe/Paris', 'a"b\\c\u2028\ud800');
/** Cut positions: none, a few anywhere, or many (pieces of a few bytes). */
const cutsFor = (length: number): fc.Arbitrary<number[]> =>
  fc.oneof(
    fc.array(fc.integer({ min: 0, max: length + 3 }), { maxLength: 6 }),
    fc.integer({ min: 1, max: 9 }).map((step) => Array.from({ length: Math.ceil((length + 3) / step) }, (_, i) => i * step)),
  );
const notUtf8 = fc.constantFrom([0x80], [0xc3], [0xc0, 0x80], [0xed, 0xbf, 0xbf], [0xe2, 0x82], [0xf0, 0x9f, 0x98], [0xff]);

/** What the properties read: a page's bytes, where it is cut, the account's timezone and whether a mark leads it. */
function cases(page: fc.Arbitrary<Buffer>): fc.Arbitrary<[Buffer, number[], string | undefined, boolean]> {
  return page.chain((bytes) => fc.tuple(fc.constant(bytes), cutsFor(bytes.length), zones, fc.boolean()));
}

/** Random pages for `mapping`: valid, broken, and with bytes that are not UTF-8, as bytes. */
function randomPages(mapping: ListMapping): fc.Arbitrary<Buffer> {
  const names = sourceNames(mapping.record.fields);
  const valid = spelledPage(names).map((page) => Buffer.from(page.text));
  const brokenPage = spelledPage(names).chain((page) => broken(page.text)).map((text) => Buffer.from(text));
  const withBadBytes = valid.chain((bytes) =>
    fc.tuple(fc.integer({ min: 0, max: bytes.length }), notUtf8).map(([at, bad]) => Buffer.concat([bytes.subarray(0, at), Buffer.from(bad), bytes.subarray(at)])),
  );
  // Characters of two to four bytes, so that cuts fall inside them.
  const wide = valid.map((bytes) => Buffer.from(bytes.toString('utf8').replace(/e/g, 'é').replace(/a/g, '中').replace(/o/g, '😀')));
  return fc.oneof({ weight: 4, arbitrary: valid }, { weight: 2, arbitrary: brokenPage }, { weight: 1, arbitrary: withBadBytes }, { weight: 2, arbitrary: wide });
}

/** Every shipped list mapping over random pages cut at random: `runs` each, from `seed` (unset: a new one,
 * which a failure prints). */
export function checkRandomPages(runs: number, seed: number | undefined): void {
  for (const mapping of lists) {
    const translate = translationOf(mapping);
    fc.assert(
      fc.property(cases(randomPages(mapping)), ([page, cuts, zone, marked]) => {
        expectStreamedAsWhole(translate, page, cuts, zone, marked);
      }),
      seed === undefined ? { numRuns: runs } : { numRuns: runs, seed },
    );
  }
}

/** The bench's pages of `records` records (clients and practitioners), every shipped list mapping. */
export function benchPages(records: number): Buffer[] {
  return [client, practitioner].map((make) => Buffer.from(listText(100_000, 0, records, make)));
}
