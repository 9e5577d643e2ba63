// "At once" without a clock: what a promise has come to by the event loop's next turn (setImmediate). One that
// has settled by then waited on no socket and no timer; a slower machine runs the same steps in the same
// order, so the answer does not depend on its speed.
export type Settlement<T> = { state: 'fulfilled'; value: T } | { state: 'rejected'; reason: unknown } | { state: 'pending' };

export async function settlesAtOnce<T>(work: Promise<T>): Promise<Settlement<T>> {
  let settlement: Settlement<T> = { state: 'pending' };
  work.then(
    (value) => (settlement = { state: 'fulfilled', value }),
    (reason: unknown) => (settlement = { state: 'rejected', reason }),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return settlement;
}
