// The gateway's logger (pino; the one line per request is request-line.ts).
// A log line never holds a key, token or password, nor the e-mail address, username or name a lookup URL
// carries (`/api/client?email=...`): URLs are redacted, request headers are not logged,
// and pino's redact paths catch the secret names should anything log a whole object by mistake. An error
// object written on a line (its message, its causes, its stack may hold text v1 sent back) goes through
// the request's scrubber first (scrubbedError).
import { pino, stdSerializers, type Logger, type DestinationStream } from 'pino';
import { asJsonValue, isJsonObject, type JsonValue } from '../shared/json-exact.js';
import type { SecretScrubber } from '../shared/redact.js';

// Exact paths only: wildcard paths make pino walk every object of every line. The one request line
// (request-line.ts) holds no secret in the first place and is written without them.
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
  // Standard output, one write per line as it is logged (pino's own default writes through the thread pool,
  // gathering the lines that come meanwhile): no line waits in memory for a crash to lose, no thread hop per
  // line, and a log reader that stops reading slows the gateway down instead of filling its memory.
  return pino(options, destination ?? pino.destination({ dest: 1, sync: true }));
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
