// The gateway as a library, as a user gets it: the package packed with `npm pack`, installed into a
// scratch project, imported as `legacy-gateway` (types included) and mounted under a path of an existing
// Express app, in front of the embedded sandbox. Its replies must be the standalone gateway's, byte for byte.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_KEYS, startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { fetchReply } from '../helpers/fetch-reply.js';

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

const APP = `
import express from 'express';
import { legacyGateway } from 'legacy-gateway';
const app = express();
app.get('/own', (_req, res) => res.json({ own: true }));
// A host app whose body parser runs before the gateway: the payment takes the fields it parsed.
app.use('/parsed', express.urlencoded({ extended: false }));
const legacy = legacyGateway({ upstreamUrl: process.env.UPSTREAM, upstreamApiKey: process.env.KEY, logLevel: 'silent' });
app.use('/legacy', legacy);
app.use('/parsed', legacy);
const server = app.listen(0, '127.0.0.1', () => process.stdout.write(JSON.stringify({ port: server.address().port }) + '\\n'));
process.on('SIGTERM', () => server.close(() => legacy.close().then(() => process.exit(0))));
`;

const TYPED_USE = `
import express from 'express';
import { legacyGateway, type LegacyGatewayRouter } from 'legacy-gateway';
const router: LegacyGatewayRouter = legacyGateway({ upstreamUrl: 'http://127.0.0.1:9', cacheTtlMs: 0 });
express().use('/legacy', router);
export const stop: () => Promise<void> = router.close;
`;

let scratch: string;
let sandbox: RunningSandbox;
let app: ChildProcess;
let appUrl: string;
let standalone: TestGateway;
let installWarnings: string;

async function installPackedPackage(): Promise<void> {
  const packed = await run(npm, ['pack', '--ignore-scripts', '--pack-destination', scratch], { cwd: root });
  const tarball = path.join(scratch, packed.stdout.trim().split('\n').at(-1)!);
  writeFileSync(path.join(scratch, 'package.json'), JSON.stringify({ name: 'scratch', private: true, type: 'module' }));
  // Installed as a consumer installs it, scripts allowed: npm warns of any install script in the package.
  const installed = await run(npm, ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], { cwd: scratch });
  installWarnings = installed.stderr;
}

async function startApp(): Promise<void> {
  writeFileSync(path.join(scratch, 'app.mjs'), APP);
  app = spawn(process.execPath, ['app.mjs'], { cwd: scratch, env: { ...process.env, UPSTREAM: sandbox.url, KEY: SANDBOX_KEYS.primary }, stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = (await once(createInterface({ input: app.stdout! }), 'line')) as [string];
  appUrl = `http://127.0.0.1:${(JSON.parse(line) as { port: number }).port}`;
}

beforeAll(async () => {
  scratch = mkdtempSync(path.join(os.tmpdir(), 'lgw-library-'));
  sandbox = await startSandbox({ port: 0 });
  standalone = await startTestGateway({ UPSTREAM_URL: sandbox.url, UPSTREAM_API_KEY: SANDBOX_KEYS.primary });
  await installPackedPackage();
  await startApp();
}, 180_000);

// Three processes drain and stop here; on a loaded machine that outlasts the default hook timeout.
afterAll(async () => {
  if (app && app.exitCode === null) {
    app.kill('SIGTERM');
    await once(app, 'exit');
  }
  await standalone?.close();
  await sandbox?.close();
  rmSync(scratch, { recursive: true, force: true });
}, 60_000);

describe('legacyGateway() from the packed package', () => {
  it('installs without a warning: no install script (dist/ is built before packing), no engine refused', () => {
    expect(installWarnings).not.toMatch(/install-scripts|prepare|EBADENGINE/);
  });

  it('answers legacy calls under its mount path exactly as the standalone gateway does', async () => {
    for (const call of ['/api/clients/0/3', '/api/staff/2', '/api/meetourteam/0/5', '/api/client?email=g.hopper@navy.example.mil', '/api/sessions/0/2']) {
      const mounted = await fetchReply(`${appUrl}/legacy${call}`);
      const direct = await fetchReply(`${standalone.url}${call}`);
      expect(mounted.status).toBe(200);
      expect(mounted.text).toBe(direct.text);
      expect(mounted.headers.get('content-type')).toBe('application/json; charset=utf-8');
    }
  });

  it('keeps the legacy error shape and leaves the host app its own routes', async () => {
    const bad = await fetchReply(`${appUrl}/legacy/api/clients/x`);
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ status: 'failure', response: expect.any(String) as string });
    expect((await fetchReply(`${appUrl}/own`)).body).toEqual({ own: true });
  });

  it('answers a payment with its legacy code, and the sandbox records exactly one payment POST', async () => {
    const before = sandbox.state.requests.filter((r) => r.method === 'POST' && r.path === '/api/v1/payments').length;
    const reply = await fetchReply(`${appUrl}/legacy/api/payment`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'client_id=1&revenue_amount=45.50&send_email=0',
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ status: 'success', code: 12 });
    expect(Object.keys(reply.body as object)).toEqual(['status', 'code', 'response']);
    expect(sandbox.state.requests.filter((r) => r.method === 'POST' && r.path === '/api/v1/payments')).toHaveLength(before + 1);
  });

  it('takes the fields of a body the host app parsed before it, instead of waiting for the spent stream', async () => {
    const reply = await fetchReply(`${appUrl}/parsed/api/payment`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'client_id=1&revenue_amount=45.50',
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ status: 'failure', code: 1, response: 'required fields missing: send_email' });
  });

  it('type-checks as a TypeScript user imports it', async () => {
    writeFileSync(path.join(scratch, 'typed.ts'), TYPED_USE);
    // A TypeScript user of Express has its type packages installed (@types/express, @types/node): the
    // checkout's, linked where the user's own would be, so that the import of 'express' resolves as theirs.
    symlinkSync(path.join(root, 'node_modules/@types'), path.join(scratch, 'node_modules/@types'), 'dir');
    writeFileSync(
      path.join(scratch, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', strict: true, noEmit: true, types: ['node'] }, files: ['typed.ts'] }),
    );
    await expect(run(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', scratch])).resolves.toMatchObject({ stderr: '' });
  }, 60_000);
});
