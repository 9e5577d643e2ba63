// The fuzz of v1's replies in the quick suite: a few inputs per property, always the same ones (a fixed
// seed), among them successes, 404s and 502s. The volume is v1-reply-fuzz.long.test.ts, in `npm test` only.
import { fuzzV1Replies } from './v1-reply-fuzz.js';

fuzzV1Replies({ reads: 60, payments: 30, seed: 20261202 });
