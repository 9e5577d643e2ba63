// The scrubber that removes a request's secrets from text v1 sent back: every spelling a value travels in,
// and, for the gateway's own key lent to a caller, its masked renderings and the words made of its ends.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REDACTED, SecretScrubber } from '../../../src/shared/redact.js';

describe('SecretScrubber', () => {
  it('removes a value in every spelling it travels in', () => {
    const password = 'p@ss w0rd/"9';
    const scrubber = new SecretScrubber().add(password);
    const spellings = [
      password,
      encodeURIComponent(password),
      encodeURIComponent(password).toLowerCase(),
      encodeURIComponent(password).replace(/%20/g, '+'),
      new URLSearchParams([['p', password]]).toString().slice(2),
      JSON.stringify(password).slice(1, -1),
    ];
    for (const spelling of spellings) expect(scrubber.scrub(`password ${spelling} is too weak`)).toBe(`password ${REDACTED} is too weak`);
  });

  it('takes secrets in after it was used', () => {
    const scrubber = new SecretScrubber().add('caller-key-1');
    expect(scrubber.scrub('key caller-key-1, token tok_later_1')).toBe(`key ${REDACTED}, token tok_later_1`);
    scrubber.add('tok_later_1');
    expect(scrubber.scrub('key caller-key-1, token tok_later_1')).toBe(`key ${REDACTED}, token ${REDACTED}`);
  });

  it('leaves a caller value shorter than four characters alone, and v1 masks of a caller key', () => {
    const scrubber = new SecretScrubber().add('abc', 'caller-key-3f9a');
    expect(scrubber.scrub('abcd abc')).toBe('abcd abc');
    expect(scrubber.scrub('key caller****3f9a')).toBe('key caller****3f9a');
  });

  describe('a key lent by the gateway', () => {
    const key = 'gw-lent-key-5d2e8a7c';
    const scrubber = new SecretScrubber().addWithFragments(key);

    it.each([
      ['invalid key gw-lent-key-5d2e8a7c.', `invalid key ${REDACTED}.`],
      ['invalid key gw-lent****8a7c.', `invalid key ${REDACTED}.`],
      ['invalid key gw-l…', `invalid key ${REDACTED}`],
      ['invalid key gw-lent-key-5d...', `invalid key ${REDACTED}`],
      ['invalid key ****8a7c', `invalid key ${REDACTED}`],
      ['invalid key •••c', `invalid key ${REDACTED}`],
      ['key ending in 8a7c', `key ending in ${REDACTED}`],
      ['key starting with gw-lent', `key starting with ${REDACTED}`],
      ['key "gw-lent-key-5d2e8a7"', `key "${REDACTED}"`],
    ])('%s', (text, scrubbed) => {
      expect(scrubber.scrub(text)).toBe(scrubbed);
    });

    it('keeps words that only contain a piece of it, and ordinary ellipses', () => {
      for (const text of ['a gw-lentil salad', 'serial 18a7c', 'the key-5d2e8a7cX', 'and so on... then', 'wait…']) expect(scrubber.scrub(text)).toBe(text);
    });

    it('removes a short key where it stands as a word of its own', () => {
      const short = new SecretScrubber().addWithFragments('k9');
      expect(short.scrub('key k9 refused (k9x, ak9)')).toBe(`key ${REDACTED} refused (k9x, ak9)`);
    });

    it('never leaves a run of five of its characters in text that held it whole or masked', () => {
      fc.assert(
        fc.property(fc.string(), fc.string(), fc.constantFrom('', '****', '…', '...'), fc.integer({ min: 4, max: key.length }), (before, after, mask, shown) => {
          const echoed = mask === '' ? key : `${key.slice(0, shown)}${mask}${key.slice(-4)}`;
          const out = scrubber.scrub(`${before} ${echoed} ${after}`);
          expect(out).toContain(REDACTED);
          if (!before.includes('gw-') && !after.includes('gw-')) expect(out.includes(key.slice(0, 5))).toBe(false);
        }),
      );
    });
  });
});
