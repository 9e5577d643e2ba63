// Full collections on demand, for tests that check what a value is still reachable from.
import { setImmediate as nextTurn } from 'node:timers/promises';
import v8 from 'node:v8';
import vm from 'node:vm';

/** V8's gc(), exposed for this process. */
export function collectGarbage(): () => void {
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
}

/** A full collection on a later turn of the event loop: a WeakRef keeps its target until the end of the job
 * that made or read it. */
async function collectOnNextTurn(): Promise<void> {
  const gc = collectGarbage();
  await nextTurn();
  gc();
}

/** Whether the object behind `ref` was collected. */
export async function isCollected(ref: WeakRef<object>): Promise<boolean> {
  await collectOnNextTurn();
  return ref.deref() === undefined;
}

/** The live heap after a full collection. */
export async function liveHeapBytes(): Promise<number> {
  await collectOnNextTurn();
  return process.memoryUsage().heapUsed;
}
