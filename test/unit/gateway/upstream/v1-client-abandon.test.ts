// V1Client.close({ abandon: true }), the close after a shutdown drain: a call v1 still holds is abandoned at
// once (its socket closed, its caller told LGW_NOT_READY, which the retry layer never repeats), and a call
// made afterwards fails the same way without reaching v1. A plain close() still lets a call in flight finish.
import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayError } from '../../../../src/shared/errors.js';
import { isRetryable, withRetry } from '../../../../src/gateway/upstream/retry.js';
import { V1Client } from '../../../../src/gateway/upstream/v1-client.js';
import { json, startRecordingUpstream, type RecordingUpstream } from '../../../helpers/recording-upstream.js';

let upstream: RecordingUpstream | undefined;

afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
});

/** An upstream that holds every call (never answers) and tells each one's arrival and socket close. */
async function holdingUpstream() {
  const held: ServerResponse[] = [];
  let arrived!: () => void;
  const arrival = new Promise<void>((resolve) => (arrived = resolve));
  upstream = await startRecordingUpstream((_req, res) => {
    held.push(res);
    arrived();
  });
  return { held, arrival };
}

describe('V1Client.close({ abandon: true })', () => {
  it('abandons a call in flight at once: its socket closes and its caller gets LGW_NOT_READY, not retried', async () => {
    const { held, arrival } = await holdingUpstream();
    const client = new V1Client({ upstreamUrl: upstream!.url, timeoutMs: 60_000 });
    const sleeps: number[] = [];
    const retried = withRetry(client, { sleep: async (ms) => void sleeps.push(ms) });
    const call = retried.getJson({ path: '/clients', query: {}, apiKey: 'k' }).catch((err: unknown) => err);
    await arrival;
    const socketClosed = once(held[0]!.socket!, 'close');

    await client.close({ abandon: true });
    const err = await call;
    expect(err).toBeInstanceOf(GatewayError);
    expect((err as GatewayError).code).toBe('LGW_NOT_READY');
    expect(isRetryable(err)).toBe(false);
    expect(sleeps).toEqual([]);
    await socketClosed;
    expect(held[0]!.writableEnded).toBe(false);

    // A later call fails the same way and never reaches v1.
    await expect(client.getJson({ path: '/clients', query: {}, apiKey: 'k' })).rejects.toMatchObject({ code: 'LGW_NOT_READY' });
    expect(upstream!.received).toHaveLength(1);
  });

  it('a plain close() still lets a call in flight finish', async () => {
    const { held, arrival } = await holdingUpstream();
    const client = new V1Client({ upstreamUrl: upstream!.url, timeoutMs: 60_000 });
    const call = client.getJson({ path: '/clients', query: {}, apiKey: 'k' });
    await arrival;
    const closed = client.close();
    json(held[0]!, 200, { object: 'list', data: [] });
    expect((await call).body.take().value).toEqual({ object: 'list', data: [] });
    await closed;
  });
});
