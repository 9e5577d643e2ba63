// Single-flight: N identical concurrent GETs make one upstream call and all get its outcome; different
// keys, URLs or forms never share; each caller that shares a call gets a reply and a box of its own over
// the one payload; nothing is kept after the call settles, the shared payload included.
import { describe, expect, it } from 'vitest';
import { withSingleFlight } from '../../../../src/gateway/upstream/single-flight.js';
import type { V1Json } from '../../../../src/gateway/upstream/v1-client.js';
import { isCollected } from '../../../helpers/collect-garbage.js';
import { boxed, deferred, fakeTransport, jsonReply, plain, request, unreachable, type PlainReply } from './fake-transport.js';

describe('single-flight', () => {
  it('N concurrent identical calls -> 1 upstream call, every caller gets the reply', async () => {
    const held = deferred<V1Json>();
    const inner = fakeTransport(() => held.promise);
    const transport = withSingleFlight(inner);
    const replies = Array.from({ length: 25 }, () => transport.getJson(request()));
    expect(transport.inFlight()).toBe(1);
    held.resolve(boxed(jsonReply({ n: 1 })));
    expect((await Promise.all(replies)).map(plain)).toEqual(Array.from({ length: 25 }, () => jsonReply({ n: 1 })));
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
    inner.fallback = jsonReply('later');
    expect(plain(await transport.getJson(request()))).toEqual(jsonReply('later'));
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
    held.resolve(boxed(jsonReply({})));
    await Promise.all(calls);
  });

  it("gives a 'bytes' and a 'json' caller of one URL each the form it asked for, from a call of its own", async () => {
    const bytes = Buffer.from('{ "n": 1, "name": "Zoë" }');
    const inner = fakeTransport(async (req) => boxed(req.form === 'bytes' ? { status: 200, body: { bytes } } : jsonReply({ n: 1, name: 'Zoë' })));
    const transport = withSingleFlight(inner);
    const calls = [
      transport.getJson(request()),
      transport.getJson(request({ form: 'bytes' })),
      transport.getJson(request({ form: 'json' })),
      transport.getJson(request({ form: 'bytes' })),
    ];
    // An unset form is `json`: those two callers share one call, and the two `bytes` callers another.
    expect(inner.calls.map((c) => c.form ?? 'json')).toEqual(['json', 'bytes']);
    expect(transport.inFlight()).toBe(2);
    const bytesReply: PlainReply = { status: 200, body: { bytes: Buffer.from('{ "n": 1, "name": "Zoë" }') } };
    expect((await Promise.all(calls)).map(plain)).toEqual([jsonReply({ n: 1, name: 'Zoë' }), bytesReply, jsonReply({ n: 1, name: 'Zoë' }), bytesReply]);
  });

  it('shares a page read with a translation only between callers of the same translation', async () => {
    const translation = (id: string) => ({ id, open: () => ({ write: () => undefined, end: () => undefined }) });
    const [a, b] = [translation('list-bytes-1'), translation('list-bytes-2')];
    const translated = { total: 1, bytes: Buffer.from('{"status":"success"}') };
    const inner = fakeTransport(async (req) => boxed(req.translation ? { status: 200, body: { translated } } : { status: 200, body: { bytes: Buffer.from('{}') } }));
    const transport = withSingleFlight(inner);
    const calls = [
      transport.getJson(request({ form: 'bytes', translation: a })),
      transport.getJson(request({ form: 'bytes', translation: b })),
      transport.getJson(request({ form: 'bytes' })),
      transport.getJson(request({ form: 'bytes', translation: a })),
    ];
    expect(inner.calls.map((c) => c.translation?.id)).toEqual(['list-bytes-1', 'list-bytes-2', undefined]);
    const replies = (await Promise.all(calls)).map(plain);
    expect(replies.map((r) => r.body)).toEqual([{ translated }, { translated }, { bytes: Buffer.from('{}') }, { translated }]);
  });

  it("never lets a 'bytes' caller join a 'json' call under way, nor the other way round", async () => {
    const json = deferred<V1Json>();
    const bytes = deferred<V1Json>();
    const inner = fakeTransport((req) => (req.form === 'bytes' ? bytes.promise : json.promise));
    const transport = withSingleFlight(inner);
    const first = transport.getJson(request());
    const second = transport.getJson(request({ form: 'bytes' }));
    expect(inner.calls).toHaveLength(2);
    json.reject(unreachable());
    await expect(first).rejects.toMatchObject({ code: 'LGW_UPSTREAM_UNREACHABLE' });
    bytes.resolve(boxed({ status: 200, body: { bytes: Buffer.from([0x7b, 0xff, 0x7d]) } }));
    expect(plain(await second)).toEqual({ status: 200, body: { bytes: Buffer.from([0x7b, 0xff, 0x7d]) } });
  });

  it('gives each caller a reply and a box of its own over the one payload: one taken leaves the others whole', async () => {
    const held = deferred<V1Json>();
    const transport = withSingleFlight(fakeTransport(() => held.promise));
    const calls = [transport.getJson(request()), transport.getJson(request()), transport.getJson(request())];
    const payload = { value: { data: [{ id: 1 }] } };
    held.resolve(boxed({ status: 200, body: payload, textLength: 20 }));
    const [first, second, third] = await Promise.all(calls);
    expect(new Set([first, second, third]).size).toBe(3);
    expect(first!.body.take()).toBe(payload);
    expect(() => first!.body.take()).toThrow('a handed-off value was taken twice');
    expect([second!.body.take(), third!.body.take()]).toEqual([payload, payload]);
    expect([first!.status, second!.textLength, third!.textLength]).toEqual([200, 20, 20]);
  });

  it('gives a lone caller the reply as it came', async () => {
    const reply = boxed(jsonReply({ n: 1 }));
    const transport = withSingleFlight(fakeTransport(async () => reply));
    expect(await transport.getJson(request())).toBe(reply);
  });

  it('takes the shared reply once and lets go of its payload once every caller took its own, so the kept calls hold no body', async () => {
    const held = deferred<V1Json>();
    const transport = withSingleFlight(fakeTransport(() => held.promise));
    const calls = [transport.getJson(request()), transport.getJson(request())];
    /** Resolves the call with a reply whose body no local of the test keeps, watched. */
    const resolveWatched = (): { shared: V1Json; ref: WeakRef<object> } => {
      const value = { data: [{ id: 1 }] };
      const shared = boxed(jsonReply(value));
      held.resolve(shared);
      return { shared, ref: new WeakRef(value) };
    };
    const { shared, ref } = resolveWatched();
    for (const reply of await Promise.all(calls)) reply.body.take();
    // The reply the layers below gave (and their promises still hold) was emptied.
    expect(() => shared.body.take()).toThrow('a handed-off value was taken twice');
    expect(await isCollected(ref)).toBe(true);
    expect(calls).toHaveLength(2);
  });
});
