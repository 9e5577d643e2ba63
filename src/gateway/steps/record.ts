// RECORD_FILE: appends each legacy call and the gateway's reply to a JSONL file, one line per call:
// {"time","request":{method,url,headers,body},"response":{status,headers,body}}: the format
// `legacy-gateway replay` reads, so a staging run can be replayed and two runs compared. Secrets (keys,
// tokens, passwords, Authorization, Cookie) are redacted by src/shared/redact.ts, the same rules as every
// replay report: by name, then by value through the request's own scrubber (which also knows the key sent
// upstream, UPSTREAM_API_KEY when the call brought none). A JSON reply is embedded as JSON (numbers spelled
// as sent); any other reply as a string.
// It must never throw into the request path or slow it down: capture errors are reported through
// onError, a failed file stops recording, and when the disk cannot keep up lines are dropped (and
// counted) rather than buffered without bound. All lines go through one append stream. The step records
// no call `legacy-gateway replay` sent (shared/replay-header.ts).
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import zlib from 'node:zlib';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { asJsonValue, parseJsonExact, stringifyExact, type JsonObject, type JsonValue } from '../../shared/json-exact.js';
import {
  redactBodyText,
  redactHeaderRecord,
  redactJson,
  redactUrl,
  secretsOfRequest,
  SecretScrubber,
  type HeaderPair,
} from '../../shared/redact.js';
import type { RequestContext } from '../edge/request-context.js';
import type { Step } from './step.js';

export interface Recorder {
  /** Records every request it sees (Express middleware). */
  middleware: (req: IncomingMessage, res: ServerResponse, next: () => void) => void;
  /** The gateway's step: records the legacy calls (translated reads and payments), passes the rest on. */
  step: Step;
  /** Stops recording and flushes the file. */
  close(): Promise<void>;
}

export interface RecorderOptions {
  /** Told once per kind of failure (the file cannot be written, lines dropped). Default: a process warning. */
  onError?: (error: Error) => void;
  now?: () => Date;
  /** Replies larger than this are recorded without a body. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Lines are dropped while this much is waiting to be written. Default 16 MiB. */
  maxPendingBytes?: number;
}

type WriteArgs = [chunk?: unknown, encoding?: unknown, callback?: unknown];

function headerPairs(headers: Record<string, string | string[]>): HeaderPair[] {
  const out: HeaderPair[] = [];
  for (const [name, value] of Object.entries(headers)) {
    for (const v of Array.isArray(value) ? value : [value]) out.push([name, v]);
  }
  return out;
}

/** A request as the recorder reads it: the payment route leaves the fields it read in `body`; a router
 * mounted under a path keeps the whole target in `originalUrl` (Express sets it). */
type RecordedRequest = IncomingMessage & { body?: unknown; originalUrl?: string };

function rawHeaders(req: IncomingMessage): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(req.headers)) if (value !== undefined) out[name] = value;
  return out;
}

function decodeBody(body: Buffer, contentEncoding: unknown): string {
  const encoding = typeof contentEncoding === 'string' ? contentEncoding.trim().toLowerCase() : '';
  if (encoding === 'gzip' || encoding === 'x-gzip') return zlib.gunzipSync(body).toString('utf8');
  if (encoding === 'deflate') return zlib.inflateSync(body).toString('utf8');
  if (encoding === 'br') return zlib.brotliDecompressSync(body).toString('utf8');
  return body.toString('utf8');
}

/** The request body as the route read it (its fields, on the request's context), or as a host
 * application's express parser left it on `req.body` (the library mounted behind one). */
function requestBody(req: RecordedRequest, ctx: RequestContext | undefined): { json?: JsonValue; text?: string } | undefined {
  const body: unknown = ctx?.bodyFields ?? req.body;
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return { text: body };
  if (Buffer.isBuffer(body)) return { text: body.toString('utf8') };
  const json = asJsonValue(body);
  if (json === undefined) return undefined;
  // A bodyless GET still gets `{}` from some parsers: nothing was sent.
  if (typeof json === 'object' && !Array.isArray(json) && json !== null && Object.keys(json).length === 0 && !req.headers['content-length']) {
    return undefined;
  }
  return { json };
}

function replyBody(text: string, contentType: unknown): JsonValue {
  if (typeof contentType === 'string' && contentType.toLowerCase().includes('json')) {
    try {
      const value = parseJsonExact(text);
      // Only objects and arrays are embedded: a string read back from the file is taken as raw text.
      if (value !== null && typeof value === 'object') return redactJson(value);
    } catch {
      // not JSON after all: recorded as text
    }
  }
  return text;
}

/** Copies what the route writes into `res` (up to `maxBodyBytes`; past it only `overflow` is kept). */
function captureReply(res: ServerResponse, maxBodyBytes: number, onError: (err: Error) => void): { chunks: Buffer[]; overflow: boolean } {
  const captured = { chunks: [] as Buffer[], overflow: false };
  let size = 0;
  const capture = (chunk: unknown, encoding: unknown): void => {
    if (captured.overflow || chunk === undefined || chunk === null || typeof chunk === 'function') return;
    const buf =
      typeof chunk === 'string'
        ? Buffer.from(chunk, typeof encoding === 'string' && Buffer.isEncoding(encoding) ? encoding : 'utf8')
        : chunk instanceof Uint8Array
          ? Buffer.from(chunk)
          : undefined;
    if (!buf) return;
    size += buf.length;
    if (size > maxBodyBytes) {
      captured.overflow = true;
      captured.chunks.length = 0;
      return;
    }
    captured.chunks.push(buf);
  };
  const safely = (args: WriteArgs): void => {
    try {
      capture(args[0], args[1]);
    } catch (err) {
      onError(err as Error);
    }
  };
  const write = res.write as (...args: WriteArgs) => boolean;
  const end = res.end as (...args: WriteArgs) => ServerResponse;
  res.write = function (this: ServerResponse, ...args: WriteArgs): boolean {
    safely(args);
    return write.apply(this, args);
  } as ServerResponse['write'];
  res.end = function (this: ServerResponse, ...args: WriteArgs): ServerResponse {
    safely(args);
    return end.apply(this, args);
  } as ServerResponse['end'];
  return captured;
}

/** The JSONL line of one call and its reply, secrets redacted and scrubbed. */
function recordedLine(req: RecordedRequest, res: ServerResponse, ctx: RequestContext | undefined, startedAt: Date, chunks: Buffer[], overflow: boolean): string {
  const reqHeaders = redactHeaderRecord(req.headers);
  const host = req.headers.host;
  const target = req.originalUrl ?? req.url ?? '/';
  const protocol = (req.socket as TLSSocket).encrypted ? 'https' : 'http';
  const url = host ? `${protocol}://${host}${target}` : target;
  const body = requestBody(req, ctx);
  const contentType = req.headers['content-type'];
  // Secrets carried by this request are scrubbed from the whole line, wherever they were echoed: with the
  // gateway's scrubber of the request when it has one, taught what the recorder sees of the request too.
  const scrubber = (ctx?.secrets.scrubber ?? new SecretScrubber()).add(
    ...secretsOfRequest({
      url: target,
      headers: headerPairs(rawHeaders(req)),
      bodyText: body?.text,
      bodyJson: body?.json,
    }),
  );
  const request: JsonObject = { method: req.method ?? 'GET', url: redactUrl(url), headers: reqHeaders };
  if (body?.json !== undefined) request.body = redactJson(body.json);
  else if (body?.text !== undefined) request.body = redactBodyText(body.text, contentType);

  const response: JsonObject = { status: res.statusCode, headers: redactHeaderRecord(res.getHeaders()) };
  if (!overflow) {
    const text = decodeBody(Buffer.concat(chunks), res.getHeader('content-encoding'));
    response.body = replyBody(text, res.getHeader('content-type'));
  }
  const line: JsonObject = { time: startedAt.toISOString(), request, response };
  return stringifyExact(scrubber.scrubJson(line)) + '\n';
}


export function createRecorder(filePath: string, options: RecorderOptions = {}): Recorder {
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  const maxPendingBytes = options.maxPendingBytes ?? 16 * 1024 * 1024;
  const now = options.now ?? (() => new Date());
  const reported = new Set<string>();
  const report = (kind: string, error: Error): void => {
    if (reported.has(kind)) return;
    reported.add(kind);
    try {
      (options.onError ?? ((e: Error) => process.emitWarning(`RECORD_FILE: ${e.message}`)))(error);
    } catch {
      // A failing error handler must not reach the request either.
    }
  };

  let failed = false;
  let closed = false;
  let dropped = 0;
  const stream = createWriteStream(filePath, { flags: 'a' });
  stream.on('error', (err) => {
    failed = true;
    report('write', new Error(`cannot write ${filePath}: ${err.message}; recording stopped`));
  });

  const append = (line: string): void => {
    if (failed || closed) return;
    if (stream.writableLength > maxPendingBytes) {
      dropped++;
      report('dropped', new Error(`the disk does not keep up; dropping lines (first of them now, ${dropped} so far)`));
      return;
    }
    stream.write(line);
  };

  /** Starts recording one call: its reply is captured as it is written, and `atEnd` is handed what appends
   * its line once the reply was written out in full. */
  const startRecording = (req: RecordedRequest, res: ServerResponse, ctx: RequestContext | undefined, atEnd: (record: () => void) => void): void => {
    try {
      if (failed || closed) return;
      const startedAt = now();
      const reply = captureReply(res, maxBodyBytes, (err) => report('capture', err));
      atEnd(() => {
        try {
          append(recordedLine(req, res, ctx, startedAt, reply.chunks, reply.overflow));
        } catch (err) {
          report('record', err as Error);
        }
      });
    } catch (err) {
      report('setup', err as Error);
    }
  };

  const middleware = (req: RecordedRequest, res: ServerResponse, next: () => void): void => {
    startRecording(req, res, undefined, (record) => res.once('finish', record));
    next();
  };

  return {
    middleware,
    step: {
      name: 'record',
      handle(ctx, next) {
        const { route, request, res } = ctx;
        // Recorded in the request's after-work, when the reply was written out in full before its response closed.
        // A replayed call is not recorded: replaying the file this gateway records into would grow it.
        if ((route.kind === 'read' || route.kind === 'payment') && !request.replayed) {
          startRecording(ctx.req, res, ctx, (record) =>
            ctx.afterWork.push(() => {
              if (res.writableFinished) record();
            }),
          );
        }
        next();
      },
    },
    async close() {
      if (closed) return;
      closed = true;
      if (stream.destroyed) return;
      stream.end();
      await once(stream, 'close').catch(() => undefined);
    },
  };
}
