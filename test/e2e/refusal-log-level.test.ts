// The level of a request's log line: a refusal the gateway gives by design is a warning without an error
// object (no stack), whatever its 5xx status; a fault stays an error.
// - A payment answered code 8 "outcome unknown" (502) or refused by the claims store (503): the request
//   line (request-line.ts, as the log step arms it) over a real loopback connection, the request's context
//   attached as the edge attaches it and marked as the payment route marks a refusal by design, the reply
//   built as the contract builds it (code 8, the mapping's message, 502 or 503). The same code and status
//   without the mark (v1 unreachable, a cached v1 reply), a replayed copy of a stored fault and a gateway
//   fault (500) stay errors.
// - The whole gateway against a recording fake v1: a payment whose v1 cannot be reached stays an error;
//   /api/testimonials with no TESTIMONIALS_FILE (501, by design) is a warning.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHIPPED_MAPPINGS_DIR } from '../../src/gateway/config.js';
import { LegacyRequest } from '../../src/gateway/edge/legacy-request.js';
import { openContext, type RequestContext } from '../../src/gateway/edge/request-context.js';
import type { Route } from '../../src/gateway/edge/route.js';
import { writeJson } from '../../src/gateway/edge/write-json.js';
import { loadMappingDirectorySync } from '../../src/gateway/loaders/mapping-files.js';
import { createLogger } from '../../src/gateway/logging.js';
import { createRequestLine } from '../../src/gateway/request-line.js';
import { PAYMENT_CODES, internalFaultReply, reply, type LegacyPaymentReply } from '../../src/payment/contract.js';
import { fillMessage as fill } from '../../src/payment/message-template.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { startRecordingUpstream, type RecordingUpstream } from '../helpers/recording-upstream.js';

type Line = Record<string, unknown>;
const INFO = 30;
const WARN = 40;
const ERROR = 50;

const mapping = loadMappingDirectorySync(SHIPPED_MAPPINGS_DIR).payment!;
const PAYMENT_FAILED = PAYMENT_CODES.paymentFailed;
/** contract.ts's replies to a repeat the store refuses: outcome unknown (502), the store unavailable (503). */
const outcomeUnknown = (): LegacyPaymentReply => reply(PAYMENT_FAILED, mapping.messages.idempotencyOutcomeUnknown, 502);
const unavailable = (reason: string): LegacyPaymentReply => reply(PAYMENT_FAILED, fill(mapping.messages.idempotencyUnavailable, { reason }), 503);

describe('a keyed payment refused by the Idempotency-Key store', () => {
  const PAYMENT_ROUTE: Route = { kind: 'payment', label: 'payment', bodyLimit: Number.POSITIVE_INFINITY, handle: () => undefined };
  /** What the payment route did before answering, by request path. */
  const answers = new Map<string, (ctx: RequestContext, res: ServerResponse) => LegacyPaymentReply>();
  const lines: Line[] = [];
  let server: http.Server;
  let base: string;

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const text of chunk.toString('utf8').split('\n')) if (text !== '') lines.push(JSON.parse(text) as Line);
        done();
      },
    });
    const requestLine = createRequestLine(createLogger('info', sink));
    server = http.createServer((req: IncomingMessage, res: ServerResponse) => {
      const ctx = openContext(req, res, new LegacyRequest(req.method ?? 'POST', req.url, req.headers, undefined), PAYMENT_ROUTE);
      requestLine(ctx);
      ctx.label = PAYMENT_ROUTE.label;
      const answer = answers.get(req.url ?? '')!(ctx, res);
      ctx.paymentCode = answer.body.code;
      for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
      writeJson(ctx, answer.httpStatus, answer.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  /** Makes the call; resolves with its reply and its one request line (written before the reply ends). */
  async function call(path: string, answer: (ctx: RequestContext, res: ServerResponse) => LegacyPaymentReply): Promise<{ status: number; body: unknown; line: Line }> {
    answers.set(path, answer);
    const before = lines.length;
    const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'idempotency-key': 'order-1' } });
    const body: unknown = await res.json();
    const written = lines.slice(before).filter((l) => l.req !== undefined);
    expect(written).toHaveLength(1);
    return { status: res.status, body, line: written[0]! };
  }

  it('outcome unknown (502, code 8): a warning, no error object, no stack', async () => {
    const r = await call('/outcome-unknown', (ctx) => {
      ctx.refusedByDesign = true;
      return outcomeUnknown();
    });
    expect(r.status).toBe(502);
    expect(r.body).toEqual({ status: 'failure', code: 8, response: mapping.messages.idempotencyOutcomeUnknown });
    expect(r.line).toMatchObject({ level: WARN, msg: 'request completed', res: { statusCode: 502 }, legacyMethod: 'payment', paymentCode: 8, upstreamCalls: [] });
    expect(r.line).not.toHaveProperty('err');
    expect(JSON.stringify(r.line)).not.toContain('stack');
  });

  it.each([
    ['unreachable', 'the Idempotency-Key store cannot be reached'],
    ['full', 'the Idempotency-Key store is full'],
    ['wait-expired', 'the first call with this Idempotency-Key has not answered yet'],
  ])('the store unavailable (503, code 8, %s): a warning, no error object', async (name, reason) => {
    const r = await call(`/unavailable-${name}`, (ctx) => {
      ctx.refusedByDesign = true;
      return unavailable(reason);
    });
    expect(r.status).toBe(503);
    expect(r.body).toMatchObject({ status: 'failure', code: 8 });
    expect(r.line).toMatchObject({ level: WARN, msg: 'request completed', res: { statusCode: 503 }, paymentCode: 8 });
    expect(r.line).not.toHaveProperty('err');
  });

  it('a refusal before the first v1 write, after the checks read v1: still a warning', async () => {
    const r = await call('/refused-before-write', (ctx) => {
      ctx.upstream.push({ path: '/clients/1', outcome: 200, ms: 1 });
      ctx.refusedByDesign = true;
      return unavailable('Redis replicas did not acknowledge the payment claim, so a failover could lose it');
    });
    expect(r.status).toBe(503);
    expect(r.line).toMatchObject({ level: WARN, res: { statusCode: 503 }, paymentCode: 8 });
    expect(r.line).not.toHaveProperty('err');
  });

  it('the same code and status after a v1 call (v1 unreachable) or a cached v1 reply: an error', async () => {
    const r = await call('/v1-unreachable', (ctx) => {
      ctx.upstream.push({ path: '/clients/1', outcome: 'LGW_UPSTREAM_UNREACHABLE', ms: 1 });
      return reply(PAYMENT_FAILED, 'payment error: the upstream could not be reached; no payment was made', 502);
    });
    expect(r.status).toBe(502);
    expect(r.line).toMatchObject({ level: ERROR, msg: 'request failed', res: { statusCode: 502 }, paymentCode: 8 });
    const cached = await call('/v1-bad-cached-reply', (ctx) => {
      ctx.cacheHits++;
      return reply(PAYMENT_FAILED, 'payment error: the upstream answered something unexpected; no payment was made', 502);
    });
    expect(cached.line).toMatchObject({ level: ERROR, res: { statusCode: 502 }, cacheHits: 1 });
  });

  it("a 502 with the replay header the route did not mark: an error (the mark decides, not the header)", async () => {
    const r = await call('/replayed-fault', () => reply(PAYMENT_FAILED, 'payment error: the upstream could not be reached; no payment was made', 502, { 'idempotent-replayed': 'true' }));
    expect(r.status).toBe(502);
    expect(r.line).toMatchObject({ level: ERROR, res: { statusCode: 502 }, paymentCode: 8 });
  });

  it('a fault inside the gateway (500, code 8): an error with its stack', async () => {
    const r = await call('/internal-fault', (ctx) => {
      ctx.error = new Error('flow exploded');
      return internalFaultReply(mapping);
    });
    expect(r.status).toBe(500);
    expect(r.line).toMatchObject({ level: ERROR, msg: 'request failed', err: { message: 'flow exploded', stack: expect.stringContaining('flow exploded') } });
  });

  it('a payment answered 200 is still info, and a 409 still a warning', async () => {
    expect((await call('/paid', () => reply(12, 'payment added'))).line).toMatchObject({ level: INFO, paymentCode: 12 });
    expect((await call('/reused-key', () => reply(0, 'reused', 409))).line).toMatchObject({ level: WARN, paymentCode: 0 });
  });
});

describe('the whole gateway', () => {
  let upstream: RecordingUpstream;
  let gateway: TestGateway;

  beforeAll(async () => {
    // A v1 that drops every connection: unreachable, as far as a payment can tell.
    upstream = await startRecordingUpstream((_req, res) => void res.socket?.destroy());
    gateway = await startTestGateway({ UPSTREAM_URL: upstream.url, UPSTREAM_API_KEY: 'operator-key', CACHE_TTL_MS: '0' });
  });
  afterAll(async () => {
    await gateway.close();
    await upstream.close();
  });

  const lastRequestLine = (): Line => gateway.logs.map((l) => JSON.parse(l) as Line).filter((l) => l.req !== undefined).at(-1)!;

  it('a payment whose v1 cannot be reached (502, code 8): an error', async () => {
    const res = await fetch(`${gateway.url}/api/payment`, { method: 'POST', body: new URLSearchParams({ client_id: '1', revenue_amount: '10.00', send_email: '0' }) });
    expect(res.status).toBe(502);
    expect(await res.json()).toMatchObject({ status: 'failure', code: 8 });
    expect(upstream.received.length).toBeGreaterThan(0);
    expect(lastRequestLine()).toMatchObject({ level: ERROR, msg: 'request failed', res: { statusCode: 502 }, legacyMethod: 'payment', paymentCode: 8 });
  });

  it('/api/testimonials with no TESTIMONIALS_FILE (501, by design): a warning, no error object', async () => {
    const res = await fetch(`${gateway.url}/api/testimonials`);
    expect(res.status).toBe(501);
    expect(await res.text()).toBe('{"status":"failure","response":"testimonials are not available on this gateway (TESTIMONIALS_FILE is not set)"}');
    const line = lastRequestLine();
    expect(line).toMatchObject({ level: WARN, msg: 'request completed', res: { statusCode: 501 }, errorCode: 'LGW_NOT_CONFIGURED' });
    expect(line).not.toHaveProperty('err');
  });
});
