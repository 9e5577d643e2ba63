// The shutdown deadline for reads, as an operator sees it: the real `serve` process, a fake v1 on loopback
// that receives a read's call and never answers it, SIGTERM. At SHUTDOWN_TIMEOUT_MS the read is answered the
// legacy 503, its v1 call is abandoned (the fake sees the socket closed while it still holds the call), and
// the process exits 0 after the deadline, not after UPSTREAM_TIMEOUT_MS (ten minutes here: a process that
// waited for it would end the test by the suite's timeout, so no wait is timed here). A payment in flight is
// still waited for past the deadline and answers. Team listings part-way through their roster and reads
// sharing one v1 call (single-flight) keep nothing alive either. That a read was cut at the deadline, not
// before it, is read from the drain's own report (its `drained` line: cut off at the deadline, waited for past
// it, finished), never from a clock. Loopback only; events are awaited.
import { spawn, type ChildProcess } from 'node:child_process';
import http, { type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { fetchText } from './hardening-harness.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const cli = path.join(root, 'dist', 'cli.js');

const SHUTDOWN_TIMEOUT_MS = 500;
/** The legacy 503 of lifecycle.ts (SHUTTING_DOWN), byte for byte. */
const SHUTTING_DOWN_BODY = '{"status":"failure","response":"the gateway is shutting down: retry the call"}';
const KEY = { 'x-api-key': 'k-shutdown' };

/** One v1 call the fake received. */
interface V1Call {
  method: string;
  url: string;
  /** Set once the fake has sent a reply (a held call never gets one). */
  answered: boolean;
  /** Resolves when the call's socket closes (the gateway abandoned it, or the fake closed at the end). */
  socketClosed: Promise<void>;
  socketIsClosed: boolean;
}

/** What the fake does with a call: answers it with `res`, or leaves it unanswered (held for ever). */
type Answer = (call: V1Call, res: ServerResponse) => Promise<void> | void;

/** The fake's answer to a call it holds: none. */
const hold = (): void => undefined;

interface HoldingV1 {
  url: string;
  calls: V1Call[];
  /** Resolves with the first call (already received or still to come) that `match` accepts. */
  arrival(match: (call: V1Call) => boolean): Promise<V1Call>;
  close(): Promise<void>;
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

const list = (data: object[], hasMore = false) => ({ object: 'list', total: data.length, limit: 1000, offset: 0, has_more: hasMore, data });

/** A purpose-built fake v1: records every call and, per call, answers or holds it for ever. */
async function startHoldingV1(answer: Answer): Promise<HoldingV1> {
  const calls: V1Call[] = [];
  const waiters: Array<{ match: (call: V1Call) => boolean; resolve: (call: V1Call) => void }> = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.once('end', () => {
      let markClosed!: () => void;
      const call: V1Call = {
        method: req.method ?? '',
        url: req.url ?? '',
        answered: false,
        socketIsClosed: false,
        socketClosed: new Promise<void>((resolve) => (markClosed = resolve)),
      };
      req.socket.once('close', () => {
        call.socketIsClosed = true;
        markClosed();
      });
      res.once('finish', () => (call.answered = true));
      calls.push(call);
      for (const w of [...waiters]) {
        if (!w.match(call)) continue;
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(call);
      }
      void Promise.resolve(answer(call, res)).catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    arrival: (match) =>
      new Promise<V1Call>((resolve) => {
        const seen = calls.find(match);
        if (seen) resolve(seen);
        else waiters.push({ match, resolve });
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface ServeProcess {
  child: ChildProcess;
  port: number;
  /** Resolves with the exit code. */
  exited: Promise<{ code: number | null }>;
  /** Resolves with the first log line whose msg is `msg`. */
  logLine(msg: string): Promise<Record<string, unknown>>;
}

const children: ChildProcess[] = [];
const fakes: HoldingV1[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await Promise.all(fakes.splice(0).map((fake) => fake.close()));
});

async function serve(upstreamUrl: string): Promise<ServeProcess> {
  const child = spawn(process.execPath, [cli, 'serve'], {
    env: {
      PATH: process.env.PATH,
      UPSTREAM_URL: upstreamUrl,
      PORT: '0',
      HOST: '127.0.0.1',
      SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
      // Far beyond the test's timeout: an exit that waited for the upstream's timeout fails the test.
      UPSTREAM_TIMEOUT_MS: '600000',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  const exited = new Promise<{ code: number | null }>((resolve) => child.once('exit', (code) => resolve({ code })));
  const seen: Array<Record<string, unknown>> = [];
  const waiting: Array<{ msg: string; resolve: (entry: Record<string, unknown>) => void }> = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const entry = JSON.parse(line) as Record<string, unknown>;
    seen.push(entry);
    for (const w of [...waiting]) {
      if (w.msg !== entry.msg) continue;
      waiting.splice(waiting.indexOf(w), 1);
      w.resolve(entry);
    }
  });
  const logLine = (msg: string) =>
    new Promise<Record<string, unknown>>((resolve) => {
      const entry = seen.find((e) => e.msg === msg);
      if (entry) resolve(entry);
      else waiting.push({ msg, resolve });
    });
  const listening = await Promise.race([logLine('legacy-gateway listening'), exited.then(({ code }) => Promise.reject(new Error(`serve exited ${code} before listening`)))]);
  return { child, port: listening.port as number, exited, logLine };
}

/** SIGTERM now; resolves once the process has said it is draining. */
async function sigterm(gateway: ServeProcess): Promise<void> {
  const draining = gateway.logLine('shutting down: draining requests in flight');
  gateway.child.kill('SIGTERM');
  await draining;
}

/** From the drain's report (its `drained` line): the requests still waiting at the deadline, cut off there, and
 * those waited for past it. A request answered before the deadline is in neither. */
async function drained(gateway: ServeProcess): Promise<{ cutOff: unknown; waitedPastDeadline: unknown }> {
  const { cutOff, waitedPastDeadline } = await gateway.logLine('drained');
  return { cutOff, waitedPastDeadline };
}

/** A GET whose request bytes are known to have been handed to the OS (`written`), and its reply. */
function sent(url: string): { written: Promise<void>; reply: Promise<{ status: number; text: string }> } {
  let written!: Promise<void>;
  const reply = new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = http.request(url, { headers: KEY, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    written = new Promise<void>((resolve) => req.once('finish', resolve));
    req.end();
  });
  return { written, reply };
}

const isRead = (call: V1Call) => call.method === 'GET' && call.url.startsWith('/api/v1/clients?');

describe('the shutdown deadline for reads (the serve process)', () => {
  it('answers a read still waiting on v1 the legacy 503, abandons its v1 call, and exits 0 soon after the deadline', async () => {
    const fake = await startHoldingV1(hold);
    fakes.push(fake);
    const gateway = await serve(fake.url);
    const read = fetchText(`http://127.0.0.1:${gateway.port}/api/clients/0/10`, { headers: KEY });
    const call = await fake.arrival(isRead);

    await sigterm(gateway);
    const answer = await read;
    expect(answer.status).toBe(503);
    expect(answer.text).toBe(SHUTTING_DOWN_BODY);
    // The v1 call is abandoned: its socket closes while the fake still holds the call unanswered.
    await call.socketClosed;
    expect(call.answered).toBe(false);
    // The read was still waiting at the deadline, and was cut off there.
    expect(await drained(gateway)).toEqual({ cutOff: 1, waitedPastDeadline: 0 });
    const { code } = await gateway.exited;
    expect(code).toBe(0);
    expect(fake.calls.filter(isRead)).toHaveLength(1);
  });

  it('keeps nothing alive for a team listing part-way through its roster or reads sharing one v1 call', async () => {
    const fake = await startHoldingV1((call, res) => {
      // A team listing's first page says there is more; every other call is held.
      if (call.url.startsWith('/api/v1/practitioners?') && new URL(call.url, 'http://x').searchParams.get('offset') === '0') {
        return reply(res, 200, list([{ object: 'practitioner', id: 1, first_name: 'Ann', priority: 1 }], true));
      }
      hold();
    });
    fakes.push(fake);
    const gateway = await serve(fake.url);
    const base = `http://127.0.0.1:${gateway.port}`;
    const listing = fetchText(`${base}/api/meetourteam/0/5`, { headers: KEY });
    const secondPage = await fake.arrival((call) => call.url.startsWith('/api/v1/practitioners?') && call.url.includes('offset=1000'));
    const first = fetchText(`${base}/api/clients/0/10`, { headers: KEY });
    const shared = await fake.arrival(isRead);
    // An identical read with the same key joins the first one's v1 call (single-flight): nothing reaches v1.
    const joined = sent(`${base}/api/clients/0/10`);
    await joined.written;
    // A read sent after it, on a connection opened after its own: once its v1 call arrives, the joined read
    // was accepted too (a request still on the wire at SIGTERM would be refused instead of answered).
    const after = fetchText(`${base}/api/staffs/0/1`, { headers: KEY });
    const afterCall = await fake.arrival((call) => call.url.startsWith('/api/v1/staff?'));

    await sigterm(gateway);
    for (const answer of await Promise.all([listing, first, joined.reply, after])) {
      expect(answer.status).toBe(503);
      expect(answer.text).toBe(SHUTTING_DOWN_BODY);
    }
    await Promise.all([secondPage.socketClosed, shared.socketClosed, afterCall.socketClosed]);
    expect([secondPage.answered, shared.answered, afterCall.answered]).toEqual([false, false, false]);
    const { code } = await gateway.exited;
    expect(code).toBe(0);
    expect(fake.calls.filter(isRead)).toHaveLength(1);
  });

  it('still waits for a payment in flight past the deadline, answers it, abandons the read, and exits 0', async () => {
    let releasePayment!: () => void;
    const paymentReleased = new Promise<void>((resolve) => (releasePayment = resolve));
    const fake = await startHoldingV1(async (call, res) => {
      if (isRead(call)) return hold();
      // The payment's calls (its client check, the POST) wait until the test lets them go.
      await paymentReleased;
      if (call.method === 'POST') return reply(res, 201, { object: 'payment', id: 77 });
      if (call.url.startsWith('/api/v1/clients/')) return reply(res, 200, { object: 'client', id: 1 });
      return reply(res, 200, list([]));
    });
    fakes.push(fake);
    const gateway = await serve(fake.url);
    const base = `http://127.0.0.1:${gateway.port}`;
    const read = fetchText(`${base}/api/clients/0/10`, { headers: KEY });
    const payment = fetchText(`${base}/api/payment`, {
      method: 'POST',
      headers: KEY,
      body: new URLSearchParams({ client_id: '1', revenue_amount: '45.50', send_email: '0' }),
    });
    const [readCall] = await Promise.all([fake.arrival(isRead), fake.arrival((call) => call.url.startsWith('/api/v1/clients/'))]);

    await sigterm(gateway);
    // The read is cut off at the deadline; only then does v1 answer the payment's calls.
    const cut = await read;
    expect(cut.status).toBe(503);
    expect(cut.text).toBe(SHUTTING_DOWN_BODY);
    releasePayment();
    const paid = await payment;
    expect(paid.status).toBe(200);
    expect(JSON.parse(paid.text)).toMatchObject({ status: 'success', code: 12 });
    await readCall.socketClosed;
    expect(readCall.answered).toBe(false);
    // Not before the deadline: the read was still waiting there and was cut off then (not at the signal, nor
    // by another path while the payment waited); the payment alone was waited for past it, counted twice: as a
    // request that must finish and as the work it holds (routes/payment.ts).
    expect(await drained(gateway)).toEqual({ cutOff: 1, waitedPastDeadline: 2 });
    const { code } = await gateway.exited;
    expect(code).toBe(0);
    expect(fake.calls.filter((call) => call.method === 'POST')).toHaveLength(1);
  });
});
