// A copy of the reply one request is answered with, for the recorder (RECORD_FILE, steps/record.ts). Every
// writer of a reply hands what it writes to the context's `replyCopy`, right where it writes it: the JSON
// writer (write-json.ts), the error writer (error-reply.ts), the passthrough's relay (routes/reply-relay.ts)
// and the shutdown deadline's 503 (lifecycle.ts). The recorder sets a copy on the calls it records; on every
// other call the slot is empty and a writer pays one property read for it. The response itself is never
// wrapped: what the caller received and what is recorded are the same bytes, handed over at one place.
// Bounded: past `maxBytes` the copy lets go of what it held and keeps nothing more (`overflow`), so a large
// reply is never held twice.
export class ReplyCopy {
  private readonly parts: Buffer[] = [];
  private size = 0;
  /** The reply grew past `maxBytes`: it is recorded without its body. */
  overflow = false;

  constructor(private readonly maxBytes: number) {}

  /** Takes in one piece of the reply's body, as it is written (a string is written as UTF-8). */
  add(chunk: string | Uint8Array): void {
    if (this.overflow) return;
    // Copied: a writer may reuse its buffer once the socket has taken it.
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk);
    this.size += buf.length;
    if (this.size > this.maxBytes) {
      this.overflow = true;
      this.parts.length = 0;
      return;
    }
    this.parts.push(buf);
  }

  /** The body's bytes so far, as the caller received them. */
  bytes(): Buffer {
    return Buffer.concat(this.parts);
  }
}
