// The volume of list-stream.test.ts's random pages: thousands per shipped list mapping, cut at random, each
// streamed answering the bytes of the page translated whole, from a new seed each run.
import { describe, it } from 'vitest';
import { checkRandomPages } from './streamed-pages.js';

describe('a list page translated as its bytes come, at volume', () => {
  it('random pages of every list mapping, cut at random, behind a mark or not: as whole', { timeout: 600_000 }, () => {
    checkRandomPages(3000, undefined);
  });
});
