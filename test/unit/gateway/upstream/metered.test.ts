// The upstream-call counter: one count per attempt, by outcome; a refused path is not an upstream call.
import { describe, expect, it } from 'vitest';
import { GatewayError, badRequest } from '../../../../src/shared/errors.js';
import type { UpstreamOutcome } from '../../../../src/gateway/metrics/gateway-metrics.js';
import { outcomeOf, withUpstreamMetrics } from '../../../../src/gateway/upstream/metered.js';
import { fakeTransport, request, timeout, unreachable, upstreamError } from './fake-transport.js';

describe('upstream outcomes', () => {
  it.each<[string, unknown, UpstreamOutcome]>([
    ['404', upstreamError(404), 'client_error'],
    ['429', upstreamError(429), 'rate_limited'],
    ['500', upstreamError(500), 'server_error'],
    ['503', upstreamError(503), 'server_error'],
    ['timeout', timeout(), 'timeout'],
    ['unreachable', unreachable(), 'unreachable'],
    ['bad reply', new GatewayError('LGW_UPSTREAM_BAD_REPLY', 'x'), 'bad_reply'],
    ['a plain error', new Error('x'), 'unreachable'],
  ])('%s -> %s', (_name, err, outcome) => {
    expect(outcomeOf(err)).toBe(outcome);
  });

  it('counts each call once, and not a path refused before any HTTP exchange', async () => {
    const seen: UpstreamOutcome[] = [];
    const inner = fakeTransport();
    inner.script.push({ status: 200, body: {} }, upstreamError(503), badRequest('bad path'));
    const transport = withUpstreamMetrics(inner, (o) => seen.push(o));
    await transport.getJson(request());
    await transport.getJson(request()).catch(() => undefined);
    await transport.getJson(request()).catch(() => undefined);
    expect(seen).toEqual(['ok', 'server_error']);
  });
});
