// What `serve` loads: the Redis client only when REDIS_URL names a server. Its modules alone take about
// 20 MB resident (28 MB on Node 24), for nothing in a gateway that keeps its state in process. The gateway
// runs as a process, with a preload that lists, as the process exits, the packages it loaded.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startRecordingUpstream } from '../helpers/recording-upstream.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(root, 'dist/cli.js');
const scratch = mkdtempSync(path.join(os.tmpdir(), 'lgw-modules-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

// The packages in the CommonJS module cache (@redis/client is loaded as CommonJS): one line on stderr when
// the process gets SIGUSR2 (the preload's handler is there before the gateway's code runs).
const preload = path.join(scratch, 'list-packages.mjs');
writeFileSync(
  preload,
  `import { createRequire } from 'node:module';
import { writeSync } from 'node:fs';
const cache = createRequire(import.meta.url).cache;
process.on('SIGUSR2', () => {
  const packages = new Set(Object.keys(cache).map((f) => /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(f)?.[1]).filter(Boolean));
  writeSync(2, 'PACKAGES ' + JSON.stringify([...packages].sort()) + '\\n');
});
`,
);

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = net.createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

/** `serve` with `env` until it listens: the packages it has loaded by then. */
async function packagesLoaded(env: Record<string, string>): Promise<string[]> {
  const upstream = await startRecordingUpstream();
  const child = spawn(process.execPath, ['--import', preload, cli, 'serve'], {
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', PORT: '0', UPSTREAM_URL: upstream.url, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = once(child, 'exit');
  try {
    const failed = exited.then(([code]) => Promise.reject(new Error(`serve exited with ${String(code)}`)));
    const listening = new Promise<void>((resolve) => {
      createInterface({ input: child.stdout! }).on('line', (line) => {
        if (line.includes('"msg":"legacy-gateway listening"')) resolve();
      });
    });
    await Promise.race([listening, failed]);
    const listed = new Promise<string>((resolve) => {
      createInterface({ input: child.stderr! }).on('line', (line) => {
        if (line.startsWith('PACKAGES ')) resolve(line.slice('PACKAGES '.length));
      });
    });
    child.kill('SIGUSR2');
    return JSON.parse(await Promise.race([listed, failed])) as string[];
  } finally {
    child.kill('SIGKILL');
    await exited;
    await upstream.close();
  }
}

describe('serve loads the Redis client only with REDIS_URL', () => {
  it('without REDIS_URL: no @redis package is loaded', async () => {
    const packages = await packagesLoaded({});
    expect(packages).toContain('undici');
    expect(packages.filter((p) => p.startsWith('@redis/'))).toEqual([]);
  });

  it('with REDIS_URL (a server that is down, which is no reason not to start): @redis/client is loaded', async () => {
    const packages = await packagesLoaded({ REDIS_URL: `redis://127.0.0.1:${await closedPort()}`, GATEWAY_SECRET: 'x'.repeat(40) });
    expect(packages).toContain('@redis/client');
  });
});
