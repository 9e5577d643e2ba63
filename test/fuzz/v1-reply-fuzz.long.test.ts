// The fuzz of v1's replies at volume, with a new seed each run (a failure prints the seed that replays it).
import { vi } from 'vitest';
import { fuzzV1Replies } from './v1-reply-fuzz.js';

// A thousand calls take their time on a busy machine: the timeout is the run's, not the quick suite's.
vi.setConfig({ testTimeout: 180_000 });
fuzzV1Replies({ reads: 600, payments: 300 });
