// Runs one payment end to end under its claim, and says what happened. In order:
//   1. the Idempotency-Key's format (400, code 0) and the local checks (codes 1, 0, 3): a refusal here takes
//      no claim, and a repeat gets the same answer by running them again;
//   2. the claim (claims/payment-claims.ts): its key, or without one its fingerprint for the duplicate
//      window. A repeat is answered from the claim (the first reply, a mismatch, outcome unknown), and a
//      store that cannot keep the claim refuses the payment before any v1 call;
//   3. the flow (flow.ts) under the claim: before its first POST the claim is moved to `sent`, durably, or
//      the payment is refused there, with nothing written to v1; a payment that creates its client hands
//      the claim its ticket once the client exists (the client named in it), and a later run of the same
//      claim pays for the client an earlier one created instead of creating another;
//   4. the reply, scrubbed of the request's secrets once v1 may have put its text in it, and, after a flow
//      that sent a POST, the writes told (what the payment wrote on must then be read fresh).
// It returns the reply, what the call did (answered how, wrote, charged), and for a payment that ran, the
// function that tells its claim whether the reply reached the caller: a keyless payment whose reply was
// lost (or whose outcome is unknown) answers its repeats with that reply instead of paying again.
// Pure: v1, the claims store, the secrets and the write generations are ports.
import { ClaimStoreError } from './claims/claim-store.js';
import type { ClaimOutcome, PaymentClaims, SendGate } from './claims/payment-claims.js';
import {
  claimOutcomeUnknownReply,
  claimUnavailableReply,
  idempotencyKeyReusedReply,
  isIdempotencyKey,
  malformedIdempotencyKeyReply,
  reply,
  type LegacyPaymentReply,
} from './contract.js';
import { runCheckedPaymentFlow, type Charge, type PaymentFlowResult, type PaymentPorts } from './flow.js';
import { PAYMENT_CODES } from './codes.js';
import { checkLocally } from './local-checks.js';
import { fillMessage } from './message-template.js';
import type { LedgerGet } from './settle/ledger-read.js';
import type { SettleTerms } from './settle/settle-claim.js';
import type { PaymentMapping } from './payment-mapping.js';

export interface ClaimedPaymentCall {
  apiKey: string | undefined;
  /** The Idempotency-Key as the caller sent it, unchecked; undefined: a keyless payment. */
  idempotencyKey: string | undefined;
  /** The payment's fields, the API key not among them. */
  fields: Readonly<Record<string, string>>;
}

/** What one claimed payment reaches beyond itself, for one request. */
export interface ClaimedPaymentPorts {
  claims: PaymentClaims;
  /** v1 for this request: its GETs, and its POSTs (each made once, never retried). */
  v1: Pick<PaymentPorts, 'get' | 'post'>;
  /** Whether this request exchanged anything with v1 itself (a reply from the cache is no exchange): only
   * then can a reply built by the flow carry v1's text. */
  reachedV1(): boolean;
  /** The text with this request's secrets (API key, card token, password...) scrubbed out. */
  scrub(text: string): string;
  /** Told once, after a flow that sent a v1 POST and before it answers: what the payment wrote on. */
  afterWrites?(): Promise<void>;
}

/** How the call was answered: `checked` refused by the key's format or the local checks (nothing claimed);
 * `ran` it ran the flow under its claim; `stopped-at-gate` it ran the flow, which the store refused to let
 * write; or, for a call that did not run it, the claim's outcome. */
export type PaymentAnswer = 'checked' | 'ran' | 'stopped-at-gate' | Exclude<ClaimOutcome['kind'], 'fresh'>;

export interface ClaimedPaymentResult {
  reply: LegacyPaymentReply;
  answer: PaymentAnswer;
  /** Whether this call sent a v1 POST (the new client or the payment). */
  wrote: boolean;
  /** What this call did to v1's payments. */
  charge: Charge;
  /** Answered as designed, with no fault of this call: a repeat answered from its claim, or a payment
   * refused because its claim could not be kept. */
  byDesign: boolean;
  /** A keyless repeat that was not paid again: what the log says of it. */
  notPaidAgain?: string;
  /** For a payment that ran: to be called once, when its reply was sent, with whether it reached the caller. */
  delivered?: (reached: boolean) => Promise<void>;
}

/** What a keyless repeat that was not paid again is logged as (one line each). */
const NOT_PAID_AGAIN: Partial<Record<ClaimOutcome['kind'], string>> = {
  replayed: 'a payment identical to one just made was not paid again: it was answered the first one\'s reply',
  'outcome-unknown': 'a payment identical to one whose outcome is unknown was not paid again',
  'not-paid': 'a payment identical to one whose outcome was unknown was settled as not paid (v1\'s payments list holds none): it was not paid now, and may be sent again',
};

/** The reply with the request's secrets scrubbed from the text v1 may have put in it. */
function scrubbed(result: LegacyPaymentReply, scrub: (text: string) => string): LegacyPaymentReply {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(result.headers)) headers[name] = scrub(value);
  return { ...result, headers, body: { ...result.body, response: scrub(result.body.response) } };
}

/** An unknown outcome that may be settled later: when to ask again. */
const withRetryAfter = (answer: LegacyPaymentReply, retryAfterS: number | undefined): LegacyPaymentReply =>
  retryAfterS === undefined ? answer : { ...answer, headers: { ...answer.headers, 'retry-after': String(retryAfterS) } };

/** How an unknown outcome is settled for this request, when the mapping says how. */
export function settleTerms(mapping: PaymentMapping, get: LedgerGet): SettleTerms | undefined {
  const { settle } = mapping;
  if (settle === undefined) return undefined;
  return {
    settle,
    get,
    paidReply: (paymentId) => reply(PAYMENT_CODES.paymentAdded, fillMessage(mapping.messages.created, { payment_id: paymentId })),
    notPaidReply: () => reply(PAYMENT_CODES.paymentFailed, settle.notPaid),
  };
}

/** The reply a claim outcome stands for, when this call did not run the payment. */
function claimReply(outcome: Exclude<ClaimOutcome, { kind: 'fresh' }>, keyed: boolean, mapping: PaymentMapping, scrub: (text: string) => string): LegacyPaymentReply {
  switch (outcome.kind) {
    case 'replayed': {
      // Stored scrubbed of the same key and fields; scrubbed again for this call's own secrets.
      const replayed = scrubbed({ ...outcome.reply }, scrub);
      return withRetryAfter({ ...replayed, headers: { ...replayed.headers, 'idempotent-replayed': 'true' } }, outcome.retryAfterS);
    }
    case 'mismatch':
      return idempotencyKeyReusedReply(mapping);
    case 'outcome-unknown':
      return withRetryAfter(claimOutcomeUnknownReply(keyed, mapping), outcome.retryAfterS);
    case 'not-paid':
      return { ...outcome.reply };
    case 'unavailable':
      return claimUnavailableReply(outcome.reason, keyed, mapping, outcome.detail);
  }
}

interface RunUnderClaim extends PaymentFlowResult {
  stoppedAtGate: boolean;
}

/** The flow under its claim: the gate asked before the first POST; the reply scrubbed once v1 answered. */
async function runUnderClaim(call: ClaimedPaymentCall, keyed: boolean, mapping: PaymentMapping, ports: ClaimedPaymentPorts, gate: SendGate): Promise<RunUnderClaim> {
  let stoppedAtGate = false;
  const flowPorts: PaymentPorts = {
    get: ports.v1.get,
    post: ports.v1.post,
    settles: gate.settles,
    clientCreated: gate.clientCreated,
    ...(gate.createdClient === undefined ? {} : { createdClient: gate.createdClient }),
    beforeWrites: async (mark) => {
      try {
        await gate.beforeSend(mark);
        return undefined;
      } catch (err) {
        if (!(err instanceof ClaimStoreError)) throw err;
        stoppedAtGate = true;
        return claimUnavailableReply(err.fault === 'unreachable' ? 'store-unreachable' : err.fault, keyed, mapping, err.fault === 'not-durable' ? err.detail : undefined);
      }
    },
  };
  const flow = await runCheckedPaymentFlow(call.fields, mapping, flowPorts);
  try {
    // Only a flow that reached v1 can carry v1's text (the local checks answer with the mapping's own).
    return { ...flow, reply: ports.reachedV1() ? scrubbed(flow.reply, ports.scrub) : flow.reply, stoppedAtGate };
  } finally {
    if (flow.wrote) await ports.afterWrites?.();
  }
}

export async function runClaimedPayment(call: ClaimedPaymentCall, mapping: PaymentMapping, ports: ClaimedPaymentPorts): Promise<ClaimedPaymentResult> {
  const keyed = call.idempotencyKey !== undefined;
  const checked = (refusal: LegacyPaymentReply): ClaimedPaymentResult => ({ reply: refusal, answer: 'checked', wrote: false, charge: 'none', byDesign: false });
  if (call.idempotencyKey !== undefined && !isIdempotencyKey(call.idempotencyKey)) return checked(malformedIdempotencyKeyReply(mapping));
  const local = checkLocally(call.fields, mapping);
  if (!local.ok) return checked(reply(local.code, local.message));

  let ran: RunUnderClaim | undefined;
  const outcome = await ports.claims.run(call, async (gate) => {
    ran = await runUnderClaim(call, keyed, mapping, ports, gate);
    return { reply: ran.reply, charge: ran.charge };
  }, settleTerms(mapping, (path, query) => ports.v1.get(path, query, 0)));
  if (outcome.kind === 'fresh') {
    const { wrote, charge, stoppedAtGate } = ran!;
    return { reply: outcome.reply, answer: stoppedAtGate ? 'stopped-at-gate' : 'ran', wrote, charge, byDesign: stoppedAtGate, delivered: outcome.answered };
  }
  const answered = claimReply(outcome, keyed, mapping, ports.scrub);
  const notPaidAgain = keyed ? undefined : NOT_PAID_AGAIN[outcome.kind];
  // A repeat answered without v1 (a stored fault replayed included) is no fault of this call.
  return { reply: answered, answer: outcome.kind, wrote: false, charge: 'none', byDesign: true, ...(notPaidAgain === undefined ? {} : { notPaidAgain }) };
}
