// The gateway fuzz at volume, with a new seed each run (a failure prints the seed that replays it).
import { vi } from 'vitest';
import { fuzzTheGateway } from './gateway-fuzz.js';

// A thousand calls take their time on a busy machine: the timeout is the run's, not the quick suite's.
vi.setConfig({ testTimeout: 180_000 });
fuzzTheGateway({ reads: 1000, payments: 600, anyPath: 1000 });
