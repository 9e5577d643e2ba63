// A scripted V1Transport for the upstream layers' unit tests: answers each call with the next scripted
// outcome (or the default), and records every request it saw.
import { GatewayError } from '../../../../src/shared/errors.js';
import type { V1GetRequest, V1Json, V1Transport } from '../../../../src/gateway/upstream/v1-client.js';

export type Outcome = V1Json | GatewayError | ((request: V1GetRequest) => Promise<V1Json>);

export interface FakeTransport extends V1Transport {
  calls: V1GetRequest[];
  script: Outcome[];
  fallback: Outcome;
}

export function fakeTransport(fallback: Outcome = { status: 200, body: { ok: true } }): FakeTransport {
  const fake: FakeTransport = {
    calls: [],
    script: [],
    fallback,
    async getJson(request) {
      fake.calls.push(request);
      const next = fake.script.shift() ?? fake.fallback;
      if (next instanceof GatewayError) throw next;
      if (typeof next === 'function') return next(request);
      return next;
    },
  };
  return fake;
}

export const upstreamError = (status: number, headers: Record<string, string> = {}) =>
  new GatewayError('LGW_UPSTREAM_ERROR', `v1 said ${status}`, { status, headers });
export const unreachable = () => new GatewayError('LGW_UPSTREAM_UNREACHABLE', 'the upstream could not be reached');
export const timeout = () => new GatewayError('LGW_UPSTREAM_TIMEOUT', 'the upstream did not answer within 10 ms');

export const request = (over: Partial<V1GetRequest> = {}): V1GetRequest => ({
  path: '/clients',
  query: { offset: '0', limit: '10' },
  apiKey: 'key-a',
  ...over,
});

/** A promise and its resolver, to hold an upstream call open until the test lets it go. */
export function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
