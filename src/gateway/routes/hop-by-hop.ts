// Hop-by-hop headers (RFC 9110 section 7.6.1) belong to one connection and are never forwarded:
// the fixed list, plus every header named in Connection. Pure.
import type { IncomingHttpHeaders } from 'node:http';

const ALWAYS = ['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'upgrade'];

/** The headers a message's Connection header names, besides the `close` and `keep-alive` options. */
export function namedInConnection(headers: IncomingHttpHeaders): string[] {
  const connection = headers.connection;
  // Most messages carry no Connection header, or one of its two options: nothing to split.
  if (connection === undefined || connection === 'keep-alive' || connection === 'close') return [];
  return String(connection)
    .split(',')
    .map((n) => n.trim().toLowerCase())
    .filter((n) => n !== '' && n !== 'close' && n !== 'keep-alive');
}

/** Names to drop from a header set. `transfer-encoding` is framing: Node re-frames each side itself. */
export function hopByHopNames(headers: IncomingHttpHeaders, includeTransferEncoding: boolean): string[] {
  const names = [...ALWAYS, ...namedInConnection(headers)];
  if (includeTransferEncoding) names.push('transfer-encoding');
  return names;
}
