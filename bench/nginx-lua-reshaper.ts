// Bench baseline: a Kong-style nginx + Lua reshaper for GET /api/clients/{start}/{limit} (its configuration:
// bench/nginx-lua-config.ts). Debian's nginx with libnginx-mod-http-lua and lua-cjson, one worker, started
// as bench/nginx.ts starts every bench nginx (a free loopback port, its own folder as prefix, pid file and
// error log; stopped by the pid in its pid file). Its CPU time and peak RSS are the master's and the
// worker's together.
import { existsSync } from 'node:fs';
import { LUA_MODULES, luaMainLines, luaReshaperConfig } from './nginx-lua-config.js';
import { nginxBinary, nginxVersion, startBenchNginx, type BenchNginx } from './nginx.js';
import { freePort, type BenchProcess } from './processes.js';

export interface NginxLua {
  binary: string;
  version: string;
  lifetimeS: number;
}

/** nginx with the lua module, or why not (the nginx+Lua rows are then skipped). lua-cjson missing shows at start. */
export function findNginxLua(lifetimeS: number): NginxLua | { skipped: string } {
  const binary = nginxBinary();
  if (!binary) return { skipped: 'nginx is not installed (Debian: apt-get install nginx libnginx-mod-http-lua lua-cjson)' };
  const missing = LUA_MODULES.filter((m) => !existsSync(m));
  if (missing.length > 0) return { skipped: `no ${missing.join(', ')} (Debian: apt-get install libnginx-mod-http-lua lua-cjson)` };
  return { binary, version: nginxVersion(binary), lifetimeS };
}

export async function startNginxLua(name: string, nginx: NginxLua, upstream: BenchProcess): Promise<BenchNginx> {
  const port = await freePort();
  return startBenchNginx(name, nginx.binary, port, { main: luaMainLines(), body: luaReshaperConfig(port, upstream.url) }, nginx.lifetimeS);
}
