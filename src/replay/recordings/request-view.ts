// The recorded request as the reports show it beside a differing or failed entry: the body the replay
// sends (encoded as request-builder encodes it), its content type, and whether the call carried its key in
// the X-API-KEY header. The method and URL are the entry's own.
// Pure: must never do I/O. The view holds recorded values (a card token, a password) until
// redactRequestView has been through it; nothing shows a view that did not.
import type { JsonObject } from '../../shared/json-exact.js';
import { redactBodyText, type SecretScrubber } from '../../shared/redact.js';
import type { RecordedExchange } from './recording.js';
import { buildReplayRequest } from '../run/request-builder.js';

export interface RequestView {
  contentType?: string;
  /** The body as sent; absent without one, or when it is longer than MAX_REQUEST_BODY_CHARS. */
  body?: string;
  /** The length of a body left out for its size. */
  bodyChars?: number;
  /** The recorded call sent its key in the X-API-KEY header (its value is never kept). */
  apiKeyHeader?: boolean;
}

/** Legacy request bodies are small forms (a payment is limited to 256 KB). */
export const MAX_REQUEST_BODY_CHARS = 64 * 1024;

/** Any origin: only the body and headers the builder makes are read. */
const BUILD_ORIGIN = 'http://replay.invalid';

export function requestView(recorded: RecordedExchange['request']): RequestView {
  // No key: the builder then adds none, and the body is the recorded one, encoded as the replay sends it.
  const built = buildReplayRequest(recorded, { baseUrl: BUILD_ORIGIN, apiKey: undefined });
  const view: RequestView = {};
  const contentType = built.headers['content-type'];
  if (contentType !== undefined) view.contentType = contentType;
  if (built.body !== undefined && built.body !== '') {
    if (built.body.length > MAX_REQUEST_BODY_CHARS) view.bodyChars = built.body.length;
    else view.body = built.body;
  }
  if (recorded.headers.some(([name]) => name.toLowerCase() === 'x-api-key')) view.apiKeyHeader = true;
  return view;
}

/** Secret fields of the body by name (form, multipart, JSON), then every secret value of the recording. */
export function redactRequestView(view: RequestView, scrubber: SecretScrubber): RequestView {
  const out: RequestView = { ...view };
  if (view.contentType !== undefined) out.contentType = scrubber.scrub(view.contentType);
  if (view.body !== undefined) out.body = scrubber.scrub(redactBodyText(view.body, view.contentType));
  return out;
}

/** The JSON report's `request`. */
export function requestViewJson(view: RequestView): JsonObject {
  const out: JsonObject = {};
  if (view.contentType !== undefined) out.contentType = view.contentType;
  if (view.apiKeyHeader === true) out.apiKeyHeader = true;
  if (view.body !== undefined) out.body = view.body;
  if (view.bodyChars !== undefined) out.bodyChars = view.bodyChars;
  return out;
}
