// The gateway's logger and its one-line-per-request HTTP log (pino-http).
// A log line never holds a key, token or password, nor the e-mail address, username or name a lookup URL
// carries (`/api/client?email=...`): URLs are redacted, request headers are not logged,
// and pino's redact paths catch the secret names should anything log a whole object by mistake. An error
// object written on a request's line (its message, its causes, its stack may hold text v1 sent back) goes
// through the request's scrubber first.
// Its level: info for a success, warn for a refusal, error for a fault. A refusal the gateway gives by
// design is a warning (without an error object, so without a stack) whatever its 5xx status: a payment
// repeat the Idempotency-Key store answers itself (code 8: 502 outcome unknown, 503 store unavailable), an
// operator file left unset (501). It is told from what the request already notes (status, payment code,
// v1 calls, error code), never from a message: v1 unreachable and a fault of the gateway stay errors.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pino, stdSerializers, type Logger, type DestinationStream } from 'pino';
import { pinoHttp, type HttpLogger } from 'pino-http';
import { maybeContextOf } from './edge/request-context.js';
import { requestIdOf } from './edge/request-id.js';
import type { ErrorCode } from '../shared/errors.js';
import { asJsonValue, isJsonObject, type JsonValue } from '../shared/json-exact.js';
import { redactLogUrl, type SecretScrubber } from '../shared/redact.js';

// Exact paths only: wildcard paths make pino walk every object of every line, and the one request line
// (most of the gateway's CPU under load) is built from serializers that hold no secret in the first place.
const SECRET_PATHS = [
  'apiKey',
  'api_key',
  'token',
  'password',
  'password2',
  'headers["x-api-key"]',
  'headers.authorization',
  'headers.cookie',
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'fields.token',
  'fields.password',
  'fields.password2',
  'body.token',
  'body.password',
  'body.password2',
];

export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = { level, base: { service: 'legacy-gateway' }, redact: { paths: SECRET_PATHS, censor: '[REDACTED]' } };
  return destination ? pino(options, destination) : pino(options);
}

/** Adds what the gateway learnt about the request to pino-http's line object (built afresh for each line,
 * so it is filled in place rather than copied). */
function withRequestFacts(req: IncomingMessage, line: object): object {
  const ctx = maybeContextOf(req);
  if (!ctx) return line;
  return Object.assign(line, { legacyMethod: ctx.label, upstreamCalls: ctx.upstream, cacheHits: ctx.cacheHits, paymentCode: ctx.paymentCode, errorCode: ctx.errorCode });
}

/**
 * An error as pino would write it (type, message and stack with their causes, own fields), every string
 * scrubbed. It is still an error of the same class, so pino's serializer writes it the same way.
 */
export function scrubbedError(err: unknown, scrubber: SecretScrubber): unknown {
  if (!(err instanceof Error)) return scrubber.scrubJson(asJson(err) ?? String(err));
  const scrubbed = scrubber.scrubJson(asJson(stdSerializers.err(err)) ?? { message: err.message, stack: err.stack ?? '' });
  const safe = Object.create(Object.getPrototypeOf(err) as object) as Error;
  if (isJsonObject(scrubbed)) {
    for (const [key, value] of Object.entries(scrubbed)) {
      if (key === 'type' || key === '__proto__') continue;
      Object.defineProperty(safe, key, { value, enumerable: key !== 'message' && key !== 'stack', writable: true, configurable: true });
    }
  }
  return safe;
}

/** A value as the JSON a log line would hold of it; undefined when it has none. */
function asJson(value: unknown): JsonValue | undefined {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? undefined : asJsonValue(JSON.parse(text));
  } catch {
    return undefined;
  }
}

/** pino-http's own stand-in for a 5xx reply that carried no error: its text is pino-http's, not v1's. */
function isStatusOnlyError(res: ServerResponse, err: Error): boolean {
  return (res as ServerResponse & { err?: unknown }).err === undefined && err.message === `failed with status code ${res.statusCode}`;
}

/** The line's error object, scrubbed of the request's secrets (a line for a request without context
 * was refused before any v1 call). */
function withScrubbedError(req: IncomingMessage, res: ServerResponse, err: Error, line: object): object {
  const ctx = maybeContextOf(req);
  if (!ctx || isStatusOnlyError(res, err)) return line;
  return Object.assign(line, { err: scrubbedError(err, ctx.secrets.scrubber) });
}

/** Gateway errors (by stable code) that answer a 5xx by design, not because anything failed. */
const EXPECTED_ERROR_CODES: ReadonlySet<string> = new Set<ErrorCode>(['LGW_NOT_CONFIGURED']);
/** Whether a 5xx reply is a refusal the gateway gives by design rather than a fault: its line is then a
 * warning without an error object. The route that refused says so (`refusedByDesign`, `errorCode`). */
export function isExpectedRefusal(req: IncomingMessage, res: ServerResponse): boolean {
  if (res.statusCode < 500 || (res as ServerResponse & { err?: unknown }).err !== undefined) return false;
  const ctx = maybeContextOf(req);
  if (!ctx) return false;
  if (ctx.refusedByDesign) return true;
  return ctx.errorCode !== undefined && EXPECTED_ERROR_CODES.has(ctx.errorCode);
}

/** Whether a line is an expected refusal's: its error, if any, only pino-http's stand-in for a 5xx status. */
function isRefusalLine(req: IncomingMessage, res: ServerResponse, err: Error | undefined): boolean {
  return (err === undefined || isStatusOnlyError(res, err)) && isExpectedRefusal(req, res);
}

/** The line of an expected refusal carries no error object (pino-http adds one, with a stack, to any 5xx). */
function withoutError(line: object): object {
  delete (line as { err?: unknown }).err;
  return line;
}

export function createHttpLogger(logger: Logger): HttpLogger {
  return pinoHttp({
    // Without the redact paths: the request line is built only from the serializers below and the request's
    // facts, none of which holds a secret or names a secret path (the URL is redacted, no header is logged,
    // an error is scrubbed), while the paths would be walked on every line and every request's bindings.
    logger: logger.child({}, { redact: [] }),
    // No per-request child logger beyond the one pino-http always makes (routes log through the gateway's
    // logger): a second child per request would add a large share of pino-http's own cost to every request,
    // for bindings no route reads. The id is `req.id`.
    quietReqLogger: false,
    wrapSerializers: false,
    // The id the edge gave the request (edge/request-id.ts); made here only for a request no edge saw.
    genReqId(req: IncomingMessage, res: ServerResponse) {
      const made = maybeContextOf(req)?.requestId;
      if (made !== undefined && made !== 'unknown') return made;
      const id = requestIdOf(req.headers);
      res.setHeader('x-request-id', id);
      return id;
    },
    serializers: {
      req: (req: IncomingMessage & { id?: unknown }) => ({ id: req.id, method: req.method, url: redactLogUrl(req.url ?? '') }),
      res: (res: ServerResponse) => ({ statusCode: res.statusCode }),
    },
    // Added to the final line only (customProps would also bind them, empty, when the request starts).
    customSuccessObject: (req, _res, line: object) => withRequestFacts(req, line),
    customErrorObject: (req, res, err, line: object) =>
      withRequestFacts(req, isRefusalLine(req, res, err) ? withoutError(line) : withScrubbedError(req, res, err, line)),
    customLogLevel(req, res, err) {
      if (err || res.statusCode >= 500) return isRefusalLine(req, res, err) ? 'warn' : 'error';
      return res.statusCode >= 400 ? 'warn' : 'info';
    },
    customSuccessMessage: () => 'request completed',
    // An expected refusal reads as every other refusal (a 4xx) does.
    customErrorMessage: (req, res, err) => (isRefusalLine(req, res, err) ? 'request completed' : 'request failed'),
  });
}
