// The reply's bytes as they are written: one buffer, reused from reply to reply, that grows as a reply needs,
// and from which each finished reply is copied out once at its length. Writing a reply as many small
// strings joined at the end made a string per field and a copy of the whole reply twice over (the join, then
// the socket's flattening of the headers and the body), all in the young generation. Pure; one reply at a
// time.

/** What the buffer starts at. */
const FIRST_SIZE = 64 * 1024;
/** The largest it is kept at between replies: the replies of the largest pages (1000 records) are written
 * without growing it each time, and a larger one does not keep its size for good. */
const KEPT_SIZE = 1024 * 1024;

/** Copies shorter than this are a loop; longer ones a native copy (whose call costs more than a short loop). */
const NATIVE_COPY_FROM = 64;

export class ByteWriter {
  private buffer = Buffer.allocUnsafe(FIRST_SIZE);
  private length = 0;

  /** Starts a new reply. */
  reset(): void {
    this.length = 0;
    if (this.buffer.length > KEPT_SIZE) this.buffer = Buffer.allocUnsafe(FIRST_SIZE);
  }

  private room(bytes: number): Buffer {
    const needed = this.length + bytes;
    if (needed > this.buffer.length) {
      const larger = Buffer.allocUnsafe(Math.max(needed, this.buffer.length * 2));
      this.buffer.copy(larger, 0, 0, this.length);
      this.buffer = larger;
    }
    return this.buffer;
  }

  byte(c: number): void {
    this.room(1)[this.length++] = c;
  }

  /** All of `piece`. */
  bytes(piece: Buffer): void {
    this.range(piece, 0, piece.length);
  }

  /** `source`'s bytes from `from` to `to`. */
  range(source: Buffer, from: number, to: number): void {
    const count = to - from;
    const buffer = this.room(count);
    let at = this.length;
    if (count >= NATIVE_COPY_FROM) source.copy(buffer, at, from, to);
    else for (let i = from; i < to; i++) buffer[at++] = source[i]!;
    this.length += count;
  }

  /** A string of ASCII characters only (digits, signs, the legacy envelope's own words). */
  ascii(text: string): void {
    const buffer = this.room(text.length);
    let at = this.length;
    for (let i = 0; i < text.length; i++) buffer[at++] = text.charCodeAt(i);
    this.length = at;
  }

  /** Any string, as UTF-8 (a well-formed one: JSON.stringify's output). */
  text(text: string): void {
    const buffer = this.room(Buffer.byteLength(text, 'utf8'));
    this.length += buffer.write(text, this.length, 'utf8');
  }

  /** What was written since `reset`, copied out between `head` (any string, as UTF-8) and `tail`: a head
   * known only once the body is written goes before it without a second copy of the body. */
  finish(head: string, tail: Buffer): Buffer {
    const headLength = Buffer.byteLength(head, 'utf8');
    const reply = Buffer.allocUnsafe(headLength + this.length + tail.length);
    reply.write(head, 0, 'utf8');
    this.buffer.copy(reply, headLength, 0, this.length);
    tail.copy(reply, headLength + this.length);
    return reply;
  }
}
