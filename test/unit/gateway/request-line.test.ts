// The one line per request (request-line.ts): written once, at the level the reply calls for, and, when it
// carries no error object, put together as text: that text must be exactly the line pino writes for the
// same fields (same keys, order, escapes, bindings, level and time), whatever the request's strings hold.
import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Writable } from 'node:stream';
import fc from 'fast-check';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LegacyRequest } from '../../../src/gateway/edge/legacy-request.js';
import { openContext, type RequestContext } from '../../../src/gateway/edge/request-context.js';
import type { Route } from '../../../src/gateway/edge/route.js';
import { createLogger } from '../../../src/gateway/logging.js';
import { createRequestLine } from '../../../src/gateway/request-line.js';
import { redactLogUrl } from '../../../src/shared/redact.js';

const NOW = 1_790_000_000_000;
const ROUTE: Route = { kind: 'read', label: 'clients', bodyLimit: 0, handle: () => undefined };

function capture(): { sink: Writable; lines: string[] } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return { sink, lines };
}

type FakeResponse = EventEmitter & { statusCode: number };

function requestContext(facts: { method?: string; url: string; headers?: Record<string, string>; status: number; requestId?: string }): RequestContext & { res: FakeResponse } {
  const headers = facts.headers ?? {};
  const req = { method: facts.method ?? 'GET', url: facts.url, headers, rawHeaders: Object.entries(headers).flat() } as unknown as IncomingMessage;
  const res = Object.assign(new EventEmitter(), { statusCode: facts.status }) as FakeResponse;
  const ctx = openContext(req, res as unknown as ServerResponse, new LegacyRequest(req.method!, req.url, headers, undefined), ROUTE, facts.requestId ?? 'req-1');
  return ctx as RequestContext & { res: FakeResponse };
}

/** Arms the line, lets `ms` pass, finishes then closes the response (as node:http does); returns what was
 * written. */
function lineOf(ctx: RequestContext & { res: FakeResponse }, options: { level?: string; ms?: number } = {}): string[] {
  const { sink, lines } = capture();
  const now = vi.spyOn(Date, 'now').mockReturnValue(NOW);
  createRequestLine(createLogger(options.level ?? 'info', sink))(ctx);
  now.mockReturnValue(NOW + (options.ms ?? 0));
  ctx.res.emit('finish');
  ctx.res.emit('close');
  return lines;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the request line', () => {
  it('is the line pino writes for the same fields, byte for byte, whatever the strings hold', () => {
    // Every code point, lone surrogates included, where the line writes a string inside an object (pino
    // writes those with JSON.stringify); well-formed text for the top-level strings, the legacy method and
    // the error code (names the gateway gives, which pino writes with an escaper of its own).
    const text = fc.string({ unit: 'binary', maxLength: 30 });
    const name = fc.string({ unit: 'grapheme', maxLength: 20 });
    const call = fc.record({ path: text, outcome: fc.oneof(fc.integer({ min: 100, max: 599 }), text), ms: fc.nat(5000) });
    fc.assert(
      fc.property(
        fc.record({
          url: text,
          method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE'),
          requestId: text,
          status: fc.constantFrom(200, 201, 304, 400, 404, 409, 429),
          ms: fc.nat(100_000),
          label: fc.option(name, { nil: undefined }),
          upstream: fc.array(call, { maxLength: 3 }),
          cacheHits: fc.nat(3),
          paymentCode: fc.option(fc.integer({ min: 0, max: 12 }), { nil: undefined }),
          errorCode: fc.option(name, { nil: undefined }),
        }),
        (facts) => {
          const ctx = requestContext({ url: `/api/x${facts.url}`, method: facts.method, status: facts.status, requestId: facts.requestId });
          Object.assign(ctx, { label: facts.label, upstream: facts.upstream, cacheHits: facts.cacheHits, paymentCode: facts.paymentCode, errorCode: facts.errorCode });
          const written = lineOf(ctx, { ms: facts.ms });

          const { sink, lines } = capture();
          vi.spyOn(Date, 'now').mockReturnValue(NOW + facts.ms);
          const level = facts.status >= 400 ? 'warn' : 'info';
          createLogger('info', sink)[level](
            {
              req: { id: facts.requestId, method: facts.method, url: redactLogUrl(ctx.req.url!) },
              res: { statusCode: facts.status },
              responseTime: facts.ms,
              legacyMethod: facts.label,
              upstreamCalls: facts.upstream,
              cacheHits: facts.cacheHits,
              paymentCode: facts.paymentCode,
              errorCode: facts.errorCode,
            },
            'request completed',
          );
          expect(written).toEqual(lines);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('writes the fields a success carries, once, when the response closes', () => {
    const ctx = requestContext({ url: '/api/clients/0/3?api_key=SECRET-KEY', headers: { 'x-api-key': 'HEADER-KEY' }, status: 200, requestId: 'req-42' });
    ctx.label = 'clients';
    ctx.upstream.push({ path: '/clients', outcome: 200, ms: 4 });
    const lines = lineOf(ctx, { ms: 7 });
    expect(lines).toEqual([
      `{"level":30,"time":${NOW + 7},"service":"legacy-gateway","req":{"id":"req-42","method":"GET","url":"/api/clients/0/3?api_key=[REDACTED]"},` +
        `"res":{"statusCode":200},"responseTime":7,"legacyMethod":"clients","upstreamCalls":[{"path":"/clients","outcome":200,"ms":4}],"cacheHits":0,"msg":"request completed"}\n`,
    ]);
  });

  it('is written when the response closes, not before, and once', () => {
    const ctx = requestContext({ url: '/api/clients', status: 200 });
    const { sink, lines } = capture();
    createRequestLine(createLogger('info', sink))(ctx);
    ctx.res.emit('finish');
    expect(lines).toEqual([]);
    ctx.res.emit('close');
    ctx.res.emit('close');
    ctx.res.emit('error', new Error('late'));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 30, msg: 'request completed' });
  });

  it.each([
    [404, {}, 40, 'request completed'],
    [502, {}, 50, 'request failed'],
    [504, { errorCode: 'LGW_UPSTREAM_TIMEOUT' }, 50, 'request failed'],
    [502, { refusedByDesign: true, paymentCode: 8 }, 40, 'request completed'],
    [501, { errorCode: 'LGW_NOT_CONFIGURED' }, 40, 'request completed'],
  ])('a %i reply (%o): level %i, "%s", no error object', (status, facts, level, msg) => {
    const ctx = Object.assign(requestContext({ url: '/api/payment', method: 'POST', status }), facts);
    const [line] = lineOf(ctx);
    const { refusedByDesign: _mark, ...written } = facts as { refusedByDesign?: boolean };
    expect(JSON.parse(line!)).toMatchObject({ level, msg, res: { statusCode: status }, ...written });
    expect(line).not.toContain('"err"');
    expect(line).not.toContain('refusedByDesign');
  });

  it('a fault noted on the context: an error line with its stack, scrubbed of the request secrets', () => {
    const ctx = requestContext({ url: '/api/payment', method: 'POST', headers: { 'x-api-key': 'CALLER-SECRET-KEY' }, status: 500 });
    ctx.error = new Error('flow exploded near CALLER-SECRET-KEY');
    const lines = lineOf(ctx);
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(line).toMatchObject({ level: 50, msg: 'request failed', res: { statusCode: 500 }, err: { type: 'Error', message: 'flow exploded near [REDACTED]' } });
    expect((line.err as { stack: string }).stack).toContain('flow exploded near [REDACTED]');
    expect(lines[0]).not.toContain('CALLER-SECRET-KEY');
    expect(Object.keys(line)).toEqual(['level', 'time', 'service', 'req', 'res', 'err', 'responseTime', 'upstreamCalls', 'cacheHits', 'msg']);
  });

  it("the response's own error: one error line, and nothing thrown", () => {
    const ctx = requestContext({ url: '/api/clients', status: 200 });
    const { sink, lines } = capture();
    createRequestLine(createLogger('info', sink))(ctx);
    expect(() => ctx.res.emit('error', new Error('write after end'))).not.toThrow();
    ctx.res.emit('close');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 50, msg: 'request failed', err: { message: 'write after end' } });
  });

  it('is not written below the logger level', () => {
    expect(lineOf(requestContext({ url: '/api/clients', status: 200 }), { level: 'warn' })).toEqual([]);
    expect(lineOf(requestContext({ url: '/api/clients', status: 404 }), { level: 'error' })).toEqual([]);
    expect(lineOf(requestContext({ url: '/api/clients', status: 502 }), { level: 'error' })).toHaveLength(1);
  });

  it('goes through pino when the destination reads each line with its level (a multistream)', () => {
    const ctx = requestContext({ url: '/api/clients', status: 404, requestId: 'req-7' });
    const { sink, lines } = capture();
    const now = vi.spyOn(Date, 'now').mockReturnValue(NOW);
    const logger = pino({ level: 'info', base: { service: 'legacy-gateway' } }, pino.multistream([{ level: 'warn', stream: sink }]));
    createRequestLine(logger)(ctx);
    now.mockReturnValue(NOW + 2);
    ctx.res.emit('close');
    expect(lines).toEqual([
      `{"level":40,"time":${NOW + 2},"service":"legacy-gateway","req":{"id":"req-7","method":"GET","url":"/api/clients"},"res":{"statusCode":404},"responseTime":2,"upstreamCalls":[],"cacheHits":0,"msg":"request completed"}\n`,
    ]);
  });
});
