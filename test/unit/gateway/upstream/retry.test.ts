// The retry layer: which failures are retried, how often (at most 2 retries), the jittered backoff, and
// that timeouts, 4xx, 429 and 500 are answered at once.
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../../src/shared/errors.js';
import { DEFAULT_RETRY_POLICY, backoffMs, isRetryable, withRetry } from '../../../../src/gateway/upstream/retry.js';
import { fakeTransport, jsonReply, plain, request, timeout, unreachable, upstreamError, type Outcome } from './fake-transport.js';

const noSleep = { sleep: async () => undefined };

async function attemptsFor(failure: () => Outcome): Promise<{ attempts: number; retries: number; error: unknown }> {
  const inner = fakeTransport(failure());
  let retries = 0;
  const transport = withRetry(inner, { ...noSleep, onRetry: () => retries++ });
  const error = await transport.getJson(request()).then(() => undefined, (err: unknown) => err);
  return { attempts: inner.calls.length, retries, error };
}

describe('retry counts per failure', () => {
  it.each([
    ['a connect error', unreachable, 3],
    ['a 502', () => upstreamError(502), 3],
    ['a 503', () => upstreamError(503), 3],
    ['a 503 whose Retry-After fits the backoff', () => upstreamError(503, { 'retry-after': '0' }), 3],
    ['a 503 asking to come back in an hour', () => upstreamError(503, { 'retry-after': '3600' }), 1],
    ['a timeout', timeout, 1],
    ['a 500', () => upstreamError(500), 1],
    ['a 429', () => upstreamError(429, { 'retry-after': '1' }), 1],
    ['a 404', () => upstreamError(404), 1],
    ['a 401', () => upstreamError(401), 1],
    ['a bad reply', () => new GatewayError('LGW_UPSTREAM_BAD_REPLY', 'not JSON'), 1],
  ])('%s: %i attempt(s) in all', async (_name, failure, attempts) => {
    const result = await attemptsFor(failure);
    expect(result.attempts).toBe(attempts);
    expect(result.retries).toBe(attempts - 1);
    expect(result.error).toBeInstanceOf(GatewayError);
  });

  it('stops retrying as soon as an attempt succeeds', async () => {
    const inner = fakeTransport();
    inner.script.push(unreachable());
    const reply = await withRetry(inner, noSleep).getJson(request());
    expect(plain(reply)).toEqual(jsonReply({ ok: true }));
    expect(inner.calls).toHaveLength(2);
  });

  it('answers the last failure after the retries are spent', async () => {
    const inner = fakeTransport();
    inner.script.push(unreachable(), upstreamError(502), upstreamError(503));
    const err = await withRetry(inner, noSleep).getJson(request()).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'LGW_UPSTREAM_ERROR', status: 503 });
  });

  it('waits a jittered, growing, capped backoff between attempts', async () => {
    const waits: number[] = [];
    const inner = fakeTransport(unreachable());
    await withRetry(inner, { random: () => 0.5, sleep: async (ms) => void waits.push(ms) }).getJson(request()).catch(() => undefined);
    expect(waits).toEqual([25, 50]);
    expect(backoffMs(10, DEFAULT_RETRY_POLICY, () => 0.999)).toBeLessThan(DEFAULT_RETRY_POLICY.maxDelayMs);
    expect(backoffMs(0, DEFAULT_RETRY_POLICY, () => 0)).toBe(0);
  });

  it('never treats a non-gateway error as retryable', () => {
    expect(isRetryable(new Error('boom'))).toBe(false);
    expect(isRetryable(undefined)).toBe(false);
  });
});
