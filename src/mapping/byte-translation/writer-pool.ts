// The writers that replies are written into, kept for the next replies: a page translated as its bytes come
// is written over several turns of the event loop, beside other pages, so each has a writer of its own until
// its reply is copied out; a few are kept, so that under load a reply rarely needs a new one (nor grows
// one). Pure; a writer is given back once, after its reply is copied out.
import { ByteWriter } from './byte-writer.js';

/** Writers kept between replies: about as many pages as are read at once under load; each holds at most
 * ByteWriter's kept size. */
const KEPT_WRITERS = 8;

const kept: ByteWriter[] = [];

/** A writer, reset, for one reply. */
export function takeWriter(): ByteWriter {
  const writer = kept.pop() ?? new ByteWriter();
  writer.reset();
  return writer;
}

/** Gives back a writer whose reply is done with. */
export function giveBackWriter(writer: ByteWriter): void {
  if (kept.length < KEPT_WRITERS) kept.push(writer);
}
