// The gateway fuzz in the quick suite: a few inputs per property, always the same ones (a fixed seed).
// The volume is gateway-fuzz.long.test.ts, in `npm test` only.
import { fuzzTheGateway } from './gateway-fuzz.js';

fuzzTheGateway({ reads: 60, payments: 40, anyPath: 60, seed: 20261202 });
