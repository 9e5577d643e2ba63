// docs/front-proxy.md's whole files, as written: its `nginx.conf` and its HAProxy `global` file, each taken
// from the page, with only their paths moved to a scratch folder (the pid file, the logs, the admin socket,
// and the included file, which is `legacy-gateway routes`'s output), pass `nginx -t` and `haproxy -c`.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { routesConfig } from '../../src/commands/routes.js';
import { NGINX_BINARY } from '../helpers/nginx.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const HAPROXY = ['/usr/sbin/haproxy', '/usr/bin/haproxy', '/usr/local/sbin/haproxy'].find((p) => existsSync(p));
const scratch = mkdtempSync(path.join(os.tmpdir(), 'lgw-whole-files-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The one fenced block of docs/front-proxy.md in that language. */
function block(language: string): string {
  const text = readFileSync(path.join(ROOT, 'docs/front-proxy.md'), 'utf8');
  const found = [...text.matchAll(new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map(([, body = '']) => body);
  expect(found).toHaveLength(1);
  return found[0]!;
}

/** The page's paths, each moved into the scratch folder: the only change made to the block. */
function moved(config: string, paths: Readonly<Record<string, string>>): string {
  let out = config;
  for (const [from, to] of Object.entries(paths)) {
    expect(out).toContain(from);
    out = out.split(from).join(to);
  }
  return out;
}

const at = (name: string) => path.join(scratch, name);
const ROUTES = { gateway: ['http://127.0.0.1:8081'], upstream: 'http://127.0.0.1:9000', listen: '127.0.0.1:18080' };

describe('docs/front-proxy.md: the whole files, as written', () => {
  it('nginx.conf with the generated file in its http block passes nginx -t', async () => {
    writeFileSync(at('legacy-gateway.conf'), await routesConfig({ format: 'nginx', ...ROUTES }, {}));
    const config = moved(block('nginx'), {
      '/run/nginx.pid': at('nginx.pid'),
      '/var/log/nginx/': `${scratch}/`,
      '/etc/nginx/conf.d/legacy-gateway.conf': at('legacy-gateway.conf'),
    });
    writeFileSync(at('nginx.conf'), config);
    const run = spawnSync(NGINX_BINARY!, ['-t', '-p', `${scratch}/`, '-c', at('nginx.conf')], { encoding: 'utf8' });
    expect(run.stderr).toContain('test is successful');
    expect(run.stderr).not.toMatch(/\[(emerg|alert|crit|error)\]/);
    expect(run.status).toBe(0);
  });

  it('the global file with the generated file after it passes haproxy -c', async () => {
    writeFileSync(at('legacy-gateway.cfg'), await routesConfig({ format: 'haproxy', ...ROUTES }, {}));
    writeFileSync(at('haproxy.cfg'), moved(block('haproxy'), { '/run/haproxy/admin.sock': at('admin.sock') }));
    const run = spawnSync(HAPROXY!, ['-c', '-f', at('haproxy.cfg'), '-f', at('legacy-gateway.cfg')], { encoding: 'utf8' });
    const output = run.stdout + run.stderr;
    expect(output).toContain('Configuration file is valid');
    expect(output).not.toMatch(/ALERT/);
    expect(run.status).toBe(0);
  });
});
