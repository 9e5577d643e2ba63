// Where a front proxy listens and where it sends calls: its address, the gateway replicas, v1's base URL,
// and its TLS files. Read from the `routes` command's options and checked here, so the renderers only
// spell valid values: a bad one is a FrontSettingError naming the option, worded as every command words a bad
// flag (src/shared/issue-text.ts). Pure: no file is read.
import { issueSentence } from '../../shared/issue-text.js';

/** A bad option: `--listen must be [address:]port ..., got "a b:80"`. The value received is repeated only
 * when given, never for a URL (it may hold a password). */
export class FrontSettingError extends Error {
  override name = 'FrontSettingError';

  constructor(option: string, reason: string, received?: { value: unknown }) {
    super(issueSentence(option, { message: reason }, received));
  }
}

export interface ListenAddress {
  /** As written (`127.0.0.1`, `[::1]`, `localhost`); undefined: every IPv4 address. */
  host: string | undefined;
  port: number;
}

export interface Origin {
  scheme: 'http' | 'https';
  /** The host name or address (an IPv6 address in brackets). */
  hostname: string;
  port: number;
  /** The Host header a request to it carries: the name, and the port when it is not the scheme's. */
  hostHeader: string;
}

export interface V1Origin extends Origin {
  /** The base URL's path, without a trailing slash ('' at the root): put before every passed-through path. */
  pathPrefix: string;
}

export interface FrontSettings {
  listen: ListenAddress;
  /** One or more gateway replicas, all with the same scheme. */
  gateways: readonly Origin[];
  upstream: V1Origin;
  /** Listen with TLS: the certificate (chain) and its private key, as files; the protocol versions and the
   * cipher string when the defaults are not wanted (old clients: docs/old-tls-clients.md). */
  tls: TlsSettings | undefined;
}

/** The TLS protocol versions a front may offer, oldest first, as nginx spells them. */
export const TLS_PROTOCOLS = ['TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3'] as const;
export type TlsProtocol = (typeof TLS_PROTOCOLS)[number];

export interface TlsSettings {
  certFile: string;
  keyFile: string;
  /** --tls-protocols: consecutive versions, oldest first; undefined: the proxy's defaults. */
  protocols?: readonly TlsProtocol[];
  /** --tls-ciphers: an OpenSSL cipher string (TLS 1.2 and older); undefined: the proxy's defaults. */
  ciphers?: string;
}

const HOST_NAME = /^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/;
const IPV6 = /^\[[0-9A-Fa-f:.]+\]$/;

/** `[addr:]port`: `8080`, `127.0.0.1:8080`, `[::1]:8443`, `localhost:8080`. */
export function parseListen(text: string): ListenAddress {
  const colon = text.lastIndexOf(':');
  const host = colon < 0 ? undefined : text.slice(0, colon);
  const portText = text.slice(colon + 1);
  const port = Number(portText);
  if ((host !== undefined && !HOST_NAME.test(host) && !IPV6.test(host)) || !/^\d{1,5}$/.test(portText) || port < 1 || port > 65535) {
    throw new FrontSettingError('--listen', 'must be [address:]port with a port from 1 to 65535 (8080, 127.0.0.1:8080, [::1]:8080)', { value: text });
  }
  return { host, port };
}

function parseUrl(text: string, option: string): URL {
  if (!URL.canParse(text) || !/^https?:\/\//i.test(text)) throw new FrontSettingError(option, 'must be an http:// or https:// URL');
  const url = new URL(text);
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    throw new FrontSettingError(option, 'must not carry a query string, fragment or credentials');
  }
  if (!HOST_NAME.test(url.hostname) && !IPV6.test(url.hostname)) throw new FrontSettingError(option, 'must have a host name or address as its host');
  return url;
}

function originOf(url: URL): Origin {
  const scheme = url.protocol === 'https:' ? 'https' : 'http';
  return { scheme, hostname: url.hostname, port: url.port === '' ? (scheme === 'https' ? 443 : 80) : Number(url.port), hostHeader: url.host };
}

/** v1's base URL (as UPSTREAM_URL): passed-through paths go after its path. */
export function parseUpstream(text: string, option = '--upstream'): V1Origin {
  const url = parseUrl(text, option);
  return { ...originOf(url), pathPrefix: url.pathname.replace(/\/+$/, '') };
}

/** Gateway replicas: each a URL with no path (the gateway serves the legacy paths at its root). */
export function parseGateways(texts: readonly string[]): Origin[] {
  const urls = texts.flatMap((t) => t.split(',')).map((t) => t.trim()).filter((t) => t !== '');
  if (urls.length === 0) throw new FrontSettingError('--gateway', 'is required: at least one gateway URL (http://10.0.0.5:8080)');
  const origins = urls.map((text) => {
    const url = parseUrl(text, '--gateway');
    if (url.pathname !== '/') throw new FrontSettingError('--gateway', 'must be a URL without a path (the gateway serves the legacy paths at its root)');
    return originOf(url);
  });
  if (new Set(origins.map((o) => o.scheme)).size > 1) throw new FrontSettingError('--gateway', 'must give every replica the same scheme (all http:// or all https://)');
  const seen = new Set<string>();
  for (const o of origins) {
    const key = `${o.hostname}:${o.port}`;
    if (seen.has(key)) throw new FrontSettingError('--gateway', `must name each replica once: ${key} is named twice`);
    seen.add(key);
  }
  return origins;
}

/** A file name a configuration can hold as it is (no quote, `$`, control character or line break). */
function filePath(text: string, option: string): string {
  if (text === '' || /[\s'"$;{}\\]/.test(text) || [...text].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)) {
    throw new FrontSettingError(option, 'must be a file name without spaces, quotes, $, ;, braces or backslashes');
  }
  return text;
}

/** `TLSv1.1,TLSv1.2` (commas or spaces; `TLSv1.0` is `TLSv1`; any case): known names only, each once, consecutive. */
function parseTlsProtocols(text: string): TlsProtocol[] {
  const refused = (reason: string): FrontSettingError => new FrontSettingError('--tls-protocols', reason, { value: text });
  const names = text.split(/[\s,]+/).filter((n) => n !== '');
  const known = names.map((name) => TLS_PROTOCOLS.find((p) => p.toLowerCase() === name.toLowerCase().replace(/^tlsv1\.0$/, 'tlsv1')));
  if (known.length === 0 || known.includes(undefined)) throw refused(`must name one or more of ${TLS_PROTOCOLS.join(', ')}`);
  const indexes = [...new Set(known.map((p) => TLS_PROTOCOLS.indexOf(p!)))].sort((a, b) => a - b);
  if (indexes.length !== known.length) throw refused('must name each version once');
  if (indexes.some((i, n) => n > 0 && i !== indexes[n - 1]! + 1)) {
    throw refused('must name consecutive versions (HAProxy takes a lowest and a highest version)');
  }
  return indexes.map((i) => TLS_PROTOCOLS[i]!);
}

/** An OpenSSL cipher string of safe characters only: nothing that could end the directive or the line. */
const CIPHER_STRING = /^[A-Za-z0-9!+\-:@=._]{1,1024}$/;

/** Both or neither; --tls-protocols and --tls-ciphers only with them. TLS 1.0 and 1.1 need `@SECLEVEL=0` in the
 * cipher string: OpenSSL 3 refuses them at any higher security level, whatever the protocols say. */
export function parseTls(certFile: string | undefined, keyFile: string | undefined, protocols?: string, ciphers?: string): FrontSettings['tls'] {
  if (certFile === undefined && keyFile === undefined) {
    if (protocols !== undefined || ciphers !== undefined) {
      throw new FrontSettingError(protocols !== undefined ? '--tls-protocols' : '--tls-ciphers', 'applies only with TLS on (--tls-cert and --tls-key)');
    }
    return undefined;
  }
  if (certFile === undefined) throw new FrontSettingError('--tls-cert', 'is required with --tls-key (listen with TLS: both, or neither)');
  if (keyFile === undefined) throw new FrontSettingError('--tls-key', 'is required with --tls-cert (listen with TLS: both, or neither)');
  const tls: TlsSettings = { certFile: filePath(certFile, '--tls-cert'), keyFile: filePath(keyFile, '--tls-key') };
  if (ciphers !== undefined) {
    if (!CIPHER_STRING.test(ciphers)) {
      throw new FrontSettingError('--tls-ciphers', 'must be an OpenSSL cipher string of letters, digits and ! + - : @ = . _ only (e.g. DEFAULT:@SECLEVEL=0)', { value: ciphers });
    }
    tls.ciphers = ciphers;
  }
  if (protocols !== undefined) {
    tls.protocols = parseTlsProtocols(protocols);
    const old = tls.protocols.filter((p) => p === 'TLSv1' || p === 'TLSv1.1');
    if (old.length > 0 && !/@SECLEVEL=0(?![0-9])/.test(tls.ciphers ?? '')) {
      const why = `with --tls-protocols ${old.join(' or ')}: OpenSSL 3 offers them only at security level 0 (e.g. DEFAULT:@SECLEVEL=0; docs/old-tls-clients.md)`;
      throw new FrontSettingError('--tls-ciphers', tls.ciphers === undefined ? `is required ${why}` : `must hold @SECLEVEL=0 ${why}`);
    }
  }
  return tls;
}
