// Serves POST /api/payment: reads the body, applies the Idempotency-Key, runs the payment flow with the
// API key the edge read, and writes the legacy payment reply {"status","code","response"}.
// The checks that need no v1 call (codes 1, 0, 3) run before the Idempotency-Key store is asked: such a
// refusal takes no key, and a repeat gets the same answer by running them again. The store is a port
// (in this process or in Redis): whatever it cannot do, it says, and the route answers before any v1 call.
// v1 GETs go through the shared transport (cache, retries); the payment and client POSTs go through the
// writer, once. The fields are never logged; the log line carries the code only. A reply built after
// a v1 call may carry v1's text (its error message, its headers): it passes through the request's scrubber
// before it is sent or stored under the Idempotency-Key.
// A flow that sent a v1 POST, whatever it answers, moves the key's write generations of what the payment
// writes on (its payments, and its clients when it creates one) before it answers: the caller's next read
// of them is never served from a copy made before it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { runPaymentFlow, type PaymentPorts } from '../../payment/flow.js';
import type { IdempotencyOutcome, IdempotencyStore } from '../state/idempotency.js';
import {
  bodyProblemReply,
  idempotencyKeyReusedReply,
  idempotencyOutcomeUnknownReply,
  idempotencyUnavailableReply,
  internalFaultReply,
  isIdempotencyKey,
  malformedIdempotencyKeyReply,
  reply,
  unacceptedFieldsReply,
  type LegacyPaymentReply,
} from '../../payment/contract.js';
import { paymentWrites } from '../../mapping/resources-touched.js';
import { checkLocally } from '../../payment/local-checks.js';
import type { PaymentMapping } from '../../payment/payment-mapping.js';
import { API_KEY_PARAM } from '../edge/api-key.js';
import type { RequestContext, RequestSecrets } from '../edge/request-context.js';
import { timed } from '../edge/upstream-log.js';
import { writeJson } from '../edge/write-json.js';
import { scrubbedError } from '../logging.js';
import type { WriteGenerations } from '../state/write-generations.js';
import type { V1Transport, V1Writer } from '../upstream/v1-client.js';
import { readPaymentBody } from './payment-body.js';

export interface PaymentRouteDeps {
  mapping: PaymentMapping;
  transport: V1Transport;
  writer: V1Writer;
  /** Told of the payment's writes once one of its POSTs was sent; absent, nothing is told. */
  generations?: Pick<WriteGenerations, 'bump'>;
  idempotency: IdempotencyStore;
  logger: Logger;
  /** Marks the request as one the shutdown deadline must not cut off. */
  mustFinish?: (req: IncomingMessage) => void;
  /** Keeps shutdown waiting until a payment in flight has answered. */
  holdUntilDone?: (work: Promise<unknown>) => void;
  /** Counts payments by legacy code (metrics). */
  onPaymentCode?: (code: number) => void;
}

function send(res: ServerResponse, result: LegacyPaymentReply): void {
  for (const [name, value] of Object.entries(result.headers)) res.setHeader(name, value);
  writeJson(res, result.httpStatus, result.body);
}

/** The reply with the request's secrets scrubbed from the text v1 may have put in it. */
function scrubbed(result: LegacyPaymentReply, secrets: RequestSecrets): LegacyPaymentReply {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(result.headers)) headers[name] = secrets.scrub(value);
  return { ...result, headers, body: { ...result.body, response: secrets.scrub(result.body.response) } };
}

/** The reply an Idempotency-Key outcome stands for. */
function outcomeReply(outcome: IdempotencyOutcome, mapping: PaymentMapping, secrets: RequestSecrets): LegacyPaymentReply {
  switch (outcome.kind) {
    case 'fresh':
      return outcome.reply;
    case 'replayed': {
      // Stored scrubbed of the same key and fields; scrubbed again for this call's own secrets.
      const replayed = scrubbed(outcome.reply, secrets);
      return { ...replayed, headers: { ...replayed.headers, 'idempotent-replayed': 'true' } };
    }
    case 'mismatch':
      return idempotencyKeyReusedReply(mapping);
    case 'outcome-unknown':
      return idempotencyOutcomeUnknownReply(mapping);
    case 'unavailable':
      return idempotencyUnavailableReply(outcome.reason, mapping);
  }
}

export function paymentRoute(deps: PaymentRouteDeps) {
  const { mapping } = deps;

  async function handle(req: IncomingMessage, res: ServerResponse, ctx: RequestContext): Promise<void> {
    const body = await readPaymentBody(req, mapping.bodyLimitBytes);
    if (!body.ok) {
      if (body.problem === 'too-large') {
        // Stop reading the rest of an oversized upload: answer, then close the connection.
        res.setHeader('connection', 'close');
        res.once('finish', () => req.socket.destroySoon());
      }
      return send(res, bodyProblemReply(body.problem, mapping));
    }
    const unaccepted = unacceptedFieldsReply(body, mapping);
    if (unaccepted) return send(res, unaccepted);

    // The recorder (RECORD_FILE) reads the fields from here when the reply is written; it redacts secrets.
    (req as { body?: unknown }).body = body.fields;
    ctx.secrets.addBodyFields(body.fields);
    const { apiKey } = ctx.request;
    const { requestId } = ctx;
    const fields = { ...body.fields };
    delete fields[API_KEY_PARAM];

    let posted = false;
    const ports: PaymentPorts = {
      get: async (path, query, cacheTtlMs) => (await timed(ctx, path, () => deps.transport.getJson({ path, query, apiKey, requestId, cacheTtlMs }))).body,
      post: async (path, v1Body) => {
        posted = true;
        return (await timed(ctx, `POST ${path}`, () => deps.writer.postJson({ path, body: v1Body, apiKey, requestId }))).body;
      },
    };

    // Only a flow that reached v1 can carry v1's text (the local checks answer with the mapping's own).
    const pay = async (): Promise<LegacyPaymentReply> => {
      try {
        const result = await runPaymentFlow(fields, mapping, ports);
        return ctx.upstream.length > 0 ? scrubbed(result, ctx.secrets) : result;
      } finally {
        if (posted) await deps.generations?.bump(apiKey, paymentWrites(mapping, (name) => fields[name]));
      }
    };
    const header = req.headers['idempotency-key'];
    const idempotencyKey = Array.isArray(header) ? header[0] : header;
    const local = checkLocally(fields, mapping);
    let result: LegacyPaymentReply;
    if (idempotencyKey !== undefined && !isIdempotencyKey(idempotencyKey)) {
      result = malformedIdempotencyKeyReply(mapping);
    } else if (!local.ok) {
      result = reply(local.code, local.message);
    } else if (idempotencyKey === undefined) {
      result = await pay();
    } else {
      const outcome = await deps.idempotency.run(apiKey, idempotencyKey, deps.idempotency.fingerprint(fields), pay);
      result = outcomeReply(outcome, mapping, ctx.secrets);
    }
    if (result.internalError !== undefined) {
      (res as ServerResponse & { err?: Error }).err = result.internalError instanceof Error ? result.internalError : new Error('payment flow fault');
    }
    deps.onPaymentCode?.(result.body.code);
    ctx.paymentCode = result.body.code;
    send(res, result);
  }

  return function servePayment(req: IncomingMessage, res: ServerResponse, ctx: RequestContext): void {
    // A payment in flight is never cut off by the shutdown deadline: it always answers.
    deps.mustFinish?.(req);
    const work = handle(req, res, ctx).catch((err: unknown) => {
      deps.logger.error({ err: scrubbedError(err, ctx.secrets.scrubber), reqId: ctx.requestId }, 'payment route fault');
      if (!res.headersSent) send(res, internalFaultReply(mapping));
    });
    deps.holdUntilDone?.(work);
  };
}
