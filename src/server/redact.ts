// Removes secrets from what the gateway writes about a request: URLs in log lines.
// Names are compared case-insensitively; values are replaced, never shortened or hashed.

/** Query parameters and body fields that are secrets wherever they appear. */
export const SECRET_NAMES: ReadonlySet<string> = new Set(['api_key', 'token', 'password', 'password2', 'x-api-key']);
export const REDACTED = '[REDACTED]';

/** The URL with the value of every secret query parameter replaced; the rest byte for byte. */
export function redactUrl(url: string | undefined): string {
  if (url === undefined) return '';
  const q = url.indexOf('?');
  if (q < 0) return url;
  const parts = url.slice(q + 1).split('&').map((pair) => {
    const eq = pair.indexOf('=');
    const rawName = eq < 0 ? pair : pair.slice(0, eq);
    let name: string;
    try {
      name = decodeURIComponent(rawName.replace(/\+/g, ' ')).toLowerCase();
    } catch {
      name = rawName.toLowerCase();
    }
    return SECRET_NAMES.has(name) && eq >= 0 ? `${rawName}=${REDACTED}` : pair;
  });
  return `${url.slice(0, q)}?${parts.join('&')}`;
}
