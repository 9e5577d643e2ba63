// Serves POST /api/payment: reads the body, runs the payment once through its orchestrator
// (src/payment/run-claimed-payment.ts: the checks, the claim, the flow, the gate before the first POST)
// with this request's ports (payment-ports.ts), writes the legacy payment reply
// {"status","code","response"}, and tells the payment whether its reply reached the caller. The fields are
// never logged; the log line carries the code only, and a repeat answered without paying is a warning. The
// names (never the values) of the fields the payment does not know are logged at debug.
import type { Logger } from 'pino';
import { bodyProblemReply, internalFaultReply, unacceptedFieldsReply, type LegacyPaymentReply } from '../../payment/contract.js';
import { unknownPaymentFields } from '../../payment/legacy-fields.js';
import { runClaimedPayment } from '../../payment/run-claimed-payment.js';
import { API_KEY_PARAM } from '../edge/api-key.js';
import type { RequestContext } from '../edge/request-context.js';
import { writeJson } from '../edge/write-json.js';
import { scrubbedError } from '../logging.js';
import { readPaymentBody } from './payment-body.js';
import { paymentPorts, type PaymentPortsDeps } from './payment-ports.js';
import { sendDelivered } from './reply-delivery.js';

export interface PaymentRouteDeps extends PaymentPortsDeps {
  logger: Logger;
  /** Marks the request as one the shutdown deadline must not cut off. */
  mustFinish?: (ctx: RequestContext) => void;
  /** Keeps shutdown waiting until a payment in flight has answered. */
  holdUntilDone?: (work: Promise<unknown>) => void;
  /** Counts payments by legacy code (metrics). */
  onPaymentCode?: (code: number) => void;
}

/** How many unknown field names a debug line names, and how much of each: a body may hold thousands. */
const UNKNOWN_NAMES_LOGGED = 20;
const UNKNOWN_NAME_CHARS = 64;

/** Names the fields the payment ignores, at debug: their names only, never a value. */
function logUnknownFields(logger: Logger, reqId: string, unknown: readonly string[]): void {
  if (unknown.length === 0 || !logger.isLevelEnabled('debug')) return;
  const names = unknown.slice(0, UNKNOWN_NAMES_LOGGED).map((name) => name.slice(0, UNKNOWN_NAME_CHARS));
  logger.debug({ reqId, unknownFields: names, unknownFieldCount: unknown.length }, 'payment fields ignored: the gateway does not know them');
}

function send(ctx: RequestContext, result: LegacyPaymentReply): void {
  for (const [name, value] of Object.entries(result.headers)) ctx.res.setHeader(name, value);
  writeJson(ctx, result.httpStatus, result.body);
}

/** Sends the reply of a payment that ran, then tells it whether the reply reached the caller. */
async function sendTellingDelivery(ctx: RequestContext, result: LegacyPaymentReply, delivered: (reached: boolean) => Promise<void>): Promise<void> {
  let reached: boolean;
  try {
    reached = await sendDelivered(ctx.res, () => send(ctx, result));
  } catch (err) {
    await delivered(false);
    throw err;
  }
  await delivered(reached);
}

export function paymentRoute(deps: PaymentRouteDeps) {
  const { mapping } = deps;

  async function handle(ctx: RequestContext): Promise<void> {
    const { req, res } = ctx;
    const body = await readPaymentBody(req, mapping.bodyLimitBytes);
    if (!body.ok) {
      if (body.problem === 'too-large') {
        // Stop reading the rest of an oversized upload: answer, then close the connection.
        res.setHeader('connection', 'close');
        res.once('finish', () => req.socket.destroySoon());
      }
      return send(ctx, bodyProblemReply(body.problem, mapping));
    }
    const unaccepted = unacceptedFieldsReply(body, mapping);
    if (unaccepted) return send(ctx, unaccepted);

    // The recorder (RECORD_FILE) reads the fields from here when the reply is written; it redacts secrets.
    ctx.bodyFields = body.fields;
    ctx.secrets.addBodyFields(body.fields);
    const fields = { ...body.fields };
    delete fields[API_KEY_PARAM];
    logUnknownFields(deps.logger, ctx.requestId, unknownPaymentFields(fields, mapping));

    const { apiKey, idempotencyKey } = ctx.request;
    const paid = await runClaimedPayment({ apiKey, idempotencyKey, fields }, mapping, paymentPorts(deps, ctx, fields));
    const { reply } = paid;
    if (paid.byDesign) ctx.refusedByDesign = true;
    if (paid.notPaidAgain !== undefined) deps.logger.warn({ reqId: ctx.requestId, code: reply.body.code }, paid.notPaidAgain);
    // The fault the log line carries (scrubbed: request-line.ts).
    if (reply.internalError !== undefined) ctx.error = reply.internalError instanceof Error ? reply.internalError : new Error('payment flow fault');
    deps.onPaymentCode?.(reply.body.code);
    ctx.paymentCode = reply.body.code;
    if (paid.delivered) await sendTellingDelivery(ctx, reply, paid.delivered);
    else send(ctx, reply);
  }

  return function servePayment(ctx: RequestContext): void {
    // A payment in flight is never cut off by the shutdown deadline: it always answers.
    deps.mustFinish?.(ctx);
    const work = handle(ctx).catch((err: unknown) => {
      deps.logger.error({ err: scrubbedError(err, ctx.secrets.scrubber), reqId: ctx.requestId }, 'payment route fault');
      if (!ctx.res.headersSent) send(ctx, internalFaultReply(mapping));
    });
    deps.holdUntilDone?.(work);
  };
}
