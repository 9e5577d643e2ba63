// Whether a page that comes in pieces is valid UTF-8, each piece checked natively as it comes: exactly what
// isUtf8 of the whole page says. A piece may end inside a character: its last bytes (at most three) are held
// and checked with the start of the next piece. Pure; one page at a time.
import { isUtf8 } from 'node:buffer';

/** The bytes a character whose first byte is `lead` spells: 2 to 4; 1 for any other byte (ASCII, or a byte
 * no character starts with, which isUtf8 refuses where it stands). */
function characterLength(lead: number): number {
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 1;
}

/** Where `bytes` stops being whole characters: the start of a character cut at its end, or its length. */
function wholeUntil(bytes: Buffer): number {
  const length = bytes.length;
  for (let i = length - 1; i >= 0 && i >= length - 3; i--) {
    const c = bytes[i]!;
    // A continuation byte: the character starts further back.
    if ((c & 0xc0) === 0x80) continue;
    return i + characterLength(c) > length ? i : length;
  }
  return length;
}

export class Utf8Check {
  /** The start of a character the last piece cut, until its next bytes come. */
  private held: Buffer | undefined;
  private valid = true;

  /** Checks the next piece; false once any byte so far is not UTF-8. */
  write(piece: Buffer): boolean {
    if (!this.valid) return false;
    let from = 0;
    const held = this.held;
    if (held !== undefined) {
      const missing = characterLength(held[0]!) - held.length;
      if (piece.length < missing) {
        this.held = Buffer.concat([held, piece]);
        return true;
      }
      this.held = undefined;
      if (!isUtf8(Buffer.concat([held, piece.subarray(0, missing)]))) return (this.valid = false);
      from = missing;
    }
    const rest = from === 0 ? piece : piece.subarray(from);
    const whole = wholeUntil(rest);
    if (whole < rest.length) this.held = Buffer.from(rest.subarray(whole));
    if (!isUtf8(whole === rest.length ? rest : rest.subarray(0, whole))) this.valid = false;
    return this.valid;
  }

  /** Whether the whole page was UTF-8: no character left cut at its end. */
  end(): boolean {
    return this.valid && this.held === undefined;
  }
}
