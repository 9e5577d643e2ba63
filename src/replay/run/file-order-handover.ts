// Hands a replay's entries to its sinks in file order while their calls finish in any order: an entry
// waits here until every earlier one is out. The runner keeps at most a window of entries ahead of the
// next one to hand over, which bounds what waits here whatever the file's size.
// Pure: must never do I/O; it only orders values and waits on promises.

export class FileOrderHandover<T> {
  private readonly finished = new Map<number, T>();
  private readonly pendingItems = new Set<Promise<void>>();
  private nextIndex = 0;
  // Level-triggered: a completion that happens while nobody waits is not lost.
  private completed = false;
  private waiter: (() => void) | undefined;

  constructor(private readonly handOver: (item: T) => Promise<void>) {}

  /** Items whose promise has not settled yet. */
  get inFlight(): number {
    return this.pendingItems.size;
  }

  /** An item known now (a skipped call). */
  ready(index: number, item: T): void {
    this.finished.set(index, item);
  }

  /** An item known when `item` settles; `item` must not reject. `settled` runs once it has. */
  pending(index: number, item: Promise<T>, settled: () => void): void {
    const task: Promise<void> = item
      .then((value) => {
        this.finished.set(index, value);
      })
      .finally(() => {
        settled();
        this.pendingItems.delete(task);
        this.signalCompletion();
      });
    this.pendingItems.add(task);
  }

  /** Hands over, in order, every item whose predecessors are out. */
  async flush(): Promise<void> {
    for (let item = this.finished.get(this.nextIndex); item !== undefined; item = this.finished.get(this.nextIndex)) {
      this.finished.delete(this.nextIndex);
      this.nextIndex++;
      await this.handOver(item);
    }
  }

  /** Waits, handing items over, until the item at `index` is less than `window` ahead of the next one out. */
  async makeRoom(index: number, window: number): Promise<void> {
    while (index - this.nextIndex >= window) {
      await this.nextCompletion();
      await this.flush();
    }
  }

  /**
   * Waits for every pending item, handing each over as soon as its turn comes: at the end of a run, and
   * around a replayed write, which must not overlap any other call.
   */
  async drain(): Promise<void> {
    while (this.pendingItems.size > 0) {
      await this.nextCompletion();
      await this.flush();
    }
    await this.flush();
  }

  /** Waits for the pending items to settle without handing anything over (after a failure). */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.pendingItems]);
  }

  private signalCompletion(): void {
    this.completed = true;
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.();
  }

  private async nextCompletion(): Promise<void> {
    if (!this.completed) await new Promise<void>((resolve) => (this.waiter = resolve));
    this.completed = false;
  }
}
