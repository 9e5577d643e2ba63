// The deadline of one upstream call (UPSTREAM_TIMEOUT_MS, from the request to the end of the reply's body),
// as the signal undici's request takes. undici accepts an EventEmitter there as well as an AbortSignal; an
// AbortController's EventTarget listener measured 10 to 35 µs of CPU per call (a third of an undici GET of
// a small page), an EventEmitter and its timer next to nothing. It never aborts anything but its own call.
import { EventEmitter } from 'node:events';

export class CallDeadline extends EventEmitter {
  /** Read by undici before it sends the request (an expired deadline aborts it at once). */
  aborted = false;
  private readonly timer: NodeJS.Timeout;

  constructor(ms: number) {
    super();
    this.timer = setTimeout(() => {
      this.aborted = true;
      this.emit('abort');
    }, ms);
  }

  /** The call is over, whatever its end: the timer goes, so it holds nothing alive. */
  clear(): void {
    clearTimeout(this.timer);
  }
}
