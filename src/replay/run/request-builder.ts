// Builds the request the replay sends for one recorded call: the recorded path and query on the target's
// scheme and host, the recorded headers minus hop-by-hop, conditional and credential headers, the
// recorded body. Recorded API keys (`X-API-KEY`, `api_key=`) are replaced by the replay's key, or removed
// when it has none: a key from a recording is never reused silently. Cookies and Authorization are
// dropped for the same reason. Every call says it is replayed (`Legacy-Gateway-Replay: 1`).
// Pure: must never do I/O; it keeps the recorded path and query byte for byte (no URL re-serialisation).
import { isJsonObject, numberSpelling, NumberLiteral, stringifyExact, type JsonValue } from '../../shared/json-exact.js';
import { decodeFormComponent } from '../../shared/redact.js';
import { REPLAY_HEADER, REPLAY_HEADER_VALUE } from '../../shared/replay-header.js';
import { multipartFormBody } from './multipart-body.js';
import type { RecordedExchange } from '../recordings/recording.js';

export interface ReplayRequest {
  method: string;
  /** Absolute URL on the target. */
  url: string;
  headers: Record<string, string>;
  body: string | undefined;
}

const DROPPED_HEADERS = new Set([
  // hop-by-hop (RFC 9110 7.6.1) and framing, recomputed by the client
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'host',
  'content-length',
  // the reply must come back uncompressed and whole to be compared
  'accept-encoding',
  'if-none-match',
  'if-modified-since',
  'if-match',
  'if-unmodified-since',
  'if-range',
  'range',
  // credentials from the recording are never replayed
  'x-api-key',
  'authorization',
  'proxy-authorization',
  'cookie',
]);

/** Path and query of a recorded URL, as recorded (fragment dropped). */
export function recordedPathAndQuery(url: string): string {
  const withoutOrigin = url.startsWith('/') ? url : url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '');
  const noFragment = withoutOrigin.split('#', 1)[0] ?? '';
  if (noFragment === '') return '/';
  return noFragment.startsWith('?') ? '/' + noFragment : noFragment;
}

/** Replaces (or, without a key, removes) every `api_key` query parameter. Reports whether there was one. */
export function replaceQueryKey(pathAndQuery: string, apiKey: string | undefined): { pathAndQuery: string; hadKey: boolean } {
  const q = pathAndQuery.indexOf('?');
  if (q < 0) return { pathAndQuery, hadKey: false };
  let hadKey = false;
  const parts: string[] = [];
  for (const part of pathAndQuery.slice(q + 1).split('&')) {
    const eq = part.indexOf('=');
    const name = eq < 0 ? part : part.slice(0, eq);
    if (decodeFormComponent(name).toLowerCase() === 'api_key') {
      hadKey = true;
      if (apiKey !== undefined) parts.push(`${name}=${encodeURIComponent(apiKey)}`);
    } else {
      parts.push(part);
    }
  }
  const query = parts.join('&');
  return { pathAndQuery: pathAndQuery.slice(0, q) + (query === '' ? '' : '?' + query), hadKey };
}

export function buildReplayRequest(
  recorded: RecordedExchange['request'],
  target: { baseUrl: string; apiKey: string | undefined },
): ReplayRequest {
  const base = new URL(target.baseUrl);
  const basePath = base.pathname.replace(/\/+$/, '');
  const { pathAndQuery, hadKey } = replaceQueryKey(recordedPathAndQuery(recorded.url), target.apiKey);

  const connectionListed = new Set<string>();
  for (const [name, value] of recorded.headers) {
    if (name.toLowerCase() === 'connection') {
      for (const token of value.split(',')) connectionListed.add(token.trim().toLowerCase());
    }
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of recorded.headers) {
    const lower = name.toLowerCase();
    if (lower.startsWith(':') || DROPPED_HEADERS.has(lower) || connectionListed.has(lower)) continue;
    headers[lower] = headers[lower] === undefined ? value : `${headers[lower]}, ${value}`;
  }
  // A call that carried its key in the query keeps it there (the gateway supports both); else the header.
  if (target.apiKey !== undefined && !hadKey) headers['x-api-key'] = target.apiKey;
  // The gateway neither records nor counts a replayed call (shared/replay-header.ts).
  headers[REPLAY_HEADER] = REPLAY_HEADER_VALUE;

  let body: string | undefined;
  const method = recorded.method.toUpperCase();
  if (method !== 'GET' && method !== 'HEAD' && recorded.body !== undefined) {
    switch (recorded.body.kind) {
      case 'text':
        body = recorded.body.text;
        break;
      case 'json': {
        // The recorder stores a parsed form body as an object: send it back in the form it came in.
        const type = (headers['content-type'] ?? '').toLowerCase();
        const fields = formFieldsOf(recorded.body.value);
        if (fields && type.includes('multipart/form-data')) {
          // The recorded boundary went with the recorded bytes: the fields are encoded afresh, with a new one.
          ({ body, contentType: headers['content-type'] } = multipartFormBody(fields));
        } else if (fields && type.includes('x-www-form-urlencoded')) {
          body = new URLSearchParams(fields).toString();
        } else {
          body = stringifyExact(recorded.body.value);
          headers['content-type'] ??= 'application/json';
        }
        break;
      }
      case 'form': {
        const fields = recorded.body.fields.map(([n, v]): [string, string] => [n, v]);
        if ((headers['content-type'] ?? '').toLowerCase().includes('multipart/form-data')) {
          ({ body, contentType: headers['content-type'] } = multipartFormBody(fields));
        } else {
          body = new URLSearchParams(fields).toString();
          headers['content-type'] ??= 'application/x-www-form-urlencoded';
        }
        break;
      }
    }
  }
  return { method, url: `${base.origin}${basePath}${pathAndQuery}`, headers, body };
}

/** A flat object of scalars (or lists of scalars) as form fields; undefined when it is not one. */
function formFieldsOf(value: JsonValue): Array<[string, string]> | undefined {
  if (!isJsonObject(value)) return undefined;
  const fields: Array<[string, string]> = [];
  const scalar = (v: JsonValue): string | undefined => {
    if (typeof v === 'string') return v;
    if (typeof v === 'number' || v instanceof NumberLiteral) return numberSpelling(v);
    if (typeof v === 'boolean') return v ? '1' : '0';
    if (v === null) return '';
    return undefined;
  };
  for (const [name, v] of Object.entries(value)) {
    for (const item of Array.isArray(v) ? v : [v]) {
      const text = scalar(item);
      if (text === undefined) return undefined;
      fields.push([name, text]);
    }
  }
  return fields;
}
