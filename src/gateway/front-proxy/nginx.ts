// Spells the front routes (front-routes.ts) as nginx configuration, to be included from the `http`
// context: two upstream blocks with keep-alive pools (the gateway replicas, v1), the maps that classify a
// request once by its method and raw target, and one server block with an internal location per route.
// It decides nothing: what goes where, the limits and the replies are the routes'. Pure: it returns text.
import { FrontSettingError, type FrontSettings, type Origin } from './front-settings.js';
import { requestLinePattern, type FrontReply, type FrontRoute, type FrontRoutes } from './front-routes.js';

/** Debian's and Ubuntu's CA bundle: what an https upstream's certificate is verified against. */
export const NGINX_TRUSTED_CA = '/etc/ssl/certs/ca-certificates.crt';

/** Idle upstream connections close sooner than Node's 5 s keep-alive (the gateway's): the front never
 * sends a request on a connection the other side is closing. */
const UPSTREAM_IDLE = '4s';

/** A quoted nginx string: nothing in it is read as a separator or an escape. */
function quoted(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** A quoted nginx string where variables are expanded: one holding `$` cannot be spelled. */
export function nginxQuote(text: string): string {
  if (text.includes('$')) throw new Error(`a value nginx would read as a variable: ${text}`);
  return quoted(text);
}

/** JSON has no `$` outside strings, and `\u0024` is the same character inside one. */
const replyText = (reply: FrontReply): string => nginxQuote(reply.body.replace(/\$/g, '\\u0024'));

const serverAddress = (o: Origin): string => `${o.hostname}:${o.port}`;

/** Idle keep-alive connections per worker and upstream: room for a busy front's concurrency, so nginx
 * rarely opens a new connection to a gateway replica (a new connection costs the gateway more than a request). */
const IDLE_CONNECTIONS = 128;

function upstreamBlock(name: string, servers: readonly string[]): string[] {
  return [`upstream ${name} {`, ...servers.map((s) => `    server ${s};`), `    keepalive ${IDLE_CONNECTIONS};`, `    keepalive_timeout ${UPSTREAM_IDLE};`, '}'];
}

function routeMap(routes: FrontRoutes): string[] {
  const lines = ['# The route of a request, by its method and raw target (as sent, nothing decoded: as the gateway', '# reads it). The first regex that matches wins; no match: v1.', 'map "$request_method $request_uri" $lgw_route {', '    default v1;'];
  for (const route of routes.routes) {
    const pattern = requestLinePattern(route.match);
    // A map's source values are never expanded: `$` is the regex's own.
    if (pattern !== undefined) lines.push(`    ${quoted(`~${pattern}`)} ${route.kind};`);
  }
  return [...lines, '}'];
}

function headerMaps(settings: FrontSettings): string[] {
  return [
    '# The Host each upstream is sent: v1 its own (as the gateway\'s passthrough sends it), the gateway the caller\'s.',
    `map $lgw_route $lgw_host { v1 ${nginxQuote(settings.upstream.hostHeader)}; default $host; }`,
    '# X-Forwarded-* as the gateway\'s passthrough sets them: port and scheme appended to the caller\'s,',
    '# the caller\'s X-Forwarded-Host kept, else its Host.',
    'map $http_x_forwarded_port $lgw_forwarded_port { "" $server_port; default "$http_x_forwarded_port, $server_port"; }',
    'map $http_x_forwarded_proto $lgw_forwarded_proto { "" $scheme; default "$http_x_forwarded_proto, $scheme"; }',
    'map $http_x_forwarded_host $lgw_forwarded_host { "" $http_host; default $http_x_forwarded_host; }',
  ];
}

/** What every location shares: HTTP/1.1 keep-alive upstream, hop-by-hop headers dropped both ways. */
const PROXY_COMMON = [
  'proxy_http_version 1.1;',
  '# Hop-by-hop headers (RFC 9110 7.6.1) are never passed on; nginx itself drops TE, Keep-Alive and Upgrade.',
  'proxy_set_header Connection "";',
  'proxy_set_header Proxy-Connection "";',
  'proxy_set_header Proxy-Authorization "";',
  'proxy_set_header Trailer "";',
  'proxy_set_header Host $lgw_host;',
  'proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;',
  'proxy_set_header X-Forwarded-Port $lgw_forwarded_port;',
  'proxy_set_header X-Forwarded-Proto $lgw_forwarded_proto;',
  'proxy_set_header X-Forwarded-Host $lgw_forwarded_host;',
  'proxy_hide_header Keep-Alive;',
  'proxy_hide_header Proxy-Connection;',
  'proxy_hide_header Proxy-Authenticate;',
  'proxy_hide_header Trailer;',
  'proxy_hide_header Upgrade;',
  'proxy_hide_header X-Powered-By;',
  '# The upstream\'s Date and Server go on as it sent them; Location headers are not rewritten.',
  'proxy_pass_header Date;',
  'proxy_pass_header Server;',
  'proxy_redirect off;',
  '# The upstreams do not steer nginx.',
  'proxy_ignore_headers X-Accel-Redirect X-Accel-Expires X-Accel-Limit-Rate X-Accel-Buffering X-Accel-Charset;',
];

function tlsUpstreamLines(hostname: string): string[] {
  return [
    'proxy_ssl_server_name on;',
    `proxy_ssl_name ${hostname};`,
    'proxy_ssl_verify on;',
    `proxy_ssl_trusted_certificate ${NGINX_TRUSTED_CA};`,
    'proxy_ssl_verify_depth 4;',
    'proxy_ssl_session_reuse on;',
  ];
}

function locationBlock(route: FrontRoute, settings: FrontSettings, connectMs: number): string[] {
  const toV1 = route.to === 'v1';
  const origin = toV1 ? settings.upstream : settings.gateways[0]!;
  const target = toV1 ? `${origin.scheme}://lgw_v1${settings.upstream.pathPrefix}$request_uri` : `${origin.scheme}://lgw_gateway$request_uri`;
  const ms = `${route.timeoutMs}ms`;
  const body = [
    'internal;',
    `client_max_body_size ${route.bodyLimitBytes};`,
    ...(route.kind === 'payment' ? [`client_body_buffer_size ${route.bodyLimitBytes};`] : []),
    `error_page 413 @lgw_${route.kind}_413;`,
    `error_page 502 @lgw_${route.kind}_502;`,
    `error_page 504 @lgw_${route.kind}_504;`,
    ...(route.streamed ? ['proxy_buffering off;', 'proxy_request_buffering off;'] : []),
    `proxy_connect_timeout ${connectMs}ms;`,
    `proxy_send_timeout ${ms};`,
    `proxy_read_timeout ${ms};`,
    // v1 calls are never retried (as the passthrough); a gateway replica that cannot be reached is skipped
    // (nginx never passes a POST that was sent on to another one).
    toV1 ? 'proxy_next_upstream off;' : 'proxy_next_upstream error timeout;',
    ...(origin.scheme === 'https' ? tlsUpstreamLines(origin.hostname) : []),
    `proxy_pass ${target};`,
  ];
  return [`location = /.lgw/${route.kind} {`, ...body.map((l) => `    ${l}`), '}'];
}

function replyLocations(route: FrontRoute): string[] {
  const { tooLarge, unreachable, timedOut } = route.replies;
  return [tooLarge, unreachable, timedOut].map(
    (r) => `location @lgw_${route.kind}_${r.status} { default_type "application/json; charset=utf-8"; return ${r.status} ${replyText(r)}; }`,
  );
}

function comment(routes: FrontRoutes, settings: FrontSettings): string[] {
  const [own, read, payment, keyed, v1] = ['own', 'read', 'payment', 'keyed', 'v1'].map((k) => routes.routes.find((r) => r.kind === k));
  const limit = (r: FrontRoute | undefined) => (r ? `body <= ${r.bodyLimitBytes} bytes` : '');
  return [
    '# legacy-gateway front proxy (nginx), generated by `legacy-gateway routes --format nginx` from the mappings:',
    '# do not edit; generate it again when the mappings change. Include it from the http context.',
    '#',
    '# Routes, first match wins (the gateway\'s own route table):',
    `#   GET, HEAD ${own?.match.exactPaths?.join(', ')}  ->  gateway`,
    ...(read ? [`#   GET, HEAD /api/{${routes.readMethods.join(',')}}[/...]  ->  gateway (${limit(read)})`] : []),
    `#   POST ${payment?.match.exactPaths?.join(', ')}  ->  gateway (${limit(payment)})`,
    `#   any other call whose query holds ${keyed?.match.queryContains?.join(' or ')}  ->  gateway, streamed: it moves api_key into X-API-KEY`,
    `#   everything else  ->  v1 (${settings.upstream.scheme}://${settings.upstream.hostHeader}${settings.upstream.pathPrefix}), streamed (${limit(v1)})`,
    `# Timeouts: v1 ${routes.upstreamTimeoutMs} ms (UPSTREAM_TIMEOUT_MS); the gateway ${own?.timeoutMs} ms (its longest payment).`,
  ];
}

function listenLines(settings: FrontSettings): string[] {
  const { host, port } = settings.listen;
  const address = host === undefined ? String(port) : `${host}:${port}`;
  const { tls } = settings;
  if (!tls) return [`listen ${address};`];
  return [
    `listen ${address} ssl;`,
    `ssl_certificate ${tls.certFile};`,
    `ssl_certificate_key ${tls.keyFile};`,
    // --tls-protocols, --tls-ciphers (old clients: docs/old-tls-clients.md); else nginx's defaults.
    ...(tls.protocols ? [`ssl_protocols ${tls.protocols.join(' ')};`] : []),
    ...(tls.ciphers ? [`ssl_ciphers '${tls.ciphers}';`] : []),
  ];
}

/** nginx verifies one name per upstream block: https replicas must share it. */
function checkGatewayNames(settings: FrontSettings): void {
  const { gateways } = settings;
  if (gateways[0]!.scheme === 'https' && new Set(gateways.map((g) => g.hostname)).size > 1) {
    throw new FrontSettingError('--gateway', 'must give https replicas one host name for nginx (it verifies one name per upstream)');
  }
}

export function renderNginx(routes: FrontRoutes, settings: FrontSettings): string {
  checkGatewayNames(settings);
  const server = [
    ...listenLines(settings),
    '# The gateway\'s own limits towards callers: headers within 15 s, idle keep-alive 5 s; headers pass as they',
    '# came (underscores included).',
    'client_header_timeout 15s;',
    'keepalive_timeout 5s;',
    'underscores_in_headers on;',
    'server_tokens off;',
    ...PROXY_COMMON,
    '',
    '# Every request is sent to the internal location of its route ($request_uri, what is proxied, is unchanged).',
    'rewrite ^ /.lgw/$lgw_route last;',
    ...routes.routes.flatMap((r) => ['', ...locationBlock(r, settings, routes.upstreamTimeoutMs)]),
    '',
    '# The replies the front gives itself, in the gateway\'s legacy shape.',
    ...routes.routes.flatMap(replyLocations),
  ];
  return [
    ...comment(routes, settings),
    '',
    ...upstreamBlock('lgw_gateway', settings.gateways.map((g) => `${serverAddress(g)} max_fails=1 fail_timeout=5s`)),
    ...upstreamBlock('lgw_v1', [serverAddress(settings.upstream)]),
    '',
    ...routeMap(routes),
    ...headerMaps(settings),
    '',
    'server {',
    ...server.map((l) => (l === '' ? '' : `    ${l}`)),
    '}',
    '',
  ].join('\n');
}
