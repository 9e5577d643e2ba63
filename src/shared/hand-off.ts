// A large value passed once through a promise, which then forgets it.
//
// Why: a translated read waits for v1, and under load that wait outlasts a young-generation collection or
// two, so V8 moves every promise and suspended async function the request has made so far to the old
// generation. When v1's reply arrives, whatever those old objects are given (the reply's text, its parsed
// records, the legacy reply's text) is held by them until the next full collection, however soon the
// request is done with it: the young-generation collector cannot tell that its old holders are dead, so it
// copies the value, then promotes it, and the old generation fills with values no one uses: more full
// collections follow.
// So such a value goes through the promise inside this box, and the receiver empties the box with take():
// the old promise keeps only an empty box.

export interface HandOff<T> {
  /** The value; the box keeps nothing of it. Taken once: a second take is a fault of the caller. */
  take(): T;
}

class Box<T> implements HandOff<T> {
  private value: T | undefined;
  private taken = false;

  constructor(value: T) {
    this.value = value;
  }

  take(): T {
    if (this.taken) throw new Error('a handed-off value was taken twice');
    const value = this.value as T;
    this.value = undefined;
    this.taken = true;
    return value;
  }
}

export function handOff<T>(value: T): HandOff<T> {
  return new Box(value);
}
