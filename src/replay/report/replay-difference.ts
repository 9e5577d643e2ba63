// A difference as the replay reports it: the JSON diff's, and what caused it when the gateway did not (an
// earlier write the replay itself sent, run/write-effects.ts). The diff itself knows of no cause: the shadow
// compares replies with it too, and there a difference is always the candidate mapping's.
import type { Difference } from '../../json-diff/json-diff.js';

/** What made a difference other than the gateway: `replay`, an earlier write the replay itself sent. */
export type DifferenceCause = 'replay';

export interface ReplayDifference extends Difference {
  /** Set when the difference is not the gateway's; absent: a gateway difference. */
  cause?: DifferenceCause;
}
