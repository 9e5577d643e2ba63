// Reads a recording file as a stream of RecordedExchange: HAR 1.2 through a streaming JSON parser that
// emits one `log.entries[i]` at a time, JSONL line by line. Memory stays bounded by the largest single
// entry, so a 1 GB recording does not need 1 GB.
// It must never load the whole file, and every error it raises names the file, the place (line and
// column, or the entry) and what is wrong, never the content of a header.
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { JSONParser } from '@streamparser/json';
import { JsonSyntaxError, parseJsonExact } from '../../shared/json-exact.js';
import { fromHarEntry, fromJsonlLine, RecordingEntryError, type RecordedExchange } from './recording.js';

export type RecordingFormat = 'har' | 'jsonl';

/** The file is unusable as a recording: exit code 2, the message says what and where. */
export class RecordingInputError extends Error {
  override name = 'RecordingInputError';
}

const SNIFF_BYTES = 64 * 1024;

/** HAR or JSONL, by extension, else by the first line's content. */
export async function detectFormat(filePath: string): Promise<RecordingFormat> {
  const ext = path.extname(filePath).toLowerCase();
  let head: string;
  try {
    const handle = await open(filePath, 'r');
    try {
      const buffer = Buffer.alloc(SNIFF_BYTES);
      const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0);
      head = buffer.subarray(0, bytesRead).toString('utf8').replace(/^\uFEFF/, '');
    } finally {
      await handle.close();
    }
  } catch (err) {
    throw new RecordingInputError(`${filePath}: cannot read the file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  const trimmed = head.trimStart();
  if (trimmed === '') throw new RecordingInputError(`${filePath}: the file is empty`);
  if (!trimmed.startsWith('{')) {
    throw new RecordingInputError(
      `${filePath}: line 1: neither a HAR file nor JSONL (expected "{", found ${JSON.stringify(trimmed.slice(0, 1))})`,
    );
  }
  if (ext === '.har') return 'har';
  if (ext === '.jsonl' || ext === '.ndjson') return 'jsonl';
  const firstLine = trimmed.split('\n', 1)[0] ?? '';
  try {
    const value = parseJsonExact(firstLine);
    if (value !== null && typeof value === 'object' && !Array.isArray(value) && 'request' in value) return 'jsonl';
  } catch {
    // A pretty-printed HAR: its first line alone is not a JSON value.
  }
  return 'har';
}

/** Streams the exchanges of a recording; throws RecordingInputError at the first bad entry. */
export async function* readRecording(filePath: string, format?: RecordingFormat): AsyncGenerator<RecordedExchange> {
  const kind = format ?? (await detectFormat(filePath));
  if (kind === 'har') yield* readHar(filePath);
  else yield* readJsonl(filePath);
}

async function* readJsonl(filePath: string): AsyncGenerator<RecordedExchange> {
  const input = createReadStream(filePath, { encoding: 'utf8', highWaterMark: 256 * 1024 });
  const lines = createInterface({ input, crlfDelay: Infinity });
  let lineNumber = 0;
  let index = 0;
  try {
    for await (const rawLine of lines) {
      lineNumber++;
      const line = lineNumber === 1 ? rawLine.replace(/^\uFEFF/, '') : rawLine;
      if (line.trim() === '') continue;
      let value: unknown;
      try {
        value = parseJsonExact(line);
      } catch (err) {
        const column = err instanceof JsonSyntaxError ? `, column ${err.position + 1}` : '';
        const reason = err instanceof JsonSyntaxError ? err.message.replace(/ at position \d+$/, '') : 'not JSON';
        throw new RecordingInputError(`${filePath}: line ${lineNumber}${column}: not valid JSON: ${reason}`);
      }
      try {
        yield fromJsonlLine(value, index++, lineNumber);
      } catch (err) {
        if (err instanceof RecordingEntryError) throw new RecordingInputError(`${filePath}: ${err.message}`);
        throw err;
      }
    }
  } catch (err) {
    if (err instanceof RecordingInputError) throw err;
    throw new RecordingInputError(`${filePath}: cannot read the file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  } finally {
    lines.close();
    input.destroy();
  }
  if (index === 0) throw new RecordingInputError(`${filePath}: the recording holds no entries`);
}

/** Where a byte of the file is, as `line L, column C`, for syntax error messages. */
class LineCounter {
  private linesBefore = 0;
  /** Byte offset of the start of the current line, in the whole file. */
  private lineStart = 0;
  /** Bytes of the chunks already counted. */
  private offset = 0;

  /** The place of byte `position` of `chunk`, the chunk after those already counted. */
  where(chunk: Buffer, position: number): string {
    let line = this.linesBefore;
    let lineStart = this.lineStart;
    for (let i = 0; i < position && i < chunk.length; i++) {
      if (chunk[i] === 0x0a) {
        line++;
        lineStart = this.offset + i + 1;
      }
    }
    return `line ${line + 1}, column ${this.offset + position - lineStart + 1}`;
  }

  /** Counts a chunk that parsed without error. */
  count(chunk: Buffer): void {
    for (let i = 0; i < chunk.length; i++) {
      if (chunk[i] === 0x0a) {
        this.linesBefore++;
        this.lineStart = this.offset + i + 1;
      }
    }
    this.offset += chunk.length;
  }
}

/** The streaming parser of a HAR file: each `log.entries[i]` becomes a RecordedExchange as it completes. */
class HarEntryParser {
  /** Exchanges completed by the chunks written so far, not yet taken. */
  readonly ready: RecordedExchange[] = [];
  failure: Error | undefined;
  sawVersion = false;
  entries = 0;
  private readonly parser = new JSONParser({ paths: ['$.log.entries.*', '$.log.version'], keepStack: false });

  constructor() {
    this.parser.onValue = ({ value, key }) => {
      if (this.failure) return;
      if (typeof key !== 'number') {
        this.sawVersion = true;
        return;
      }
      try {
        this.ready.push(fromHarEntry(value, this.entries++));
      } catch (err) {
        this.failure = err as Error;
      }
    };
    this.parser.onError = (err) => {
      this.failure ??= err;
    };
    this.parser.onEnd = () => undefined;
  }

  get ended(): boolean {
    return this.parser.isEnded;
  }

  write(chunk: Buffer): void {
    try {
      this.parser.write(chunk);
    } catch (err) {
      this.failure ??= err as Error;
    }
  }
}

/** The error of a HAR file that failed in `chunk`: a bad entry, or a syntax error at its line and column. */
function harInputError(filePath: string, har: HarEntryParser, chunk: Buffer, lines: LineCounter): RecordingInputError {
  const err = har.failure as Error;
  if (err instanceof RecordingEntryError) return new RecordingInputError(`${filePath}: ${err.message}`);
  const m = /chunk position "(\d+)"/.exec(err.message);
  const at = m ? `${lines.where(chunk, Number(m[1]))}: ` : '';
  const reason = err.message.replace(/ at chunk position "\d+" \(absolute position "\d+"\)/, '');
  return new RecordingInputError(`${filePath}: ${at}not valid JSON (after ${har.entries} entries): ${reason}`);
}

function withoutByteOrderMark(chunk: Buffer): Buffer {
  return chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf ? chunk.subarray(3) : chunk;
}

async function* readHar(filePath: string): AsyncGenerator<RecordedExchange> {
  const har = new HarEntryParser();
  const lines = new LineCounter();
  const input = createReadStream(filePath, { highWaterMark: 256 * 1024 });
  let first = true;
  try {
    for await (const data of input) {
      const chunk = first ? withoutByteOrderMark(data as Buffer) : (data as Buffer);
      first = false;
      har.write(chunk);
      if (har.failure) throw harInputError(filePath, har, chunk, lines);
      lines.count(chunk);
      // Hand over what this chunk completed before reading the next one: that is the backpressure.
      while (har.ready.length > 0) yield har.ready.shift() as RecordedExchange;
    }
    if (!har.ended) {
      throw new RecordingInputError(`${filePath}: not valid JSON: the file ends early (after ${har.entries} entries)`);
    }
    while (har.ready.length > 0) yield har.ready.shift() as RecordedExchange;
  } catch (err) {
    if (err instanceof RecordingInputError) throw err;
    throw new RecordingInputError(`${filePath}: cannot read the file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  } finally {
    input.destroy();
  }
  if (har.entries === 0) {
    throw new RecordingInputError(
      har.sawVersion
        ? `${filePath}: log.entries: the HAR file holds no entries`
        : `${filePath}: not a HAR file: no log.entries found (expected {"log":{"version":"1.2","entries":[...]}})`,
    );
  }
}
