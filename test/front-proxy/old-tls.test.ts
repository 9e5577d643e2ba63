// TLS for old clients: `routes --tls-protocols <list> --tls-ciphers <string>` spell ssl_protocols and
// ssl_ciphers (nginx) and ssl-min-ver, ssl-max-ver and ciphers on the bind line (HAProxy), only with TLS on,
// validated; and a real nginx and a real HAProxy given them complete a TLS 1.1 handshake with Node (OpenSSL 3
// at @SECLEVEL=0), then serve a call over it, while the defaults refuse TLS 1.1.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routesConfig, type RoutesOptions } from '../../src/commands/routes.js';
import { checkNginxConfig, freePort, startTestNginx } from '../helpers/nginx.js';
import { json, startRecordingUpstream, type RecordingUpstream } from '../helpers/recording-upstream.js';

const HAPROXY = ['/usr/sbin/haproxy', '/usr/bin/haproxy', '/usr/local/sbin/haproxy'].find((p) => existsSync(p));

let dir: string;
let cert: string;
let key: string;
let v1: RecordingUpstream;
beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'lgw-old-tls-'));
  cert = path.join(dir, 'front.pem');
  key = `${cert}.key`;
  const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=localhost', '-days', '1', '-keyout', key, '-out', cert], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`openssl: ${made.stderr}`);
  v1 = await startRecordingUpstream((req, res) => json(res, 200, { url: req.url }));
});
afterAll(async () => {
  await v1.close();
  rmSync(dir, { recursive: true, force: true });
});

const OLD = { tlsProtocols: 'TLSv1.1,TLSv1.2,TLSv1.3', tlsCiphers: 'DEFAULT:@SECLEVEL=0' };
const generate = (format: 'nginx' | 'haproxy', opts: RoutesOptions) =>
  routesConfig({ format, gateway: ['http://127.0.0.1:8081'], upstream: v1.url, tlsCert: cert, tlsKey: key, ...opts }, {});

/** A handshake from Node pinned to one protocol version, then one GET over it: the version and cipher agreed,
 * and the reply's status line; or the handshake's error code. */
async function handshake(port: number, version: tls.SecureVersion, ciphers: string): Promise<{ protocol: string | null; cipher: string; status: string } | { error: string }> {
  const socket = tls.connect({ host: '127.0.0.1', port, servername: 'localhost', minVersion: version, maxVersion: version, ciphers, rejectUnauthorized: false });
  try {
    await Promise.race([once(socket, 'secureConnect'), once(socket, 'error').then(([err]) => Promise.reject(err as Error))]);
  } catch (err) {
    socket.destroy();
    return { error: (err as NodeJS.ErrnoException).code ?? String(err) };
  }
  const protocol = socket.getProtocol();
  const cipher = socket.getCipher().name;
  socket.write('GET /assets/app.js HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
  let text = '';
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
  await once(socket, 'end');
  socket.destroy();
  return { protocol, cipher, status: text.split('\r\n')[0] ?? '' };
}

describe('the options, validated', () => {
  it.each<[RoutesOptions, string]>([
    [{ tlsCert: undefined, tlsKey: undefined, tlsProtocols: 'TLSv1.2' }, '--tls-protocols applies only with TLS on (--tls-cert and --tls-key)'],
    [{ tlsCert: undefined, tlsKey: undefined, tlsCiphers: 'HIGH' }, '--tls-ciphers applies only with TLS on (--tls-cert and --tls-key)'],
    [{ tlsProtocols: 'SSLv3,TLSv1' }, '--tls-protocols must name one or more of TLSv1, TLSv1.1, TLSv1.2, TLSv1.3; got "SSLv3,TLSv1"'],
    [{ tlsProtocols: 'TLSv1.2,TLSv1.2' }, '--tls-protocols must name each version once, got "TLSv1.2,TLSv1.2"'],
    [{ tlsProtocols: 'TLSv1.1,TLSv1.3', tlsCiphers: 'DEFAULT:@SECLEVEL=0' }, '--tls-protocols must name consecutive versions (HAProxy takes a lowest and a highest version), got "TLSv1.1,TLSv1.3"'],
    [{ tlsProtocols: ',' }, '--tls-protocols must name one or more of TLSv1, TLSv1.1, TLSv1.2, TLSv1.3; got ","'],
    [{ tlsProtocols: 'TLSv1.1,TLSv1.2' }, '--tls-ciphers is required with --tls-protocols TLSv1.1: OpenSSL 3 offers them only at security level 0 (e.g. DEFAULT:@SECLEVEL=0; docs/old-tls-clients.md)'],
    [{ tlsProtocols: 'TLSv1.0,TLSv1.1', tlsCiphers: 'DEFAULT:@SECLEVEL=1' }, '--tls-ciphers must hold @SECLEVEL=0 with --tls-protocols TLSv1 or TLSv1.1: OpenSSL 3 offers them only at security level 0 (e.g. DEFAULT:@SECLEVEL=0; docs/old-tls-clients.md)'],
    [{ tlsCiphers: "HIGH'; include /etc/passwd; #" }, `--tls-ciphers must be an OpenSSL cipher string of letters, digits and ! + - : @ = . _ only (e.g. DEFAULT:@SECLEVEL=0); got "HIGH'; include /etc/passwd; #"`],
    [{ tlsCiphers: 'HIGH DEFAULT' }, '--tls-ciphers must be an OpenSSL cipher string of letters, digits and ! + - : @ = . _ only (e.g. DEFAULT:@SECLEVEL=0); got "HIGH DEFAULT"'],
  ])('%j is refused: %s', async (opts, message) => {
    for (const format of ['nginx', 'haproxy'] as const) await expect(generate(format, opts)).rejects.toMatchObject({ name: 'FrontSettingError', message });
  });

  it('spells the directives (TLSv1.0 and any case accepted, spaces or commas)', async () => {
    const nginx = await generate('nginx', { tlsProtocols: 'tlsv1.0 TLSv1.1,tlsv1.2', tlsCiphers: 'ECDHE-RSA-AES128-SHA:HIGH:!aNULL:@SECLEVEL=0' });
    expect(nginx).toContain(["    ssl_protocols TLSv1 TLSv1.1 TLSv1.2;", "    ssl_ciphers 'ECDHE-RSA-AES128-SHA:HIGH:!aNULL:@SECLEVEL=0';"].join('\n'));
    const haproxy = await generate('haproxy', { listen: '127.0.0.1:8443', tlsProtocols: 'tlsv1.0 TLSv1.1,tlsv1.2', tlsCiphers: 'ECDHE-RSA-AES128-SHA:HIGH:!aNULL:@SECLEVEL=0' });
    expect(haproxy).toContain(`    bind 127.0.0.1:8443 ssl crt ${cert} ssl-min-ver TLSv1.0 ssl-max-ver TLSv1.2 ciphers ECDHE-RSA-AES128-SHA:HIGH:!aNULL:@SECLEVEL=0\n`);
    // Without the options: the proxies' defaults, no directive.
    expect(await generate('nginx', {})).not.toMatch(/ssl_protocols|ssl_ciphers/);
    expect(await generate('haproxy', {})).not.toMatch(/ssl-min-ver|ciphers/);
  });

  it('nginx -t accepts them', async () => {
    const result = checkNginxConfig(await generate('nginx', OLD));
    expect(result.output).toContain('test is successful');
    expect(result.output).not.toMatch(/\[(warn|emerg|alert)\]/);
  });

  it.runIf(HAPROXY)('haproxy -c accepts them', async () => {
    const file = path.join(dir, 'check.cfg');
    writeFileSync(file, await generate('haproxy', OLD));
    const run = spawnSync(HAPROXY!, ['-c', '-f', file], { encoding: 'utf8' });
    expect(`${run.stdout}${run.stderr}`).toContain('Configuration file is valid');
    expect(run.status).toBe(0);
  });
});

describe('a real handshake from an old client', () => {
  it('nginx with TLSv1.1 and @SECLEVEL=0 completes a TLS 1.1 handshake and serves the call; its defaults refuse TLS 1.1', async () => {
    const port = await freePort();
    const front = await startTestNginx(await generate('nginx', { listen: `127.0.0.1:${port}`, ...OLD }), port);
    try {
      const old = await handshake(port, 'TLSv1.1', 'DEFAULT:@SECLEVEL=0');
      expect(old).toEqual({ protocol: 'TLSv1.1', cipher: expect.stringMatching(/^ECDHE-RSA-AES(128|256)-SHA$/) as unknown, status: 'HTTP/1.1 200 OK' });
      expect(await handshake(port, 'TLSv1.3', 'DEFAULT')).toMatchObject({ protocol: 'TLSv1.3', status: 'HTTP/1.1 200 OK' });
    } finally {
      await front.close();
    }
    const plainPort = await freePort();
    const plain = await startTestNginx(await generate('nginx', { listen: `127.0.0.1:${plainPort}` }), plainPort);
    try {
      expect(await handshake(plainPort, 'TLSv1.1', 'DEFAULT:@SECLEVEL=0')).toEqual({ error: expect.stringMatching(/^(ERR_SSL_|ECONNRESET)/) as unknown });
      expect(await handshake(plainPort, 'TLSv1.2', 'DEFAULT')).toMatchObject({ protocol: 'TLSv1.2', status: 'HTTP/1.1 200 OK' });
    } finally {
      await plain.close();
    }
  });

  it.runIf(HAPROXY)('HAProxy with ssl-min-ver TLSv1.1 and @SECLEVEL=0 completes a TLS 1.1 handshake and serves the call', async () => {
    const port = await freePort();
    const file = path.join(dir, 'front.cfg');
    writeFileSync(file, await generate('haproxy', { listen: `127.0.0.1:${port}`, ...OLD }));
    const child = spawn(HAPROXY!, ['-db', '-f', file], { stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr.resume();
    try {
      const deadline = Date.now() + 10_000;
      let result = await handshake(port, 'TLSv1.1', 'DEFAULT:@SECLEVEL=0');
      while ('error' in result && result.error === 'ECONNREFUSED' && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        result = await handshake(port, 'TLSv1.1', 'DEFAULT:@SECLEVEL=0');
      }
      expect(result).toEqual({ protocol: 'TLSv1.1', cipher: expect.stringMatching(/^ECDHE-RSA-AES(128|256)-SHA$/) as unknown, status: 'HTTP/1.1 200 OK' });
    } finally {
      const exited = once(child, 'exit');
      if (child.pid !== undefined) process.kill(child.pid, 'SIGTERM');
      await exited;
    }
  });
});
