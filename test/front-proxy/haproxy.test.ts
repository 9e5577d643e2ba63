// HAProxy's configuration from `legacy-gateway routes --format haproxy`: `haproxy -c` accepts every variant
// (one or several replicas, host names, https v1 with a base path, TLS) and refuses a broken one; and a
// real HAProxy started with it routes as the gateway would: legacy calls, the payment, keys in the query
// and health to the gateway replicas, everything else to v1 unchanged, a payment body over the limit refused.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { routesConfig, type RoutesOptions } from '../../src/commands/routes.js';
import { freePort } from '../helpers/nginx.js';
import { json, startRecordingUpstream, type RecordingUpstream } from '../helpers/recording-upstream.js';

const HAPROXY = ['/usr/sbin/haproxy', '/usr/bin/haproxy', '/usr/local/sbin/haproxy'].find((p) => existsSync(p));
if (!HAPROXY) throw new Error('haproxy is not installed (Debian: apt-get install haproxy; .ci/run installs it)');

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'lgw-haproxy-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function check(config: string, name = 'front.cfg'): { code: number; output: string } {
  const file = path.join(dir, name);
  writeFileSync(file, config);
  const run = spawnSync(HAPROXY!, ['-c', '-f', file], { encoding: 'utf8' });
  return { code: run.status ?? -1, output: `${run.stdout}${run.stderr}` };
}

const generate = (opts: RoutesOptions) => routesConfig({ format: 'haproxy', gateway: ['http://127.0.0.1:8081'], upstream: 'http://127.0.0.1:9000', ...opts }, {});

/** A self-signed certificate and its key, as two files and as one PEM. */
function certificate(): { cert: string; key: string } {
  const cert = path.join(dir, 'front.pem');
  const key = `${cert}.key`;
  const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=localhost', '-days', '1', '-keyout', key, '-out', cert], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`openssl: ${made.stderr}`);
  return { cert, key };
}

describe('haproxy -c', () => {
  it.each<[string, RoutesOptions]>([
    ['one replica', {}],
    ['several replicas, some by host name, repeated and comma-separated', { gateway: ['http://127.0.0.1:8081,http://localhost:8082', 'http://[::1]:8083'] }],
    ['https v1 with a base path, and a timeout', { upstream: 'https://localhost/base/v', upstreamTimeoutMs: '2500' }],
    ['an address to listen on', { listen: '127.0.0.1:18443' }],
  ])('accepts the configuration: %s', async (_name, opts) => {
    const result = check(await generate(opts));
    expect(result.output).toContain('Configuration file is valid');
    expect(result.output).not.toMatch(/WARNING|ALERT/);
    expect(result.code).toBe(0);
  });

  it('accepts it with TLS (the key beside the certificate, or in its file)', async () => {
    const { cert, key } = certificate();
    expect(check(await generate({ tlsCert: cert, tlsKey: key })).code).toBe(0);
    const joined = path.join(dir, 'joined.pem');
    writeFileSync(joined, `${readFileSync(cert, 'utf8')}${readFileSync(key, 'utf8')}`);
    const config = await generate({ tlsCert: joined, tlsKey: joined });
    expect(config).toContain(`ssl crt ${joined}`);
    expect(check(config).code).toBe(0);
  });

  it('refuses a broken configuration', async () => {
    const config = await generate({});
    expect(check(config).code).toBe(0);
    const broken = check(config.replace('use_backend lgw_gateway_payment', 'use_backend lgw_nowhere'));
    expect(broken.code).not.toBe(0);
    expect(broken.output).toContain('lgw_nowhere');
    expect(check(config.replace("path -m reg '^/api/(", "path -m reg '^/api/((")).code).not.toBe(0);
  });
});

interface RawReply {
  status: number;
  body: string;
}

function send(port: number, method: string, target: string, body?: string): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: target, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    if (body !== undefined) req.setHeader('content-length', Buffer.byteLength(body));
    req.end(body);
  });
}

async function listening(port: number, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`haproxy exited (${child.exitCode})`);
    const up = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (up) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('haproxy did not listen within 10 s');
}

describe('a real HAProxy routes as the gateway would', () => {
  let gatewayFake: RecordingUpstream;
  let v1: RecordingUpstream;
  let child: ChildProcess;
  let port: number;

  beforeAll(async () => {
    gatewayFake = await startRecordingUpstream((req, res) => json(res, 200, { from: 'gateway', url: req.url }));
    v1 = await startRecordingUpstream((req, res) => json(res, 200, { from: 'v1', url: req.url }));
    port = await freePort();
    const config = await routesConfig({ format: 'haproxy', listen: `127.0.0.1:${port}`, gateway: [gatewayFake.url], upstream: `${v1.url}/base` }, {});
    const file = path.join(dir, 'running.cfg');
    writeFileSync(file, config);
    // In the foreground (-db), with its own pid file: stopped by that pid, never by name.
    child = spawn(HAPROXY!, ['-db', '-p', path.join(dir, 'haproxy.pid'), '-f', file], { stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr!.resume();
    await listening(port, child);
  });
  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = once(child, 'exit');
      const pidFile = path.join(dir, 'haproxy.pid');
      process.kill(existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').trim()) : child.pid!, 'SIGTERM');
      await exited;
    }
    await gatewayFake?.close();
    await v1?.close();
  });
  beforeEach(() => {
    gatewayFake.received.length = 0;
    v1.received.length = 0;
  });

  it.each([
    ['GET', '/api/clients/0/5', 'gateway'],
    ['HEAD', '/api/session/4', 'gateway'],
    ['GET', '/api/client?email=a%40b.example', 'gateway'],
    ['POST', '/api/payment', 'gateway'],
    ['POST', '/api/payment/', 'gateway'],
    ['GET', '/healthz', 'gateway'],
    ['GET', '/readyz', 'gateway'],
    ['GET', '/api/v1/clients?%61pi_key=k', 'gateway'],
    ['GET', '/assets/app.js?api_key=k', 'gateway'],
    ['GET', '/api/v1/clients?limit=2', 'v1'],
    ['GET', '/api/Clients/0/5', 'v1'],
    ['GET', '/api/%63lients/0/5', 'v1'],
    ['GET', '/api/payment', 'v1'],
    ['POST', '/api/clients', 'v1'],
    ['GET', '/ondemand/1/a/b', 'v1'],
    ['GET', '/a//b/../c', 'v1'],
  ])('%s %s -> %s, the target unchanged', async (method, target, where) => {
    const reply = await send(port, method, target);
    expect(reply.status).toBe(200);
    const fake = where === 'gateway' ? gatewayFake : v1;
    const received = fake.received.filter((r) => r.url !== '/readyz' || target === '/readyz');
    expect(received.map((r) => `${r.method} ${r.url}`)).toEqual([`${method} ${where === 'v1' ? '/base' : ''}${target}`]);
    if (where === 'v1') expect(received[0]!.headers.host).toBe(new URL(v1.url).host);
  });

  it('refuses a payment body over 256 KB in the payment shape, before the gateway', async () => {
    const reply = await send(port, 'POST', '/api/payment', `notes=${'n'.repeat(256 * 1024)}`);
    expect(reply).toEqual({ status: 413, body: '{"status":"failure","code":0,"response":"the request body is larger than 262144 bytes"}' });
    expect(gatewayFake.received.filter((r) => r.url !== '/readyz')).toEqual([]);
  });
});
