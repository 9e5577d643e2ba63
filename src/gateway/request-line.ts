// The one log line per request, written when its response closes (its reply handed to the connection, or
// the connection gone first), as the request's after-work: the request's id, method and redacted URL, the status, the time taken, and what the
// gateway learnt on the way (legacy method, the caller's integration by name, upstream calls, cache hits, payment code, error code).
//
// Its level: info for a success, warn for a refusal, error for a fault. A refusal the gateway gives by
// design is a warning whatever its 5xx status: a payment repeat the Idempotency-Key store answers itself
// (code 8: 502 outcome unknown, 503 store unavailable), an operator file left unset (501). It is told from
// what the request already notes (status, the route's mark, the error code), never from a message: v1
// unreachable and a fault of the gateway stay errors. Only a line with an error object (a fault inside the
// gateway, noted on the request's context as `error` by the error writer or the payment route, or the
// response's own error, which the edge notes there too) carries a stack.
//
// Every request writes one, so it is written the cheap way: its fields' JSON, put between the level prefix,
// timestamp and bindings pino itself writes and the message, and handed to the logger's own destination
// (test/unit/gateway/request-line.test.ts holds the line equal to pino's own), with no per-request child
// logger and no walk of a line object. A line with an error object goes through pino, whose error
// serializer writes the error's type, message, stack and causes, every string scrubbed of the request's
// secrets first.
import { pino, type Logger } from 'pino';
import type { ErrorCode } from '../shared/errors.js';
import { redactLogUrl } from '../shared/redact.js';
import type { RequestContext } from './edge/request-context.js';
import { scrubbedError } from './logging.js';

/** Arms the line of one request: it is written once, when the request ends. */
export type RequestLine = (ctx: RequestContext) => void;

type LineLevel = 'info' | 'warn' | 'error';

/** Gateway errors (by stable code) that answer a 5xx by design, not because anything failed. */
const EXPECTED_ERROR_CODES: ReadonlySet<string> = new Set<ErrorCode>(['LGW_NOT_CONFIGURED']);

/** Whether a 5xx reply is a refusal the gateway gives by design rather than a fault: its line is then a
 * warning. The route that refused says so (`refusedByDesign`, `errorCode`). */
function isExpectedRefusal(ctx: RequestContext): boolean {
  if (ctx.res.statusCode < 500 || ctx.error !== undefined) return false;
  if (ctx.refusedByDesign) return true;
  return ctx.errorCode !== undefined && EXPECTED_ERROR_CODES.has(ctx.errorCode);
}

function levelOf(ctx: RequestContext, err: unknown): LineLevel {
  if (err !== undefined) return 'error';
  const status = ctx.res.statusCode;
  if (status >= 500) return isExpectedRefusal(ctx) ? 'warn' : 'error';
  return status >= 400 ? 'warn' : 'info';
}

const messageOf = (level: LineLevel): string => (level === 'error' ? 'request failed' : 'request completed');

/** What pino keeps of a logger and writes at the start and the end of each of its lines. */
interface LineForm {
  write(text: string): void;
  /** `{"level":30` for each level. */
  levelPrefix: Record<number, string>;
  /** `,"time":...` */
  time(): string;
  /** The logger's bindings, `,"service":"legacy-gateway"`. */
  bindings: string;
  /** `}` and the line's end. */
  end: string;
}

type PinoInternals = Record<symbol, unknown>;

/** The logger's line form, or undefined when its destination wants more than the text of each line (a
 * multistream reads each line's level from the logger): every line then goes through pino. */
function lineFormOf(logger: Logger): LineForm | undefined {
  const own = logger as unknown as PinoInternals;
  const stream = own[pino.symbols.streamSym] as { write(text: string): unknown } & PinoInternals;
  if (stream[Symbol.for('pino.metadata')] === true) return undefined;
  return {
    write: (text) => stream.write(text),
    levelPrefix: own[pino.symbols.lsCacheSym] as Record<number, string>,
    time: own[pino.symbols.timeSym] as () => string,
    bindings: own[pino.symbols.chindingsSym] as string,
    end: own[pino.symbols.endSym] as string,
  };
}

/** The line's fields, in the order they are written; `undefined` ones are left out (by pino, and by
 * JSON.stringify, which writes them as pino does). The error, scrubbed, after the status. */
function lineFields(ctx: RequestContext, responseTime: number, err: unknown): Record<string, unknown> {
  const req = ctx.req;
  return {
    req: { id: ctx.requestId, method: req.method, url: redactLogUrl(req.url ?? '') },
    res: { statusCode: ctx.res.statusCode },
    err: err === undefined ? undefined : scrubbedError(err, ctx.secrets.scrubber),
    responseTime,
    legacyMethod: ctx.label,
    integration: ctx.integration,
    upstreamCalls: ctx.upstream,
    cacheHits: ctx.cacheHits,
    paymentCode: ctx.paymentCode,
    errorCode: ctx.errorCode,
  };
}

export function createRequestLine(logger: Logger): RequestLine {
  // Without the redact paths: the line holds no secret (the URL is redacted, no header is logged, an error
  // is scrubbed) and names no secret path, while the paths would be walked on every line.
  const lineLogger = logger.child({}, { redact: [] });
  const form = lineFormOf(lineLogger);

  function write(ctx: RequestContext, started: number): void {
    const err = ctx.error;
    const level = levelOf(ctx, err);
    if (!lineLogger.isLevelEnabled(level)) return;
    const fields = lineFields(ctx, Date.now() - started, err);
    if (err === undefined && form !== undefined) {
      // The fields' JSON without its braces: what pino writes between the bindings and the message.
      const text = JSON.stringify(fields);
      const number = lineLogger.levels.values[level]!;
      form.write(`${form.levelPrefix[number]}${form.time()}${form.bindings},${text.slice(1, -1)},"msg":"${messageOf(level)}"${form.end}`);
      return;
    }
    lineLogger[level](fields, messageOf(level));
  }

  // Written by the request's after-work, when its response closes (edge/request-context.ts runs it once).
  return (ctx) => {
    const started = Date.now();
    ctx.afterWork.push(() => write(ctx, started));
  };
}
