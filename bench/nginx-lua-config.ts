// The configuration template of the nginx + Lua reshaper (bench/nginx-lua-reshaper.ts), Kong-style: nginx
// with Debian's lua module (libnginx-mod-http-lua) and lua-cjson, `content_by_lua_block` reading the v1 page
// through a subrequest (`ngx.location.capture`) to an internal location that proxies to the fake v1 over a
// keep-alive pool, then cjson.decode, the legacy record of each v1 client (every field a string, or null),
// and the envelope written out. The record is written field by field in the legacy order (a Lua table has
// no order, so cjson.encode of a whole record could not give the gateway's bytes); each value is encoded
// by cjson.encode. Pure (the pool to v1 is the plain proxy's, bench/nginx.ts).
import { v1UpstreamBlock } from './nginx.js';

/** The legacy client list record's fields, in order, as bench/minimal-reshape.ts writes them. */
const FIELDS = [
  'id', 'users_id', 'client_settings_id', 'avail_id', 'first_name', 'last_name', 'address1', 'address2',
  'city', 'state', 'zipcode', 'country', 'p_phone', 's_phone', 'text_phone', 'email',
];

const LUA_INIT = [
  'local cjson = require "cjson"',
  'local encode, decode, null = cjson.encode, cjson.decode, cjson.null',
  'local concat, tostring, type, format, floor = table.concat, tostring, type, string.format, math.floor',
  `local FIELDS = { ${FIELDS.map((f) => `"${f}"`).join(', ')} }`,
  'local KEYS = {}',
  'for i, f in ipairs(FIELDS) do KEYS[i] = (i == 1 and "{" or ",") .. encode(f) .. ":" end',
  // String() of a JSON value as JavaScript writes it: whole numbers without a fraction or exponent.
  'local function str(v)',
  '  if type(v) == "number" and v == floor(v) and v > -9007199254740992 and v < 9007199254740992 then return format("%d", v) end',
  '  return tostring(v)',
  'end',
  // cjson writes "/" as "\\/"; JSON.stringify does not.
  'local function jstr(s) local out = encode(s):gsub("\\\\/", "/") return out end',
  'local FAILURE = \'{"status":"failure","response":"upstream error"}\'',
  'local function reply(status, body)',
  '  ngx.status = status',
  '  ngx.header["Content-Type"] = "application/json; charset=utf-8"',
  '  ngx.header["Content-Length"] = #body',
  '  ngx.print(body)',
  'end',
  'local M = {}',
  'function M.clients(start, limit)',
  '  local res = ngx.location.capture("/api/v1/clients", { args = { offset = start, limit = limit } })',
  '  if res.status ~= 200 then return reply(502, FAILURE) end',
  '  local ok, list = pcall(decode, res.body)',
  '  if not ok or type(list) ~= "table" or type(list.data) ~= "table" then return reply(502, FAILURE) end',
  '  local out, n = { \'{"status":"success","total":\', jstr(str(list.total)), \',"response":[\' }, 3',
  '  for r, record in ipairs(list.data) do',
  '    if r > 1 then n = n + 1; out[n] = "," end',
  '    for i, f in ipairs(FIELDS) do',
  '      local v = record[f]',
  '      n = n + 1; out[n] = KEYS[i]',
  '      n = n + 1; out[n] = (v == nil or v == null) and "null" or jstr(str(v))',
  '    end',
  '    n = n + 1; out[n] = "}"',
  '  end',
  '  n = n + 1; out[n] = "]}"',
  '  return reply(200, concat(out, "", 1, n))',
  'end',
  'package.loaded.bench_reshape = M',
];

/** Where Debian installs the dynamic modules the reshaper loads (libnginx-mod-http-ndk, -lua). */
export const LUA_MODULES = ['/usr/lib/nginx/modules/ndk_http_module.so', '/usr/lib/nginx/modules/ngx_http_lua_module.so'];

/** The lines before the main configuration: the modules. */
export const luaMainLines = (): string[] => LUA_MODULES.map((m) => `load_module ${m};`);

/** The `http` body of the reshaper on 127.0.0.1:`port`, reading v1 at `upstream`. */
export function luaReshaperConfig(port: number, upstream: string): string[] {
  return [
    'init_by_lua_block {',
    ...LUA_INIT.map((l) => `    ${l}`),
    '}',
    ...v1UpstreamBlock(upstream),
    'server {',
    `    listen 127.0.0.1:${port};`,
    '    location /api/v1/ {',
    '        internal;',
    '        proxy_pass http://bench_v1;',
    '        proxy_http_version 1.1;',
    '        proxy_set_header Connection "";',
    // The whole page in memory (1000 records: about 450 KB), never in a temporary file.
    '        proxy_buffer_size 16k;',
    '        proxy_buffers 64 16k;',
    '        proxy_max_temp_file_size 0;',
    '    }',
    '    location ~ ^/api/clients/(\\d+)/(\\d+)$ {',
    '        content_by_lua_block { package.loaded.bench_reshape.clients(ngx.var[1], ngx.var[2]) }',
    '    }',
    '}',
  ];
}
