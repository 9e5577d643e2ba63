// RECORD_FILE: appends each legacy call and the gateway's reply to a JSONL file, one line per call:
// {"time","request":{method,url,headers,body},"response":{status,headers,body}}: the format
// `legacy-gateway replay` reads, so a staging run can be replayed and two runs compared. Secrets (keys,
// tokens, passwords, Authorization, Cookie) are redacted by src/shared/redact.ts, the same rules as every
// replay report: by name, then by value through the request's own scrubber (which also knows the key sent
// upstream, UPSTREAM_API_KEY when the call brought none). A JSON reply is embedded as JSON (numbers spelled
// as sent); any other reply as a string.
// The reply is not taken from the response: the step sets a copy on the call's context (edge/reply-copy.ts),
// every writer of a reply hands it what it writes, and the line is made in the call's after-work, from the
// copy and the response's status and headers. A call that is not recorded has no copy, and costs nothing.
// It must never throw into the request path or slow it down: failures are reported through
// onError, a failed file stops recording, and when the disk cannot keep up lines are dropped (and
// counted) rather than buffered without bound. All lines go through one append stream. The step records
// no call `legacy-gateway replay` sent (shared/replay-header.ts).
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import zlib from 'node:zlib';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { asJsonValue, parseJsonExact, stringifyExact, type JsonObject, type JsonValue } from '../../shared/json-exact.js';
import { redactHeaderRecord, redactJson, redactUrl, secretsOfRequest, type HeaderPair } from '../../shared/redact.js';
import { ReplyCopy } from '../edge/reply-copy.js';
import type { RequestContext } from '../edge/request-context.js';
import type { Step } from './step.js';

export interface Recorder {
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

function headerPairs(headers: Record<string, string | string[]>): HeaderPair[] {
  const out: HeaderPair[] = [];
  for (const [name, value] of Object.entries(headers)) {
    for (const v of Array.isArray(value) ? value : [value]) out.push([name, v]);
  }
  return out;
}

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

/** The request body as the route read it: the payment's fields, on the request's context. */
function requestBody(ctx: RequestContext): { json: JsonValue } | undefined {
  const body = ctx.bodyFields;
  if (body === undefined) return undefined;
  // An empty body of unstated length (a POST without one): nothing was sent.
  if (Object.keys(body).length === 0 && !ctx.req.headers['content-length']) return undefined;
  const json = asJsonValue(body);
  return json === undefined ? undefined : { json };
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

/** The JSONL line of one call and its reply, secrets redacted and scrubbed. */
function recordedLine(ctx: RequestContext, startedAt: Date, reply: ReplyCopy): string {
  const { req, res } = ctx;
  const reqHeaders = redactHeaderRecord(req.headers);
  const host = req.headers.host;
  const target = ctx.request.url;
  const protocol = (req.socket as TLSSocket).encrypted ? 'https' : 'http';
  const url = host ? `${protocol}://${host}${target}` : target;
  const body = requestBody(ctx);
  // Secrets carried by this request are scrubbed from the whole line, wherever they were echoed: with the
  // gateway's scrubber of the request, taught what the recorder sees of the request too.
  const scrubber = ctx.secrets.scrubber.add(
    ...secretsOfRequest({
      url: target,
      headers: headerPairs(rawHeaders(req)),
      bodyJson: body?.json,
    }),
  );
  const request: JsonObject = { method: req.method ?? 'GET', url: redactUrl(url), headers: reqHeaders };
  if (body !== undefined) request.body = redactJson(body.json);

  const response: JsonObject = { status: res.statusCode, headers: redactHeaderRecord(res.getHeaders()) };
  if (!reply.overflow) {
    const text = decodeBody(reply.bytes(), res.getHeader('content-encoding'));
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

  /** Starts recording one call: its writers hand its reply to the copy set here, and its line is appended
   * in its after-work, when the reply was written out in full before its response closed. */
  const startRecording = (ctx: RequestContext): void => {
    if (failed || closed) return;
    const startedAt = now();
    const reply = new ReplyCopy(maxBodyBytes);
    ctx.replyCopy = reply;
    ctx.afterWork.push(() => {
      if (!ctx.res.writableFinished) return;
      try {
        append(recordedLine(ctx, startedAt, reply));
      } catch (err) {
        report('record', err as Error);
      }
    });
  };

  return {
    step: {
      name: 'record',
      handle(ctx, next) {
        const { route, request } = ctx;
        // A replayed call is not recorded: replaying the file this gateway records into would grow it.
        if ((route.kind === 'read' || route.kind === 'payment') && !request.replayed) {
          try {
            startRecording(ctx);
          } catch (err) {
            report('setup', err as Error);
          }
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
