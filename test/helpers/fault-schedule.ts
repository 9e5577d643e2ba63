// A seeded schedule of process faults for a randomized fault test (pure): when each target is killed
// (SIGKILL, then started again) or paused (SIGSTOP, then SIGCONT), and for how long. One fault at a time per
// target group, so that a group is never left with nothing serving for long; every group gets each kind of
// fault at least once, and every group of replicas one pause longer than `longPauseMs`.
import { createPrng, type Prng } from '../../src/sandbox/prng.js';

export type FaultAction = 'kill-9' | 'pause';

export interface ScheduledFault {
  /** ms from the start of the traffic. */
  at: number;
  /** A replica group's name with its slot (`pg-claims/2`), or a server's (`postgres`, `redis`). */
  target: string;
  action: FaultAction;
  /** How long it stays down (killed: until started again) or paused. */
  forMs: number;
}

export interface FaultGroup {
  name: string;
  /** Replica slots (1..n); 0 for a single server. */
  slots: number;
  /** Pause lengths [min, max] and down times after a kill [min, max], ms. */
  pauseMs: readonly [number, number];
  downMs: readonly [number, number];
  /** A replica group gets one pause longer than this (the claim lease). */
  longPauseMs?: number;
}

const between = (prng: Prng, [min, max]: readonly [number, number]): number => prng.int(min, max);

/** The faults of one group, one after another from `startMs` until `endMs`. */
function groupFaults(prng: Prng, group: FaultGroup, startMs: number, endMs: number): ScheduledFault[] {
  const faults: ScheduledFault[] = [];
  // The kinds every group gets, in a seeded order; then random ones while time is left.
  const first: Array<{ action: FaultAction; long?: boolean }> = prng.chance(0.5) ? [{ action: 'kill-9' }, { action: 'pause', long: true }] : [{ action: 'pause', long: true }, { action: 'kill-9' }];
  let at = startMs + prng.int(0, 3000);
  for (let i = 0; ; i++) {
    const kind = first[i] ?? { action: prng.chance(0.5) ? 'kill-9' : 'pause' };
    const forMs =
      kind.action === 'kill-9'
        ? between(prng, group.downMs)
        : kind.long && group.longPauseMs !== undefined
          ? group.longPauseMs + prng.int(1000, 4000)
          : between(prng, group.pauseMs);
    if (i >= first.length && at + forMs > endMs) break;
    const target = group.slots === 0 ? group.name : `${group.name}/${prng.int(1, group.slots)}`;
    faults.push({ at, target, action: kind.action, forMs });
    at += forMs + prng.int(2000, 6000);
  }
  return faults;
}

/** Every group's faults within [startMs, endMs), in time order. */
export function faultSchedule(seed: number, groups: readonly FaultGroup[], startMs: number, endMs: number): ScheduledFault[] {
  const prng = createPrng(seed);
  return groups.flatMap((group) => groupFaults(prng, group, startMs, endMs)).sort((a, b) => a.at - b.at);
}
