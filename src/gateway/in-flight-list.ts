// The requests (or pieces of work) in flight right now: a doubly linked list whose entries are taken out
// when done. Not a Map or a Set of the entries: with the drain's tracking in a Map, an uncached read
// promoted twice as much to the old generation, whatever the concurrency or the young generation's size
// (the commit that made this list has the figures). V8 replaces a Map's table by a new one as entries come
// and go, and the table it leaves keeps what it held; one left in the old generation keeps those requests
// alive through every young collection until the next full one. An entry taken out of this list points at
// nothing.

/** One entry of the list; `remove` takes it out. */
export interface InFlightEntry<T> {
  readonly value: T;
}

interface Node<T> extends InFlightEntry<T> {
  previous: Node<T> | undefined;
  next: Node<T> | undefined;
  linked: boolean;
}

export class InFlightList<T> {
  private first: Node<T> | undefined;
  private count = 0;

  get size(): number {
    return this.count;
  }

  add(value: T): InFlightEntry<T> {
    const node: Node<T> = { value, previous: undefined, next: this.first, linked: true };
    if (this.first) this.first.previous = node;
    this.first = node;
    this.count++;
    return node;
  }

  /** Takes `entry` out; a second call does nothing. */
  remove(entry: InFlightEntry<T>): void {
    const node = entry as Node<T>;
    if (!node.linked) return;
    if (node.previous) node.previous.next = node.next;
    else this.first = node.next;
    if (node.next) node.next.previous = node.previous;
    node.previous = undefined;
    node.next = undefined;
    node.linked = false;
    this.count--;
  }

  /** The values in flight now, newest first: a copy, so that entries may be removed while it is read. */
  values(): T[] {
    const values: T[] = [];
    for (let node = this.first; node; node = node.next) values.push(node.value);
    return values;
  }

  /** The first value in flight for which `test` holds, if any. */
  find(test: (value: T) => boolean): T | undefined {
    for (let node = this.first; node; node = node.next) if (test(node.value)) return node.value;
    return undefined;
  }
}
