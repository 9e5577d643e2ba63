// Serves POST /api/payment: reads the body, claims the payment (its Idempotency-Key, or without one its
// fingerprint for the duplicate window), runs the payment flow with the API key the edge read, and writes
// the legacy payment reply {"status","code","response"}.
// The checks that need no v1 call (codes 1, 0, 3) run before anything is claimed: such a refusal takes no
// claim, and a repeat gets the same answer by running them again. The claims store is a port (this
// process, Redis or PostgreSQL): whatever it cannot do, it says, and the route answers before any v1
// write. Before the flow's first POST the claim is moved to `sent`, durably, or the payment is refused.
// Once the reply is sent, whether it reached its caller is told to the claim: a keyless payment whose
// reply was lost (or whose outcome is unknown) answers its repeats with that reply instead of paying again.
// v1 GETs go through the shared transport (cache, retries); the payment and client POSTs go through the
// writer, once. The fields are never logged; the log line carries the code only. A reply built after
// a v1 call may carry v1's text (its error message, its headers): it passes through the request's scrubber
// before it is sent or stored.
// A flow that sent a v1 POST, whatever it answers, moves the key's write generations of what the payment
// writes on (its payments, and its clients when it creates one) before it answers: the caller's next read
// of them is never served from a copy made before it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { runCheckedPaymentFlow, type PaymentPorts } from '../../payment/flow.js';
import {
  bodyProblemReply,
  claimOutcomeUnknownReply,
  claimUnavailableReply,
  idempotencyKeyReusedReply,
  internalFaultReply,
  isIdempotencyKey,
  malformedIdempotencyKeyReply,
  reply,
  unacceptedFieldsReply,
  type LegacyPaymentReply,
} from '../../payment/contract.js';
import { outcomeUnknown } from '../../payment/outcome.js';
import { paymentWrites } from '../../mapping/resources-touched.js';
import { checkLocally } from '../../payment/local-checks.js';
import type { PaymentMapping } from '../../payment/payment-mapping.js';
import { GatewayError } from '../../shared/errors.js';
import { API_KEY_PARAM } from '../edge/api-key.js';
import type { RequestContext, RequestSecrets } from '../edge/request-context.js';
import { timed } from '../edge/upstream-log.js';
import { writeJson } from '../edge/write-json.js';
import { scrubbedError } from '../logging.js';
import { ClaimStoreError } from '../../payment/claims/claim-store.js';
import type { Charge, ClaimOutcome, PaymentClaims, SendGate } from '../../payment/claims/payment-claims.js';
import type { WriteGenerations } from '../state/caches/write-generations.js';
import type { V1Transport, V1Writer } from '../upstream/v1-client.js';
import { readPaymentBody } from './payment-body.js';

export interface PaymentRouteDeps {
  mapping: PaymentMapping;
  transport: V1Transport;
  writer: V1Writer;
  /** Told of the payment's writes once one of its POSTs was sent; absent, nothing is told. */
  generations?: Pick<WriteGenerations, 'bump'>;
  claims: PaymentClaims;
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

/** Sends a reply and resolves whether it reached its caller: its connection was still open when it was
 * sent, and the reply was written out in full ('finish') before the connection closed. Node marks a reply
 * sent on a connection the caller already closed as finished too, so the connection is looked at first. */
function sendDelivered(res: ServerResponse, result: LegacyPaymentReply): Promise<boolean> {
  if (res.destroyed || res.socket === null || res.socket.destroyed) {
    send(res, result);
    return Promise.resolve(false);
  }
  const delivered = new Promise<boolean>((resolve) => {
    res.once('finish', () => resolve(true));
    res.once('close', () => resolve(false));
  });
  send(res, result);
  return delivered;
}

/** The reply a claim outcome stands for. */
function outcomeReply(outcome: ClaimOutcome, keyed: boolean, mapping: PaymentMapping, secrets: RequestSecrets): LegacyPaymentReply {
  switch (outcome.kind) {
    case 'fresh':
      return outcome.reply;
    case 'replayed': {
      // Stored scrubbed of the same key and fields; scrubbed again for this call's own secrets.
      const replayed = scrubbed({ ...outcome.reply }, secrets);
      return { ...replayed, headers: { ...replayed.headers, 'idempotent-replayed': 'true' } };
    }
    case 'mismatch':
      return idempotencyKeyReusedReply(mapping);
    case 'outcome-unknown':
      return claimOutcomeUnknownReply(keyed, mapping);
    case 'unavailable':
      return claimUnavailableReply(outcome.reason, keyed, mapping, outcome.detail);
  }
}

/** What a keyless repeat that was not paid again is logged as (one line each). */
const SUPPRESSED: Partial<Record<ClaimOutcome['kind'], string>> = {
  replayed: 'a payment identical to one just made was not paid again: it was answered the first one\'s reply',
  'outcome-unknown': 'a payment identical to one whose outcome is unknown was not paid again',
};

/**
 * The payment flow as run under its claim: v1 reached through the request's ports, the claim moved to
 * `sent` before the first POST (or the payment refused there), and what the flow did to v1's payments
 * (its charge) told back, which decides what a keyless repeat gets.
 */
function claimedFlow(deps: PaymentRouteDeps, ctx: RequestContext, fields: Record<string, string>, keyed: boolean) {
  const { mapping } = deps;
  const { apiKey } = ctx.request;
  const { requestId } = ctx;
  const paymentsPath = `/${mapping.resources.payments}`;
  return async (gate: SendGate): Promise<{ reply: LegacyPaymentReply; charge: Charge }> => {
    let posted = false;
    let charge: Charge = 'none';
    const ports: PaymentPorts = {
      get: async (path, query, cacheTtlMs) => (await timed(ctx, path, () => deps.transport.getJson({ path, query, apiKey, requestId, cacheTtlMs }))).body.take().value,
      post: async (path, v1Body) => {
        posted = true;
        const charging = path === paymentsPath;
        if (charging) charge = 'unknown';
        try {
          const sent = (await timed(ctx, `POST ${path}`, () => deps.writer.postJson({ path, body: v1Body, apiKey, requestId }))).body.take().value;
          if (charging) charge = 'paid';
          return sent;
        } catch (err) {
          if (charging && err instanceof GatewayError && !outcomeUnknown(err)) charge = 'refused';
          throw err;
        }
      },
      beforeWrites: async () => {
        try {
          await gate.beforeSend();
          return undefined;
        } catch (err) {
          if (!(err instanceof ClaimStoreError)) throw err;
          ctx.refusedByDesign = true;
          return claimUnavailableReply(err.fault === 'unreachable' ? 'store-unreachable' : err.fault, keyed, mapping, err.fault === 'not-durable' ? err.detail : undefined);
        }
      },
    };
    try {
      const result = await runCheckedPaymentFlow(fields, mapping, ports);
      // Only a flow that reached v1 can carry v1's text (the local checks answer with the mapping's own).
      return { reply: ctx.upstream.length > 0 ? scrubbed(result, ctx.secrets) : result, charge };
    } finally {
      if (posted) await deps.generations?.bump(apiKey, paymentWrites(mapping, (name) => fields[name]));
    }
  };
}

/** Sends a fresh payment's reply, then tells its claim whether the reply reached the caller. */
async function sendAndSettle(res: ServerResponse, result: LegacyPaymentReply, outcome: Extract<ClaimOutcome, { kind: 'fresh' }>): Promise<void> {
  let delivered: Promise<boolean>;
  try {
    delivered = sendDelivered(res, result);
  } catch (err) {
    await outcome.answered(false);
    throw err;
  }
  await outcome.answered(await delivered);
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
    ctx.bodyFields = body.fields;
    ctx.secrets.addBodyFields(body.fields);
    const { apiKey } = ctx.request;
    const { requestId } = ctx;
    const fields = { ...body.fields };
    delete fields[API_KEY_PARAM];

    const header = req.headers['idempotency-key'];
    const idempotencyKey = Array.isArray(header) ? header[0] : header;
    const keyed = idempotencyKey !== undefined;
    const pay = claimedFlow(deps, ctx, fields, keyed);
    const local = checkLocally(fields, mapping);
    let result: LegacyPaymentReply;
    let outcome: ClaimOutcome | undefined;
    if (keyed && !isIdempotencyKey(idempotencyKey)) {
      result = malformedIdempotencyKeyReply(mapping);
    } else if (!local.ok) {
      result = reply(local.code, local.message);
    } else {
      outcome = await deps.claims.run({ apiKey, idempotencyKey, fields }, pay);
      result = outcomeReply(outcome, keyed, mapping, ctx.secrets);
      // A repeat answered without v1 (a stored fault replayed included) is no fault of this call: a warning.
      if (outcome.kind !== 'fresh') ctx.refusedByDesign = true;
      const suppressed = keyed ? undefined : SUPPRESSED[outcome.kind];
      if (suppressed) deps.logger.warn({ reqId: requestId, code: result.body.code }, suppressed);
    }
    if (result.internalError !== undefined) {
      (res as ServerResponse & { err?: Error }).err = result.internalError instanceof Error ? result.internalError : new Error('payment flow fault');
    }
    deps.onPaymentCode?.(result.body.code);
    ctx.paymentCode = result.body.code;
    if (outcome?.kind === 'fresh') await sendAndSettle(res, result, outcome);
    else send(res, result);
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
