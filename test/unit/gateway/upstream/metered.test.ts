// The upstream-call counter: one count per attempt (GETs) or per POST, by resource, verb and outcome, with
// its duration; a refused path is not an upstream call.
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayError, badRequest } from '../../../../src/shared/errors.js';
import type { UpstreamCall, UpstreamOutcome } from '../../../../src/gateway/metrics/gateway-metrics.js';
import { outcomeOf, postMetrics, v1Resource, withUpstreamMetrics } from '../../../../src/gateway/upstream/metered.js';
import { V1Client } from '../../../../src/gateway/upstream/v1-client.js';
import { json, startRecordingUpstream, type RecordingUpstream } from '../../../helpers/recording-upstream.js';
import { fakeTransport, jsonReply, request, timeout, unreachable, upstreamError } from './fake-transport.js';

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
    inner.script.push(jsonReply({}), upstreamError(503), badRequest('bad path'));
    const transport = withUpstreamMetrics(inner, (o) => seen.push(o));
    await transport.getJson(request());
    await transport.getJson(request()).catch(() => undefined);
    await transport.getJson(request()).catch(() => undefined);
    expect(seen).toEqual(['ok', 'server_error']);
  });
});

describe('upstream call labels', () => {
  it.each([
    ['/clients', 'clients'],
    ['/clients/12', 'clients'],
    ['/staff/3', 'staff'],
    ['/discount-codes', 'discount-codes'],
    ['clients', ''],
    ['/', ''],
    ['/12', ''],
  ])('the resource of %s is %j', (path, resource) => {
    expect(v1Resource(path)).toBe(resource);
  });

  it('gives each GET its resource (never its id or query), its verb and its duration', async () => {
    const seen: Array<[UpstreamOutcome, UpstreamCall]> = [];
    const inner = fakeTransport();
    inner.script.push(jsonReply({}), upstreamError(429));
    const transport = withUpstreamMetrics(inner, (outcome, call) => seen.push([outcome, call]));
    await transport.getJson(request({ path: '/clients/77', query: { email: 'a@b.c' } }));
    await transport.getJson(request({ path: '/sessions' })).catch(() => undefined);
    expect(seen).toEqual([
      ['ok', { resource: 'clients', verb: 'GET', seconds: expect.any(Number) }],
      ['rate_limited', { resource: 'sessions', verb: 'GET', seconds: expect.any(Number) }],
    ]);
    expect(seen.every(([, call]) => call.seconds >= 0)).toBe(true);
  });
});

describe("a V1Client's POSTs", () => {
  let upstream: RecordingUpstream | undefined;
  let client: V1Client | undefined;
  afterEach(async () => {
    await client?.close();
    await upstream?.close();
  });

  it('are counted once each, by resource and outcome, and a path refused before sending is not', async () => {
    upstream = await startRecordingUpstream((req, res) => (req.url.endsWith('/payments') ? json(res, 201, { id: 1 }) : json(res, 409, { error: { code: 'taken', message: 'taken' } })));
    client = new V1Client({ upstreamUrl: upstream.url, timeoutMs: 2000 });
    const seen: Array<[UpstreamOutcome, UpstreamCall]> = [];
    client.observePosts(postMetrics((outcome, call) => seen.push([outcome, call])));
    await client.postJson({ path: '/payments', body: { amount: 1 }, apiKey: 'k' });
    await client.postJson({ path: '/clients', body: {}, apiKey: 'k' }).catch(() => undefined);
    await client.postJson({ path: '/../admin', body: {}, apiKey: 'k' }).catch(() => undefined);
    expect(seen).toEqual([
      ['ok', { resource: 'payments', verb: 'POST', seconds: expect.any(Number) }],
      ['client_error', { resource: 'clients', verb: 'POST', seconds: expect.any(Number) }],
    ]);
    expect(upstream.received.map((r) => r.method)).toEqual(['POST', 'POST']);
  });
});
