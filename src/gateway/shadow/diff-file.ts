// SHADOW_DIFF_FILE: a sample of the shadow comparisons that differed, appended as JSONL, at most one line per
// legacy method per second and never past a size bound (lines past it are dropped, with one warning). Each
// line is a call the replay's JSONL reader takes (`request`, `response`: the served reply) with the shadow's
// own fields beside it (`shadow`: the method, the candidate's reply, the differences), so that
// `legacy-gateway replay <file> --shadow-pairs` renders the pairs as a report without sending anything. Nothing
// in a line is a secret: the path is redacted as a log line's is (secrets and lookup values such as an email
// masked), both replies and every difference value pass through the request's scrubber, and no header is
// written.
import { closeSync, createWriteStream, mkdirSync, openSync, statSync, type WriteStream } from 'node:fs';
import path from 'node:path';
import type { Difference } from '../../json-diff/json-diff.js';
import { stringifyExact, type JsonValue } from '../../shared/json-exact.js';
import { redactDifferenceValue, redactLogUrl } from '../../shared/redact.js';
import { ConfigError } from '../config.js';
import type { RequestContext } from '../edge/request-context.js';

export const DEFAULT_MAX_FILE_BYTES = 50 * 1024 * 1024;
export const LINE_INTERVAL_MS = 1000;
/** At most this many differences per line (the count is in `differenceCount`). */
const MAX_DIFFERENCES_PER_LINE = 50;

export interface ShadowDifferenceSample {
  method: string;
  ctx: RequestContext;
  served: string;
  candidate: string;
  differences: readonly Difference[];
}

export interface ShadowDiffFile {
  /** Appends the sample unless its method wrote a line within the last second or the file is full. */
  offer(sample: ShadowDifferenceSample): void;
  close(): Promise<void>;
}

export interface DiffFileOptions {
  maxBytes?: number;
  now?: () => number;
  onFull?: () => void;
  onError?: (err: Error) => void;
}

/** Its folder is created and the file must open for appending before the gateway listens (ConfigError). */
export function prepareShadowDiffFile(file: string): void {
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    closeSync(openSync(file, 'a'));
  } catch (err) {
    throw new ConfigError(`SHADOW_DIFF_FILE: cannot write ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

/** One line: the call as the replay's reader takes it, and the shadow's fields. */
export function shadowDiffLine(sample: ShadowDifferenceSample, at: Date): string {
  const { ctx } = sample;
  const scrubber = ctx.secrets.scrubber;
  const differences = sample.differences.slice(0, MAX_DIFFERENCES_PER_LINE).map((d) => ({
    path: d.path,
    kind: d.kind,
    ...(d.expected !== undefined ? { expected: redactDifferenceValue(d.path, d.expected, scrubber) } : {}),
    ...(d.actual !== undefined ? { actual: redactDifferenceValue(d.path, d.actual, scrubber) } : {}),
  }));
  const line = {
    time: at.toISOString(),
    request: { method: 'GET', url: redactLogUrl(ctx.request.url) },
    response: { status: 200, body: scrubber.scrub(sample.served) },
    shadow: {
      legacyMethod: sample.method,
      candidate: { status: 200, body: scrubber.scrub(sample.candidate) },
      differenceCount: sample.differences.length,
      differences,
    },
  };
  // Exact: a `format` difference (1 against 1.0) keeps both spellings.
  return `${stringifyExact(line as JsonValue)}\n`;
}

export function openShadowDiffFile(file: string, options: DiffFileOptions = {}): ShadowDiffFile {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_FILE_BYTES;
  const now = options.now ?? Date.now;
  let size = statSync(file, { throwIfNoEntry: false })?.size ?? 0;
  let full = false;
  const lastLine = new Map<string, number>();
  let stream: WriteStream | undefined;
  const out = (): WriteStream => {
    if (stream) return stream;
    stream = createWriteStream(file, { flags: 'a' });
    stream.on('error', (err) => options.onError?.(err));
    return stream;
  };
  return {
    offer(sample) {
      if (full) return;
      const at = now();
      const last = lastLine.get(sample.method);
      if (last !== undefined && at - last < LINE_INTERVAL_MS) return;
      const line = shadowDiffLine(sample, new Date(at));
      const bytes = Buffer.byteLength(line);
      if (size + bytes > maxBytes) {
        full = true;
        options.onFull?.();
        return;
      }
      lastLine.set(sample.method, at);
      size += bytes;
      out().write(line);
    },
    close() {
      const open = stream;
      if (!open) return Promise.resolve();
      return new Promise<void>((resolve) => open.end(() => resolve()));
    },
  };
}
