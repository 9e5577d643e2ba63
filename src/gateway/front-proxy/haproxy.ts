// Spells the front routes (front-routes.ts) as HAProxy configuration: a defaults section, the frontend
// (the routes as ACLs, classified once into txn.lgw_route, the body limits, X-Forwarded-*), and three
// backends: the gateway replicas (checked on /readyz), the same replicas for the payment (its own replies
// and limit), and v1. It decides nothing: what goes where, the limits and the replies are the routes'.
// Pure: it returns text.
import { FrontSettingError, type FrontSettings, type Origin } from './front-settings.js';
import { type FrontReply, type FrontRoute, type FrontRoutes } from './front-routes.js';

const JSON_TYPE = '"application/json; charset=utf-8"';
const IP_ADDRESS = /^(\d{1,3}(\.\d{1,3}){3}|\[[0-9A-Fa-f:.]+\])$/;

/** A quoted HAProxy word: single quotes take everything literally; else double quotes, escaped. */
export function haproxyQuote(text: string): string {
  if (!text.includes("'")) return `'${text}'`;
  return `"${text.replace(/[\\"$]/g, '\\$&')}"`;
}

const backendOf = (route: FrontRoute): string => (route.to === 'v1' ? 'lgw_v1' : route.kind === 'payment' ? 'lgw_gateway_payment' : 'lgw_gateway');

/** The ACLs of one route; the route's condition is all of them. */
function routeAcls(route: FrontRoute): { lines: string[]; names: string[] } {
  const { methods, path, exactPaths, queryContains } = route.match;
  const lines: string[] = [];
  const names: string[] = [];
  const acl = (suffix: string, test: string) => {
    names.push(`lgw_${route.kind}_${suffix}`);
    lines.push(`acl lgw_${route.kind}_${suffix} ${test}`);
  };
  if (methods) acl('method', `method ${methods.join(' ')}`);
  // `path` is the raw path (nothing decoded, no query), as the gateway reads it.
  if (exactPaths) acl('path', `path ${exactPaths.join(' ')}`);
  else if (path) acl('path', `path -m reg ${haproxyQuote(`^${path}$`)}`);
  if (queryContains) acl('query', `query -m sub ${queryContains.map(haproxyQuote).join(' ')}`);
  return { lines, names };
}

function errorReply(reply: FrontReply): string {
  return `http-error status ${reply.status} content-type ${JSON_TYPE} string ${haproxyQuote(reply.body)}`;
}

function classify(routes: FrontRoutes): string[] {
  const lines = ['# The route of a request, decided once, first match wins (the gateway\'s own route table).'];
  const unset = '!{ var(txn.lgw_route) -m found }';
  for (const route of routes.routes) {
    const { lines: acls, names } = routeAcls(route);
    lines.push(...acls, `http-request set-var(txn.lgw_route) str(${route.kind}) if ${[unset, ...names].join(' ')}`);
  }
  for (const route of routes.routes) lines.push(`acl lgw_is_${route.kind} var(txn.lgw_route) -m str ${route.kind}`);
  return lines;
}

function limits(routes: FrontRoutes): string[] {
  return [
    '# A declared body over the gateway\'s limit of its route is refused here, in the gateway\'s shape.',
    ...routes.routes.map(
      (r) => `http-request return status 413 content-type ${JSON_TYPE} string ${haproxyQuote(r.replies.tooLarge.body)} if lgw_is_${r.kind} { req.body_size gt ${r.bodyLimitBytes} }`,
    ),
  ];
}

const HOP_BY_HOP = ['Proxy-Connection', 'Keep-Alive', 'TE', 'Trailer', 'Upgrade'];

function forwarding(settings: FrontSettings): string[] {
  const scheme = settings.tls ? 'https' : 'http';
  return [
    '# Hop-by-hop headers are never passed on; X-Forwarded-* as the gateway\'s passthrough sets them.',
    ...[...HOP_BY_HOP, 'Proxy-Authorization'].map((h) => `http-request del-header ${h}`),
    ...[...HOP_BY_HOP, 'Proxy-Authenticate', 'X-Powered-By'].map((h) => `http-response del-header ${h}`),
    'option forwardfor',
    'http-request add-header X-Forwarded-Port %[dst_port]',
    `http-request add-header X-Forwarded-Proto ${scheme}`,
    'http-request set-header X-Forwarded-Host %[req.hdr(host)] if { req.hdr(host) -m found } !{ req.hdr(x-forwarded-host) -m found }',
  ];
}

function bindLine(settings: FrontSettings): string {
  const { host, port } = settings.listen;
  const address = `${host ?? ''}:${port}`;
  const tls = settings.tls;
  if (!tls) return `bind ${address}`;
  // HAProxy reads the key from the certificate's file, or from "<certificate>.key" beside it.
  if (tls.keyFile !== tls.certFile && tls.keyFile !== `${tls.certFile}.key`) {
    throw new FrontSettingError('--tls-key', `must be the certificate's file or ${tls.certFile}.key, where HAProxy reads the key (or join the two files)`);
  }
  // --tls-protocols as the lowest and highest version (HAProxy spells TLS 1.0 `TLSv1.0`), --tls-ciphers as they are
  // (old clients: docs/old-tls-clients.md); else HAProxy's defaults.
  const version = (p: string): string => (p === 'TLSv1' ? 'TLSv1.0' : p);
  const protocols = tls.protocols ? ` ssl-min-ver ${version(tls.protocols[0]!)} ssl-max-ver ${version(tls.protocols.at(-1)!)}` : '';
  const ciphers = tls.ciphers ? ` ciphers ${tls.ciphers}` : '';
  return `bind ${address} ssl crt ${tls.certFile}${protocols}${ciphers}`;
}

function frontend(routes: FrontRoutes, settings: FrontSettings): string[] {
  const uses = routes.routes.filter((r) => r.to === 'gateway').map((r) => `use_backend ${backendOf(r)} if lgw_is_${r.kind}`);
  return ['frontend lgw_front', ...[bindLine(settings), ...classify(routes), ...limits(routes), ...forwarding(settings), ...uses, 'default_backend lgw_v1'].map((l) => `    ${l}`)];
}

function serverLine(name: string, origin: Origin, extra: string): string {
  const tls = origin.scheme === 'https' ? ` ssl verify required ca-file @system-ca sni str(${origin.hostname})` : '';
  // A host name is resolved again while HAProxy runs, not only at start.
  const dns = IP_ADDRESS.test(origin.hostname) ? '' : ' resolvers lgw_dns';
  return `server ${name} ${origin.hostname}:${origin.port}${tls}${dns}${extra}`;
}

function backend(name: string, route: FrontRoute, body: readonly string[]): string[] {
  const { unreachable, noServer, timedOut } = route.replies;
  const lines = ['http-reuse safe', `timeout server ${route.timeoutMs}ms`, ...[unreachable, noServer, timedOut].map(errorReply), ...body];
  return [`backend ${name}`, ...lines.map((l) => `    ${l}`)];
}

function backends(routes: FrontRoutes, settings: FrontSettings): string[] {
  const route = (kind: string) => routes.routes.find((r) => r.kind === kind)!;
  const { upstream, gateways } = settings;
  const replicas = gateways.map((g, i) => serverLine(`gw${i + 1}`, g, ' check inter 2s'));
  const tracked = gateways.map((g, i) => serverLine(`gw${i + 1}`, g, ` track lgw_gateway/gw${i + 1}`));
  const prefix = upstream.pathPrefix === '' ? [] : [`http-request set-path "${upstream.pathPrefix.replace(/%/g, '%%')}%[path]"`];
  return [
    ...backend('lgw_gateway', route('read') ?? route('own'), [
      '# A replica that is not ready (starting, draining) takes no calls; a call that could not connect tries another.',
      'option httpchk GET /readyz',
      'http-check expect status 200',
      // /readyz answers within 3 s (its own probe of v1 is bounded so): a replica silent longer is down.
      'timeout check 5s',
      'retries 2',
      'option redispatch',
      ...replicas,
    ]),
    '',
    ...backend('lgw_gateway_payment', route('payment'), ['retries 2', 'option redispatch', ...tracked]),
    '',
    // The passthrough is never retried.
    ...backend('lgw_v1', route('v1'), ['retries 0', `http-request set-header Host ${upstream.hostHeader}`, ...prefix, serverLine('v1', upstream, '')]),
  ];
}

function needsResolvers(settings: FrontSettings): boolean {
  return [settings.upstream, ...settings.gateways].some((o) => !IP_ADDRESS.test(o.hostname));
}

export function renderHaproxy(routes: FrontRoutes, settings: FrontSettings): string {
  const gatewayWait = routes.routes.find((r) => r.to === 'gateway')!.timeoutMs;
  return [
    '# legacy-gateway front proxy (HAProxy), generated by `legacy-gateway routes --format haproxy` from the mappings:',
    '# do not edit; generate it again when the mappings change. Load it with your global section (haproxy -f).',
    '',
    'defaults',
    '    mode http',
    `    timeout connect ${routes.upstreamTimeoutMs}ms`,
    '    # A caller waits as long as the gateway may take (a payment), and never less than the gateway allows.',
    `    timeout client ${Math.max(60_000, gatewayWait)}ms`,
    `    timeout server ${routes.upstreamTimeoutMs}ms`,
    '    # The gateway\'s own limits towards callers: headers within 15 s, idle keep-alive 5 s.',
    '    timeout http-request 15s',
    '    timeout http-keep-alive 5s',
    '',
    ...frontend(routes, settings),
    '',
    ...backends(routes, settings),
    ...(needsResolvers(settings) ? ['', 'resolvers lgw_dns', '    parse-resolv-conf', '    hold valid 10s'] : []),
    '',
  ].join('\n');
}
