// nginx's configuration from `legacy-gateway routes --format nginx`: `nginx -t` accepts every variant (one
// or several replicas, https v1 with a base path, an address, TLS) and refuses a broken one; with TLS a real
// nginx answers over https, and says so to the upstreams in X-Forwarded-Proto.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routesConfig, type RoutesOptions } from '../../src/commands/routes.js';
import { checkNginxConfig, freePort, startTestNginx } from '../helpers/nginx.js';
import { json, startRecordingUpstream } from '../helpers/recording-upstream.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'lgw-nginx-tls-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const generate = (opts: RoutesOptions) => routesConfig({ format: 'nginx', gateway: ['http://127.0.0.1:8081'], upstream: 'http://127.0.0.1:9000', ...opts }, {});

function certificate(): { cert: string; key: string } {
  const cert = path.join(dir, 'front.crt');
  const key = path.join(dir, 'front.key');
  const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=localhost', '-days', '1', '-keyout', key, '-out', cert], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`openssl: ${made.stderr}`);
  return { cert, key };
}

describe('nginx -t', () => {
  it.each<[string, RoutesOptions]>([
    ['one replica', {}],
    ['several replicas, repeated and comma-separated', { gateway: ['http://127.0.0.1:8081,http://localhost:8082', 'http://[::1]:8083'] }],
    ['https v1 with a base path, and a timeout', { upstream: 'https://localhost/base/v', upstreamTimeoutMs: '2500' }],
    ['https gateways', { gateway: ['https://localhost:8443,https://localhost:8444'] }],
    ['an address to listen on', { listen: '127.0.0.1:18443' }],
  ])('accepts the configuration: %s', async (_name, opts) => {
    const result = checkNginxConfig(await generate(opts));
    expect(result.output).toContain('test is successful');
    expect(result.output).not.toMatch(/\[(warn|emerg|alert)\]/);
    expect(result.code).toBe(0);
  });

  it('refuses a broken configuration', async () => {
    const config = await generate({});
    expect(checkNginxConfig(config).code).toBe(0);
    const broken = checkNginxConfig(config.replace("'~^(GET|HEAD) /api/(", "'~^(GET|HEAD) /api/(("));
    expect(broken.code).not.toBe(0);
    expect(broken.output).toContain('pcre');
  });
});

describe('with --tls-cert and --tls-key', () => {
  it('listens with TLS, and tells the upstreams the call came over https', async () => {
    const v1 = await startRecordingUpstream((req, res) => json(res, 200, { url: req.url }));
    const port = await freePort();
    const { cert, key } = certificate();
    const config = await generate({ listen: `127.0.0.1:${port}`, upstream: v1.url, tlsCert: cert, tlsKey: key });
    expect(config).toContain(`listen 127.0.0.1:${port} ssl;`);
    const front = await startTestNginx(config, port);
    try {
      const status = await new Promise<number>((resolve, reject) => {
        https
          .get({ host: '127.0.0.1', port, path: '/assets/app.js', rejectUnauthorized: false, agent: false }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          })
          .on('error', reject);
      });
      expect(status).toBe(200);
      expect(v1.received[0]!.headers['x-forwarded-proto']).toBe('https');
    } finally {
      await front.close();
      await v1.close();
    }
  });
});
