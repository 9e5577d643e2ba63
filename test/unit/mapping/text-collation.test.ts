import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { collationKey, collationRanks, compareText } from '../../../src/mapping/text-collation.js';
import { anyText } from './v1-arbitraries.js';

const collator = new Intl.Collator('en', { sensitivity: 'base' });
const sign = (n: number) => Math.sign(n);

/** Texts the shortcut covers: ASCII letters, digits and spaces, with accents precomposed or combining. */
const ACCENTED = ['é', 'É', 'è', 'ê', 'ë', 'à', 'Å', 'ç', 'Ç', 'ñ', 'Ñ', 'ö', 'Ü', 'ý', 'ǅ', 'ǆ', 'İ', 'ǿ', 'ḁ', 'ẞ', 'Ǻ'];
const MARKS = Array.from({ length: 0x363 - 0x300 }, (_, i) => String.fromCharCode(0x300 + i));
const plainText = fc
  .array(fc.oneof(fc.constantFrom(...' 0123456789abcxyzABCXYZ'), fc.constantFrom(...ACCENTED), fc.constantFrom(...MARKS)), { maxLength: 6 })
  .map((chars) => chars.join(''));

describe('collationKey', () => {
  it('gives plain and accented names a key, and leaves everything else to the collator', () => {
    expect(collationKey('Élodie')).toBe('elodie');
    expect(collationKey('Mari\u0301a 2')).toBe('maria 2');
    for (const text of ["O'Brien", 'Mary-Jane', 'straße', 'Øyvind', 'Ægir', 'Łukasz', 'e\u0363', '中', 'a\u00adb', 'x\ud800']) {
      expect(collationKey(text)).toBeUndefined();
    }
  });

  it('orders texts that have keys exactly as the collator does', () => {
    fc.assert(
      fc.property(plainText, plainText, (a, b) => {
        const [x, y] = [collationKey(a), collationKey(b)];
        if (x === undefined || y === undefined) return;
        expect(sign(x < y ? -1 : x > y ? 1 : 0)).toBe(sign(collator.compare(a, b)));
      }),
      { numRuns: 5000 },
    );
  });
});

describe('collationRanks', () => {
  const text = fc.oneof(plainText, anyText, fc.constantFrom("O'Brien", 'OBrien', 'ß', 'ss', 'æ', 'ae', 'ø', 'o', '-', ' ', '1', 'İ', 'i'));

  it('ranks any texts in the collator order, equal texts sharing a rank', () => {
    fc.assert(
      fc.property(fc.uniqueArray(text, { maxLength: 40 }), (texts) => {
        const ranks = collationRanks(texts);
        expect([...ranks.keys()].sort()).toEqual([...texts].sort());
        for (const a of texts) for (const b of texts) expect(sign(ranks.get(a)! - ranks.get(b)!)).toBe(sign(compareText(a, b)));
      }),
      { numRuns: 500 },
    );
  });

  it('numbers the ranks from 0 without gaps', () => {
    const ranks = collationRanks(['b', 'A', 'a', 'Á', "a'"]);
    expect([...new Set(ranks.values())].sort()).toEqual([0, 1, 2]);
    expect(ranks.get('A')).toBe(ranks.get('Á'));
  });
});
