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
import { JsonSyntaxError, parseJsonExact } from '../shared/json-exact.js';
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

async function* readHar(filePath: string): AsyncGenerator<RecordedExchange> {
  const parser = new JSONParser({ paths: ['$.log.entries.*', '$.log.version'], keepStack: false });
  const ready: RecordedExchange[] = [];
  let failure: Error | undefined;
  let sawVersion = false;
  let index = 0;
  parser.onValue = ({ value, key }) => {
    if (failure) return;
    if (typeof key !== 'number') {
      sawVersion = true;
      return;
    }
    try {
      ready.push(fromHarEntry(value, index++));
    } catch (err) {
      failure = err as Error;
    }
  };
  parser.onError = (err) => {
    failure ??= err;
  };
  parser.onEnd = () => undefined;

  const input = createReadStream(filePath, { highWaterMark: 256 * 1024 });
  // Line accounting for syntax error messages: newlines in the chunks already parsed.
  let linesBefore = 0;
  let lastLineStart = 0; // absolute byte offset where the current line starts
  let offset = 0;
  let first = true;
  const where = (chunk: Buffer, chunkPos: number): string => {
    let line = linesBefore;
    let lineStart = lastLineStart;
    for (let i = 0; i < chunkPos && i < chunk.length; i++) {
      if (chunk[i] === 0x0a) {
        line++;
        lineStart = offset + i + 1;
      }
    }
    return `line ${line + 1}, column ${offset + chunkPos - lineStart + 1}`;
  };
  const fail = (chunk: Buffer | undefined): never => {
    const err = failure as Error;
    if (err instanceof RecordingEntryError) throw new RecordingInputError(`${filePath}: ${err.message}`);
    const m = /chunk position "(\d+)"/.exec(err.message);
    const at = m && chunk ? `${where(chunk, Number(m[1]))}: ` : '';
    const reason = err.message.replace(/ at chunk position "\d+" \(absolute position "\d+"\)/, '');
    throw new RecordingInputError(`${filePath}: ${at}not valid JSON (after ${index} entries): ${reason}`);
  };
  try {
    for await (const data of input) {
      let chunk = data as Buffer;
      if (first) {
        first = false;
        if (chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) chunk = chunk.subarray(3);
      }
      try {
        parser.write(chunk);
      } catch (err) {
        failure ??= err as Error;
      }
      if (failure) fail(chunk);
      for (let i = 0; i < chunk.length; i++) {
        if (chunk[i] === 0x0a) {
          linesBefore++;
          lastLineStart = offset + i + 1;
        }
      }
      offset += chunk.length;
      // Hand over what this chunk completed before reading the next one: that is the backpressure.
      while (ready.length > 0) yield ready.shift() as RecordedExchange;
    }
    if (!parser.isEnded) {
      throw new RecordingInputError(`${filePath}: not valid JSON: the file ends early (after ${index} entries)`);
    }
    while (ready.length > 0) yield ready.shift() as RecordedExchange;
  } catch (err) {
    if (err instanceof RecordingInputError) throw err;
    throw new RecordingInputError(`${filePath}: cannot read the file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  } finally {
    input.destroy();
  }
  if (index === 0) {
    throw new RecordingInputError(
      sawVersion
        ? `${filePath}: log.entries: the HAR file holds no entries`
        : `${filePath}: not a HAR file: no log.entries found (expected {"log":{"version":"1.2","entries":[...]}})`,
    );
  }
}
