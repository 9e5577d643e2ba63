// Single-flight: N identical concurrent GETs make one upstream call and all get its outcome; different
// keys or URLs never share; nothing is kept after the call settles, the shared reply's body included.
import { describe, expect, it } from 'vitest';
import { withSingleFlight } from '../../../../src/gateway/upstream/single-flight.js';
import { takeBody, type V1Json } from '../../../../src/gateway/upstream/v1-client.js';
import { isCollected } from '../../../helpers/collect-garbage.js';
import { deferred, fakeTransport, request, unreachable } from './fake-transport.js';

describe('single-flight', () => {
  it('N concurrent identical calls -> 1 upstream call, every caller gets the reply', async () => {
    const held = deferred<V1Json>();
    const inner = fakeTransport(() => held.promise);
    const transport = withSingleFlight(inner);
    const replies = Array.from({ length: 25 }, () => transport.getJson(request()));
    expect(transport.inFlight()).toBe(1);
    held.resolve({ status: 200, body: { n: 1 } });
    expect(await Promise.all(replies)).toEqual(Array.from({ length: 25 }, () => ({ status: 200, body: { n: 1 } })));
    expect(inner.calls).toHaveLength(1);
    expect(transport.inFlight()).toBe(0);
  });

  it('shares a failure the same way, then forgets it', async () => {
    const held = deferred<V1Json>();
    const inner = fakeTransport(() => held.promise);
    const transport = withSingleFlight(inner);
    const replies = Array.from({ length: 5 }, () => transport.getJson(request()).catch((e: unknown) => e));
    held.reject(unreachable());
    for (const r of await Promise.all(replies)) expect(r).toMatchObject({ code: 'LGW_UPSTREAM_UNREACHABLE' });
    expect(inner.calls).toHaveLength(1);
    inner.fallback = { status: 200, body: 'later' };
    expect(await transport.getJson(request())).toEqual({ status: 200, body: 'later' });
    expect(inner.calls).toHaveLength(2);
  });

  it('never shares between two keys, two URLs or two queries', async () => {
    const held = deferred<V1Json>();
    const inner = fakeTransport(() => held.promise);
    const transport = withSingleFlight(inner);
    const calls = [
      transport.getJson(request({ apiKey: 'key-a' })),
      transport.getJson(request({ apiKey: 'key-b' })),
      transport.getJson(request({ apiKey: undefined })),
      transport.getJson(request({ path: '/staff' })),
      transport.getJson(request({ query: { offset: '10', limit: '10' } })),
    ];
    expect(inner.calls).toHaveLength(5);
    held.resolve({ status: 200, body: {} });
    await Promise.all(calls);
  });

  it('gives each caller a reply of its own: one emptied by its caller leaves the others whole', async () => {
    const held = deferred<V1Json>();
    const transport = withSingleFlight(fakeTransport(() => held.promise));
    const calls = [transport.getJson(request()), transport.getJson(request()), transport.getJson(request())];
    const body = { data: [{ id: 1 }] };
    held.resolve({ status: 200, body, textLength: 20 });
    const [first, second, third] = await Promise.all(calls);
    expect(new Set([first, second, third]).size).toBe(3);
    expect(takeBody(first!)).toBe(body);
    expect(first).toEqual({ status: 200, body: undefined, textLength: 20 });
    expect([second!.body, third!.body]).toEqual([body, body]);
  });

  it('empties the shared reply once the last caller has its copy, so the kept call holds no body', async () => {
    const held = deferred<V1Json>();
    const transport = withSingleFlight(fakeTransport(() => held.promise));
    const calls = [transport.getJson(request()), transport.getJson(request())];
    const shared: V1Json = { status: 200, body: { data: [{ id: 1 }] } };
    const ref = new WeakRef(shared.body as object);
    held.resolve(shared);
    for (const reply of await Promise.all(calls)) takeBody(reply);
    expect(shared).toEqual({ status: 200, body: undefined });
    expect(await isCollected(ref)).toBe(true);
    expect(calls).toHaveLength(2);
  });
});
