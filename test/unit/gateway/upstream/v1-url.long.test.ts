// v1RequestPath's read-back property at volume, with a new seed each run (a failure prints the seed that
// replays it); v1-url.test.ts runs a few hundred fixed inputs in the quick suite.
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { pathReadBackExactly } from './v1-url-properties.js';

describe('v1RequestPath', () => {
  it('sends a path that a URL parser reads back exactly as sent, whatever the upstream URL\'s own path', () => {
    fc.assert(pathReadBackExactly, { numRuns: 2000 });
  });
});
