// Full collections on demand, for tests that check what a value is still reachable from.
import { setImmediate as nextTurn } from 'node:timers/promises';
import v8 from 'node:v8';
import vm from 'node:vm';

/** V8's gc(), exposed for this process. */
export function collectGarbage(): () => void {
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
}

/** Whether the object behind `ref` was collected. A WeakRef keeps its target until the end of the job
 * that made or read it, so the collection runs on a later turn of the event loop. */
export async function isCollected(ref: WeakRef<object>): Promise<boolean> {
  const gc = collectGarbage();
  await nextTurn();
  gc();
  return ref.deref() === undefined;
}

/** The live heap after a full collection, on a later turn (see isCollected). */
export async function liveHeapBytes(): Promise<number> {
  const gc = collectGarbage();
  await nextTurn();
  gc();
  return process.memoryUsage().heapUsed;
}
