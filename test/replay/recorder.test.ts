// RECORD_FILE: the recorder step writes one redacted JSONL line per call, in the format replay reads (a
// recording replays identical against the same server), and never disturbs the request path. The legacy
// app recorded here is built from the gateway's own edge (router, context) and writers, with routes of its
// own: what is recorded is what those writers hand over, the relayed (streamed) reply included.
import { mkdtempSync, rmSync, readFileSync } from 'node:fs';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { runReplay } from '../../src/replay/run/runner.js';
import { EMPTY_RULE_SET } from '../../src/replay/rules/rules-file.js';
import { createRecorder, type Recorder } from '../../src/gateway/steps/record.js';
import type { RequestContext } from '../../src/gateway/edge/request-context.js';
import type { Route } from '../../src/gateway/edge/route.js';
import { createGatewayRouter } from '../../src/gateway/edge/router.js';
import { sendLegacyError } from '../../src/gateway/edge/error-reply.js';
import { writeJson, writeJsonReply } from '../../src/gateway/edge/write-json.js';
import { GatewayError } from '../../src/shared/errors.js';
import { parseJsonExact, stringifyExact, type JsonObject } from '../../src/shared/json-exact.js';
import { createPassthrough, type Passthrough } from '../../src/gateway/routes/passthrough.js';

interface Line {
  time: string;
  request: { method: string; url: string; headers: Record<string, string>; body?: unknown };
  response: { status: number; headers: Record<string, string>; body?: unknown };
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'replay-recorder-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let servers: Server[] = [];
let relays: Passthrough[] = [];
afterEach(async () => {
  await Promise.all(relays.map((r) => r.close()));
  relays = [];
  for (const s of servers) s.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  servers = [];
});

async function listen(handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Reads a form body the way the payment route does, leaving its fields on the context for the recorder. */
async function readForm(ctx: RequestContext): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
  const fields = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
  ctx.bodyFields = fields;
  ctx.secrets.addBodyFields(fields);
}

async function legacyApp(recorder: Recorder): Promise<string> {
  // A text reply written in two parts, relayed by the passthrough as it arrives.
  // A JSON list streamed in pieces, its numbers spelled as JSON.stringify would not.
  const textUpstream = await listen((req, res) => {
    if (req.url === '/api/stream') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('[{"id":1,"price":"45.50","rate":1.0},');
      res.write('{"id":2,"price":"0.10","rate":2e2},');
      res.end('{"id":3,"note":"é ✓"}]');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write('part one, ');
    res.end('part two');
  });
  const relay = createPassthrough({ upstreamUrl: textUpstream, timeoutMs: 5000 });
  relays.push(relay);
  const route = (kind: Route['kind'], label: string, handle: Route['handle']): Route => ({ kind, label, bodyLimit: 1024 * 1024, handle });
  const staff = route('read', 'staff', (ctx) => {
    const id = ctx.request.path.split('/')[3];
    writeJson(ctx, 200, { status: 'success', response: { id, first_name: 'Olivia', echoed_key: ctx.req.headers['x-api-key'] ?? null } });
  });
  const text = route('read', 'text', relay);
  const failing = route('read', 'failing', (ctx) => sendLegacyError(ctx, new GatewayError('LGW_UPSTREAM_ERROR', 'v1 refused the call: "unknown client 9"', { status: 502 })));
  const cached = Buffer.from('{"status":"success","response":[{"id":"1","total":"12.00"}]}');
  const kept = route('read', 'kept', (ctx) => writeJsonReply(ctx, 200, cached));
  const payment = route('payment', 'payment', async (ctx) => {
    await readForm(ctx);
    writeJson(ctx, 200, { status: 'success', code: 12, response: 'Payment added' });
  });
  const notFound = route('passthrough', 'passthrough', (ctx) => writeJson(ctx, 404, { status: 'failure', response: 'not found' }));
  const routes = [staff, text, failing, kept, payment, notFound];
  const byPath = new Map([['/api/text', text], ['/api/stream', text], ['/api/failing', failing], ['/api/kept', kept], ['/api/payment', payment]]);
  const gateway = createGatewayRouter({
    table: {
      lookup: ({ path: at }) => (at.startsWith('/api/staff/') ? staff : (byPath.get(at) ?? notFound)),
      routes: () => routes,
    },
    steps: [recorder.step],
    fallbackApiKey: undefined,
  });
  return listen((req, res) => gateway(req, res));
}

describe('createRecorder', () => {
  it('appends one redacted line per call, with the reply body as sent', async () => {
    const file = path.join(dir, 'calls.jsonl');
    const recorder = createRecorder(file, { now: () => new Date('2024-03-05T10:00:00Z') });
    const base = await legacyApp(recorder);
    await fetch(`${base}/api/staff/1?api_key=query-secret-123`, { headers: { 'X-API-KEY': 'header-secret-456', Cookie: 'sid=cookie-secret-789' } });
    await fetch(`${base}/api/text`);
    await fetch(`${base}/api/payment`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: 'Bearer bearer-secret-000' },
      body: 'client_id=1&revenue_amount=5.00&send_email=0&token=tok_card_secret_1&password=pass-secret-2&password2=pass-secret-2',
    });
    await recorder.close();

    const text = readFileSync(file, 'utf8');
    for (const secret of ['query-secret-123', 'header-secret-456', 'cookie-secret-789', 'bearer-secret-000', 'tok_card_secret_1', 'pass-secret-2']) {
      expect(text).not.toContain(secret);
    }
    const lines = text.trimEnd().split('\n').map((l) => JSON.parse(l) as Line);
    expect(lines).toHaveLength(3);
    const [staff, plain, payment] = lines;
    expect(staff).toMatchObject({
      time: '2024-03-05T10:00:00.000Z',
      request: { method: 'GET', url: expect.stringMatching(/\/api\/staff\/1\?api_key=\[REDACTED\]$/), headers: { 'x-api-key': '[REDACTED]', cookie: '[REDACTED]' } },
      // The key echoed in the body is scrubbed by value.
      response: { status: 200, body: { status: 'success', response: { id: '1', first_name: 'Olivia', echoed_key: '[REDACTED]' } } },
    });
    expect(staff?.response.headers['content-type']).toMatch(/application\/json/);
    expect(plain?.response.body).toBe('part one, part two');
    expect(payment).toMatchObject({
      request: { method: 'POST', headers: { authorization: '[REDACTED]' }, body: { client_id: '1', token: '[REDACTED]', password: '[REDACTED]', password2: '[REDACTED]' } },
      response: { status: 200, body: { status: 'success', code: 12 } },
    });
  });

  it('writes a file that replay reads and finds identical against the same server', async () => {
    const file = path.join(dir, 'roundtrip.jsonl');
    const recorder = createRecorder(file);
    const base = await legacyApp(recorder);
    for (const id of ['1', '2', '3']) await fetch(`${base}/api/staff/${id}`);
    await fetch(`${base}/api/text`);
    await recorder.close();
    const result = await runReplay({
      file,
      targetUrl: base,
      apiKey: undefined,
      safety: { includeWrites: false, allowProductionWrites: false, targetIsSandboxOrLoopback: true, allPaths: false },
      rules: EMPTY_RULE_SET,
      checkOrder: true,
      concurrency: 2,
      ratePerSecond: undefined,
      timeoutMs: 5000,
      hourlyBudget: 1000,
    });
    expect(result.summary).toMatchObject({ total: 4, identical: 4 });
  });

  it('never fails a request when the file cannot be written, and says so once', async () => {
    const errors: string[] = [];
    const recorder = createRecorder(path.join(dir, 'no-such-dir', 'calls.jsonl'), { onError: (e) => void errors.push(e.message) });
    const base = await legacyApp(recorder);
    const first = await fetch(`${base}/api/staff/1`);
    const second = await fetch(`${base}/api/staff/2`);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(await second.json()).toMatchObject({ response: { id: '2' } });
    await recorder.close();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/cannot write .*calls\.jsonl: ENOENT/);
  });

  it('records a large reply without its body rather than holding it', async () => {
    const file = path.join(dir, 'large.jsonl');
    const recorder = createRecorder(file, { maxBodyBytes: 10 });
    const base = await legacyApp(recorder);
    await fetch(`${base}/api/staff/1`);
    await recorder.close();
    const [line] = readFileSync(file, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as Line);
    expect(line?.response.status).toBe(200);
    expect(line?.response.body).toBeUndefined();
  });

  it("records of each writer the very bytes its caller received: JSON text, kept bytes, an error, a relayed stream", async () => {
    const file = path.join(dir, 'bytes.jsonl');
    const recorder = createRecorder(file);
    const base = await legacyApp(recorder);
    const received: { status: number; body: string }[] = [];
    for (const at of ['/api/staff/7', '/api/kept', '/api/failing', '/api/stream', '/api/text']) {
      const reply = await fetch(`${base}${at}`);
      received.push({ status: reply.status, body: Buffer.from(await reply.arrayBuffer()).toString('utf8') });
    }
    await recorder.close();
    // Read exactly: a number keeps its spelling, so the JSON embedded in a line prints back as it was sent.
    const recorded = readFileSync(file, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => (parseJsonExact(l) as { response: JsonObject }).response)
      .map(({ status, body }) => ({ status, body: typeof body === 'string' ? body : stringifyExact(body!) }));
    expect(recorded).toEqual(received);
    expect(received.map((r) => r.status)).toEqual([200, 200, 502, 200, 200]);
    expect(received[3]?.body).toBe('[{"id":1,"price":"45.50","rate":1.0},{"id":2,"price":"0.10","rate":2e2},{"id":3,"note":"é ✓"}]');
  });
});
