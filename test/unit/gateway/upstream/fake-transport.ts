// A scripted V1Transport for the upstream layers' unit tests: answers each call with the next scripted
// outcome (or the default), and records every request it saw. A reply is written as a plain object (its
// payload as it is, `PlainReply`) and given in a box of its own on each call, as a real layer gives it.
import { GatewayError } from '../../../../src/shared/errors.js';
import { handOff } from '../../../../src/shared/hand-off.js';
import type { V1GetRequest, V1Json, V1Payload, V1Transport } from '../../../../src/gateway/upstream/v1-client.js';

/** A reply with its payload in the open: what a test writes, and what `plain` turns a reply into. */
export type PlainReply = Omit<V1Json, 'body'> & { readonly body: V1Payload };

/** A plain reply (status 200 unless told) whose payload is the parsed `value`. */
export const jsonReply = (value: unknown, over: Partial<PlainReply> = {}): PlainReply => ({ status: 200, body: { value }, ...over });

/** A reply as a layer gives it: the payload in a box. */
export const boxed = (reply: PlainReply): V1Json => ({ ...reply, body: handOff(reply.body) });

/** A reply with its payload taken out of its box, for toEqual. */
export const plain = (reply: V1Json): PlainReply => ({ ...reply, body: reply.body.take() });

/** The parsed body of a reply, taken. */
export const valueOf = (reply: V1Json): unknown => reply.body.take().value;

/** A function outcome gives a boxed reply (made as the test likes); the others are boxed on each call. */
export type Outcome = PlainReply | GatewayError | ((request: V1GetRequest) => Promise<V1Json>);

export interface FakeTransport extends V1Transport {
  calls: V1GetRequest[];
  script: Outcome[];
  fallback: Outcome;
}

export function fakeTransport(fallback: Outcome = jsonReply({ ok: true })): FakeTransport {
  const fake: FakeTransport = {
    calls: [],
    script: [],
    fallback,
    async getJson(request) {
      fake.calls.push(request);
      const next = fake.script.shift() ?? fake.fallback;
      if (next instanceof GatewayError) throw next;
      if (typeof next === 'function') return next(request);
      return boxed(next);
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
