// A gateway logger whose lines a test reads back: each kept as written and parsed.
import { Writable } from 'node:stream';
import type { Logger } from 'pino';
import { createLogger } from '../../src/gateway/logging.js';

export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

/** A logger at `level` (debug by default) whose lines are kept, parsed and raw. */
export function capturedLogger(level: 'debug' | 'info' = 'debug'): { logger: Logger; lines: LogLine[]; raw: string[] } {
  const lines: LogLine[] = [];
  const raw: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n').filter((l) => l !== '')) {
        raw.push(line);
        lines.push(JSON.parse(line) as LogLine);
      }
      done();
    },
  });
  return { logger: createLogger(level, sink), lines, raw };
}
