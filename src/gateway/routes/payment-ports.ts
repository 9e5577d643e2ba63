// What a payment reaches beyond itself, for one request (the ports of src/payment/run-claimed-payment.ts):
// v1 through the shared transport (its GETs: cache, retries) and the writer (its POSTs, once each), every
// exchange noted for the request's log line; the request's scrubber; and the key's write generations of
// what the payment writes on (its payments, and its clients when it creates one), moved once a POST was sent.
// It holds no state of its own: what happened is the payment's to say.
import { paymentWrites } from '../../legacy-surface/resources-touched.js';
import type { PaymentClaims } from '../../payment/claims/payment-claims.js';
import type { PaymentMapping } from '../../payment/payment-mapping.js';
import type { ClaimedPaymentPorts } from '../../payment/run-claimed-payment.js';
import type { RequestContext } from '../edge/request-context.js';
import { timed } from '../edge/upstream-log.js';
import type { WriteGenerations } from '../state/caches/write-generations.js';
import type { V1Transport, V1Writer } from '../upstream/v1-client.js';

export interface PaymentPortsDeps {
  mapping: PaymentMapping;
  transport: V1Transport;
  writer: V1Writer;
  /** Told of the payment's writes once one of its POSTs was sent; absent, nothing is told. */
  generations?: Pick<WriteGenerations, 'bump'>;
  claims: PaymentClaims;
}

export function paymentPorts(deps: PaymentPortsDeps, ctx: RequestContext, fields: Readonly<Record<string, string>>): ClaimedPaymentPorts {
  const { apiKey } = ctx.request;
  const { requestId } = ctx;
  const { generations, mapping } = deps;
  return {
    claims: deps.claims,
    v1: {
      get: async (path, query, cacheTtlMs) => (await timed(ctx, path, () => deps.transport.getJson({ path, query, apiKey, requestId, cacheTtlMs }))).body.take().value,
      post: async (path, body) => (await timed(ctx, `POST ${path}`, () => deps.writer.postJson({ path, body, apiKey, requestId }))).body.take().value,
    },
    // The upstream calls noted for the log line: a reply from the cache is not one.
    reachedV1: () => ctx.upstream.length > 0,
    scrub: (text) => ctx.secrets.scrub(text),
    ...(generations === undefined ? {} : { afterWrites: () => generations.bump(apiKey, paymentWrites(mapping, (name) => fields[name])) }),
  };
}
