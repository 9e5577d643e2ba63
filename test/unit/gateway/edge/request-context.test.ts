// The request's one carrier (request-context.ts): the context the edge opens holds the after-work its steps
// leave, and runs it from the one 'close' listener it registers on the response: in the order it was left,
// once, each function even when one before it throws; the response's own error becomes the request's error.
import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { LegacyRequest } from '../../../../src/gateway/edge/legacy-request.js';
import { openContext, type RequestContext } from '../../../../src/gateway/edge/request-context.js';
import type { Route } from '../../../../src/gateway/edge/route.js';

const ROUTE: Route = { kind: 'read', label: 'clients', bodyLimit: 0, handle: () => undefined };

function opened(): { ctx: RequestContext; res: EventEmitter } {
  const req = { method: 'GET', url: '/api/clients/0/3', headers: {}, rawHeaders: [] } as unknown as IncomingMessage;
  const res = Object.assign(new EventEmitter(), { statusCode: 200 });
  const ctx = openContext(req, res as unknown as ServerResponse, new LegacyRequest('GET', req.url, {}, undefined), ROUTE, 'req-1');
  return { ctx, res };
}

describe('the request context', () => {
  it('registers one close listener, and one for the response error, on the response; nothing on the request', () => {
    const { ctx, res } = opened();
    expect(res.listenerCount('close')).toBe(1);
    expect(res.listenerCount('error')).toBe(1);
    expect(res.listenerCount('finish')).toBe(0);
    expect(Object.getOwnPropertySymbols(ctx.req)).toEqual([]);
  });

  it('runs the after-work when the response closes, in the order it was left, once', () => {
    const { ctx, res } = opened();
    const ran: string[] = [];
    ctx.afterWork.push(() => ran.push('span'), () => ran.push('drain'));
    ctx.afterWork.push(() => ran.push('metrics'), () => ran.push('log line'));
    expect(ran).toEqual([]);
    res.emit('finish');
    expect(ran).toEqual([]);
    res.emit('close');
    res.emit('close');
    expect(ran).toEqual(['span', 'drain', 'metrics', 'log line']);
  });

  it('runs every after-work function when one throws, then throws the first error', () => {
    const { ctx, res } = opened();
    const ran: string[] = [];
    const first = new Error('first');
    ctx.afterWork.push(
      () => ran.push('a'),
      () => {
        throw first;
      },
      () => {
        throw new Error('second');
      },
      () => ran.push('d'),
    );
    expect(() => res.emit('close')).toThrow(first);
    expect(ran).toEqual(['a', 'd']);
  });

  it("notes the response's own error as the request's error, seen by the after-work", () => {
    const { ctx, res } = opened();
    let seen: unknown;
    ctx.afterWork.push(() => (seen = ctx.error));
    const err = new Error('write after end');
    expect(() => res.emit('error', err)).not.toThrow();
    res.emit('close');
    expect(seen).toBe(err);
  });
});
