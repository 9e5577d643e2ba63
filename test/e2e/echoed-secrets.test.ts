// Secrets that v1 echoes back in its error messages never leave the gateway: a fake v1 puts the key it
// received, the card token and the password (as is, percent-encoded, JSON-escaped, masked) into every
// error message, for reads and for the payment and client POSTs. A gateway holding UPSTREAM_API_KEY and
// writing RECORD_FILE is called with a caller's key, with no key (the gateway's key is lent), with
// `api_key=` in the query, and with payments under an Idempotency-Key (then repeated). Every output is
// searched for every secret: reply bodies and headers, the stored replies, the recording, every log line,
// and the JSON report (and output) of a replay of that recording. The messages still say what happened.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { json, startRecordingUpstream, type ReceivedRequest, type RecordingUpstream } from '../helpers/recording-upstream.js';

const run = promisify(execFile);
const cli = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/cli.js');

const CALLER_KEY = 'caller-key-3f9a7d21c4';
const QUERY_KEY = 'query-key-b81c55e0aa';
const GATEWAY_KEY = 'gw-lent-key-5d2e8a7c91';
const TOKEN = 'tok_live_9Z8Y7X6W5V';
const PASSWORD = 'p@ss w0rd/Secret"9';
const SECRETS = [CALLER_KEY, QUERY_KEY, GATEWAY_KEY, TOKEN, PASSWORD];

/** How v1 shows a key it will not print whole. */
const masked = (key: string) => `${key.slice(0, 6)}****${key.slice(-4)}`;

/** Every spelling a secret may take in an output: as is, percent- and form-encoded, JSON-escaped. */
function spellings(secret: string): string[] {
  const uri = encodeURIComponent(secret);
  return [...new Set([secret, uri, uri.toLowerCase(), uri.replace(/%20/g, '+'), new URLSearchParams([['', secret]]).toString().slice(1), JSON.stringify(secret).slice(1, -1)])];
}

/** Every piece of the gateway's key a caller could learn from: its masked rendering, its first and last
 * characters (a caller's own key is removed by value only: v1's mask of it may stay). */
const GATEWAY_KEY_PIECES = [masked(GATEWAY_KEY), GATEWAY_KEY.slice(0, 8), GATEWAY_KEY.slice(-6)];

function expectNoSecret(where: string, text: string): void {
  for (const secret of SECRETS) {
    for (const spelling of spellings(secret)) expect(text.includes(spelling), `${where} holds ${JSON.stringify(spelling)}`).toBe(false);
  }
  for (const piece of GATEWAY_KEY_PIECES) expect(text.includes(piece), `${where} holds ${JSON.stringify(piece)} of the gateway's key`).toBe(false);
}

/** What v1 says about what it received: every secret in every spelling it could echo. */
function echo(req: ReceivedRequest): string {
  const key = String(req.headers['x-api-key'] ?? '');
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(req.body.toString('utf8')) as Record<string, unknown>;
  } catch {
    // a GET: no body
  }
  const parts = [`key ${key} (shown as ${masked(key)}, sent as ${encodeURIComponent(key)})`];
  const secretBody: Record<string, unknown> = {};
  for (const name of ['token', 'password']) {
    const value = body[name];
    if (typeof value !== 'string') continue;
    parts.push(`${name} ${value} (encoded ${encodeURIComponent(value)})`);
    secretBody[name] = value;
  }
  if (Object.keys(secretBody).length > 0) parts.push(`body ${JSON.stringify(secretBody)}`);
  return parts.join(' ');
}

const CODES: Record<number, string> = { 400: 'invalid_request', 401: 'unauthorized', 402: 'card_declined', 403: 'forbidden', 404: 'not_found', 409: 'conflict', 422: 'unprocessable', 500: 'internal_error' };

function fail(res: ServerResponse, status: number, what: string, req: ReceivedRequest): void {
  json(res, status, { error: { code: CODES[status] ?? 'error', message: `${what} refused: ${echo(req)}` } });
}

/** The fake v1: a read of staff or client {id} answers HTTP {id} when it is an error status; client 1 exists;
 * new clients and payments fail by their first name or amount. */
function fakeV1(req: ReceivedRequest, res: ServerResponse): void {
  const url = new URL(req.url, 'http://v1');
  const read = /^\/api\/v1\/(staff|clients)\/(\d+)$/.exec(url.pathname);
  if (req.method === 'GET' && read) {
    const id = Number(read[2]);
    if (id === 1) return json(res, 200, { id: 1, first_name: 'Ada', last_name: 'Lovelace' });
    if (id === 498) {
      // A long message: the key stands across the point where the gateway shortens v1's messages.
      return json(res, 400, { error: { code: 'invalid_request', message: `${'detail '.repeat(70).slice(0, 490)} ${req.headers['x-api-key']} ${'more '.repeat(40)}` } });
    }
    return fail(res, id, `${read[1]} ${id}`, req);
  }
  if (req.method === 'POST' && url.pathname === '/api/v1/clients') {
    const body = JSON.parse(req.body.toString('utf8')) as { first_name: string };
    const status = Number(body.first_name.slice(1));
    if (status >= 400) return fail(res, status, status === 409 ? 'username Ada is taken;' : 'client', req);
    return json(res, 201, { id: 77 });
  }
  if (req.method === 'POST' && url.pathname === '/api/v1/payments') {
    const body = JSON.parse(req.body.toString('utf8')) as { amount: number };
    const status = Math.round(body.amount * 100);
    if (status >= 400) return fail(res, status, 'payment', req);
    return json(res, 201, { id: 9001 });
  }
  json(res, 404, { error: { code: 'not_found', message: 'no such resource' } });
}

let upstream: RecordingUpstream;
let gateway: TestGateway;
let dir: string;
let recordFile: string;
/** Every reply the gateway gave, as text: status, headers, body. */
const outputs: string[] = [];

async function call(pathAndQuery: string, init: RequestInit = {}): Promise<{ status: number; headers: Headers; body: { response: string; code?: number } }> {
  const res = await fetch(`${gateway.url}${pathAndQuery}`, init);
  const text = await res.text();
  outputs.push(`${res.status} ${JSON.stringify([...res.headers])} ${text}`);
  return { status: res.status, headers: res.headers, body: JSON.parse(text) as { response: string; code?: number } };
}

beforeAll(async () => {
  upstream = await startRecordingUpstream(fakeV1);
  dir = await mkdtemp(path.join(os.tmpdir(), 'lgw-echoed-'));
  recordFile = path.join(dir, 'calls.jsonl');
  gateway = await startTestGateway({ UPSTREAM_URL: upstream.url, UPSTREAM_API_KEY: GATEWAY_KEY, RECORD_FILE: recordFile, CACHE_TTL_MS: '0' });
});
afterAll(async () => {
  await gateway.close();
  await upstream.close();
});

/** How to call, and how v1's masked rendering of the key reads in the reply: a caller's own key is
 * removed by value (v1's mask of it stays), the gateway's lent key even in part. */
const byKey: Array<[string, Record<string, string>, string, string]> = [
  ['a caller key', { 'x-api-key': CALLER_KEY }, '', masked(CALLER_KEY)],
  ['no key (the gateway lends its own)', {}, '', '[REDACTED]'],
  ['api_key in the query', {}, `?api_key=${QUERY_KEY}`, masked(QUERY_KEY)],
];

describe('v1 messages that echo secrets', () => {
  it.each(byKey)('reads with %s: the message is kept, the secrets are not', async (_name, headers, query, shownAs) => {
    for (const [route, status] of [
      ['staff/401', 401],
      ['staff/403', 403],
      ['staff/404', 404],
      ['staff/500', 500],
      ['client?id=401', 401],
      ['client?id=500', 500],
    ] as const) {
      const q = query === '' ? '' : route.includes('?') ? `&${query.slice(1)}` : query;
      const r = await call(`/api/${route}${q}`, { headers });
      expect(r.status).toBe(status);
      expectNoSecret(`the reply to ${route}`, JSON.stringify(r.body));
      expect(r.body.response).toBe(`${route.startsWith('staff') ? 'staff' : 'clients'} ${status} refused: key [REDACTED] (shown as ${shownAs}, sent as [REDACTED])`);
    }
    // A long message is shortened between words, never through an echoed key.
    const long = await call(`/api/staff/498${query}`, { headers });
    expect(long.status).toBe(400);
    expect(long.body.response).toMatch(/^detail detail /);
    expectNoSecret('the shortened reply', long.body.response);
  });

  const newClient = { first_name: 'E400', last_name: 'Okafor', state: 'IL', country: 'US', status: 'active', revenue_amount: '30.00', send_email: '0', password: PASSWORD, password2: PASSWORD, token: TOKEN };
  const existing = { client_id: '1', revenue_amount: '4.02', send_email: '0', token: TOKEN };
  // The legacy code each case answers (where the flow may answer either of two, both), and its message.
  const payments: Array<[string, Record<string, string>, number | number[], RegExp]> = [
    ['a declined card (402)', existing, 11, /^payment refused: key \[REDACTED\].* token \[REDACTED\] \(encoded \[REDACTED\]\) body \{"token":"\[REDACTED\]"\}$/],
    ['a refused payment (400)', { ...existing, revenue_amount: '4.00' }, 0, /^payment refused: key \[REDACTED\]/],
    ['a conflicting payment (409)', { ...existing, revenue_amount: '4.09' }, 8, /^payment refused: key \[REDACTED\]/],
    ['a failing payment (500)', { ...existing, revenue_amount: '5.00' }, 8, /outcome of the payment is unknown \(payment refused: key \[REDACTED\].*\); check the payments list/],
    ['a refused new client (400)', newClient, 0, /^client refused: key \[REDACTED\].* password \[REDACTED\] \(encoded \[REDACTED\]\) body \{"password":"\[REDACTED\]"\}$/],
    ['a taken username (409)', { ...newClient, first_name: 'E409' }, 4, /^username Ada is taken; refused: key \[REDACTED\]/],
    ['a failing new client (500)', { ...newClient, first_name: 'E500' }, [5, 8], /client refused: key \[REDACTED\]/],
    ['a client check v1 refuses (422)', { ...existing, client_id: '422' }, 8, /./],
  ];

  let n = 0;
  for (const [name, headers, query] of byKey) {
    it.each(payments)(`payments with ${name}: %s`, async (_what, fields, code, message) => {
      const key = `order-${++n}`;
      const asJson = n % 2 === 0;
      const init = {
        method: 'POST',
        headers: { ...headers, 'idempotency-key': key, ...(asJson ? { 'content-type': 'application/json' } : {}) },
        body: asJson ? JSON.stringify(fields) : new URLSearchParams(fields),
      };
      const first = await call(`/api/payment${query}`, init);
      expect([code].flat()).toContain(first.body.code);
      expect(first.body.response).toMatch(message);
      expectNoSecret(`the reply to ${name}`, JSON.stringify(first.body));
      // The stored reply is the one sent.
      const repeat = await call(`/api/payment${query}`, init);
      expect(repeat.headers.get('idempotent-replayed')).toBe('true');
      expect(repeat.body).toEqual(first.body);
    });
  }

  it('passes through v1 error replies to a call that brought no key without the lent key in them', async () => {
    const before = upstream.received.length;
    const res = await fetch(`${gateway.url}/api/v1/staff/403`, { headers: { 'accept-encoding': 'gzip' } });
    const text = await res.text();
    expect(res.status).toBe(403);
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
    expect(JSON.parse(text)).toEqual({ error: { code: 'forbidden', message: expect.stringMatching(/^staff 403 refused: key \[REDACTED\]/) as unknown as string } });
    expectNoSecret('a passthrough error reply', `${JSON.stringify([...res.headers])} ${text}`);
    // v1 received the lent key, and was asked for an uncompressed reply (compressed text cannot be scrubbed).
    expect(upstream.received.slice(before).map((r) => [r.url, r.headers['x-api-key'], r.headers['accept-encoding']])).toEqual([['/api/v1/staff/403', GATEWAY_KEY, undefined]]);
    // A caller's own key is its own business: its passthrough replies go on byte for byte.
    const own = await fetch(`${gateway.url}/api/v1/staff/403`, { headers: { 'x-api-key': CALLER_KEY } });
    expect(await own.text()).toContain(CALLER_KEY);
  });

  it('holds no secret in any reply, recording line, log line or replay report', async () => {
    for (const [i, output] of outputs.entries()) expectNoSecret(`reply ${i}`, output);

    // The v1 calls did carry the secrets: the test would prove nothing otherwise.
    const sent = upstream.received.map((r) => `${String(r.headers['x-api-key'])} ${r.body.toString('utf8')}`).join('\n');
    for (const secret of [CALLER_KEY, QUERY_KEY, GATEWAY_KEY, TOKEN, JSON.stringify(PASSWORD).slice(1, -1)]) expect(sent).toContain(secret);

    // The internal fault of a payment (v1 refused the client check with a 422) logs its error, scrubbed.
    await expect.poll(() => gateway.logs.filter((l) => l.includes('"paymentCode":8') && l.includes('"err"')).length).toBeGreaterThan(0);
    const logs = gateway.logs.join('\n');
    expectNoSecret('the log', logs);
    expect(logs).toContain('clients 422 refused: key [REDACTED]');

    await gateway.close();
    const recording = await readFile(recordFile, 'utf8');
    expectNoSecret('the recording', recording);
    expect(recording).toContain('refused: key [REDACTED]');
    expect(recording.trim().split('\n')).toHaveLength(outputs.length);

    // The recording replayed through a new gateway on the same fake v1: it lends its key to every call.
    const replayTarget = await startTestGateway({ UPSTREAM_URL: upstream.url, UPSTREAM_API_KEY: GATEWAY_KEY, CACHE_TTL_MS: '0' });
    try {
      const report = path.join(dir, 'report.json');
      const { stdout, stderr } = await run(process.execPath, [cli, 'replay', recordFile, '--target', replayTarget.url, '--json', report]).catch(
        (err: { stdout: string; stderr: string }) => err,
      );
      expectNoSecret('the replay output', `${stdout}\n${stderr}`);
      const reportText = await readFile(report, 'utf8');
      expectNoSecret('the replay report', reportText);
      expect(reportText).toContain('refused: key [REDACTED]');
      expectNoSecret('the log of the replayed gateway', replayTarget.logs.join('\n'));
    } finally {
      await replayTarget.close();
    }
  });
});
