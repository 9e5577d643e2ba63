// The copy-as-curl line of a recorded call, built from the redacted entry only: the recorded path and query
// on the run's target (as the replay sent it; the recorded URL as is when there is none), the method, the
// content type and the body as the replay sends it. The key is never in it: an `api_key`
// parameter and the X-API-KEY header read the shell variable LEGACY_API_KEY instead, and every other
// secret stays the redaction marker.
// Pure: must never do I/O.
import { REDACTED } from '../../../shared/redact.js';
import type { RequestView } from '../../recordings/request-view.js';
import { recordedPathAndQuery } from '../../run/request-builder.js';

/** The shell variable the line reads the key from. */
export const KEY_VARIABLE = 'LEGACY_API_KEY';

/** A shell word in single quotes (a `'` inside closes, escapes and reopens them). */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Redacted `api_key` values, whatever the spelling of the name. */
const REDACTED_KEY = new RegExp(`((?:^|[?&])api_key=)${REDACTED.replace(/[[\]]/g, '\\$&')}`, 'gi');

/** The URL quoted, with each redacted `api_key` value replaced by the variable (outside the quotes). */
function urlWord(url: string): string {
  let word = '';
  let last = 0;
  for (const m of url.matchAll(REDACTED_KEY)) {
    const valueAt = m.index + (m[1] as string).length;
    word += `${shellQuote(url.slice(last, valueAt))}"$${KEY_VARIABLE}"`;
    last = m.index + m[0].length;
  }
  const rest = url.slice(last);
  return rest !== '' || word === '' ? word + shellQuote(rest) : word;
}

/** The recorded path and query on `base` (its path a prefix), as the replay sends a call. */
export function onTarget(url: string, base: string): string {
  return `${base.replace(/\/+$/, '')}${recordedPathAndQuery(url)}`;
}

/** `base`: the target's URL (credentials removed); undefined keeps the recorded URL. */
export function curlLine(method: string, url: string, request: RequestView | undefined, base?: string): string {
  const words = ['curl', '-sS'];
  const upper = method.toUpperCase();
  if (upper !== 'GET' || request?.body !== undefined) words.push('-X', /^[A-Z]+$/.test(upper) ? upper : shellQuote(upper));
  words.push(urlWord(base === undefined ? url : onTarget(url, base)));
  if (request?.apiKeyHeader === true) words.push('-H', `"X-API-KEY: $${KEY_VARIABLE}"`);
  if (request?.contentType !== undefined) words.push('-H', shellQuote(`Content-Type: ${request.contentType}`));
  if (request?.body !== undefined) words.push('--data-binary', shellQuote(request.body));
  return words.join(' ');
}
