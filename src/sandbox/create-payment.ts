// POST /api/v1/payments: validates a payment and records it. The rules, in the order they are checked
// (the first failure answers):
//   1. Body fields, in this order; the first bad one answers 400 invalid_request "<field> <problem>":
//      client_id (required positive integer), amount (required number > 0), send_email (0 or 1, default 0),
//      service_id (positive integer), discount_code (string), note (string, at most 1000 characters as
//      stored), token (string), qb_customer_id (positive integer), timezone (string). JSON types are
//      strict: "5" is not an integer. Unknown fields are ignored.
//   2. timezone, when given, must be a name of the timezones resource (400 naming timezone); when absent
//      or empty the payment is recorded in America/New_York, as the earlier API did.
//   3. client_id unknown: 404 not_found. service_id unknown: 404 not_found.
//   4. discount_code unknown or inactive, used up (uses >= max_uses), or tied to another service than
//      service_id (or service_id missing): 400 invalid_request naming discount_code.
//   5. A service whose group_num is above 1 is a package: 409 conflict
//      "package payments cannot be made through the API".
//   6. token (see SANDBOX_TEST_TOKENS): tok_declined 402 card_declined, tok_refused 402 payment_refused,
//      nothing recorded; tok_timeout is recorded at once and answered after paymentHangMs; any other
//      token, or none, is recorded and answered 201.
// `amount` is recorded as sent: the caller has already applied the discount. A recorded payment counts one
// use of its discount. The token and qb_customer_id are never stored in the record, logged or echoed.
import { z } from 'zod';
import { optionalFlag, optionalId, optionalText, parseBody, requiredId } from './body-fields.js';
import { SandboxError } from './errors.js';
import { appendRecord, requireKnownTimezone } from './new-records.js';
import { PAYMENT_FIELDS, type DiscountRecord, type PaymentRecord } from './records.js';
import type { SandboxState } from './state.js';
import { SANDBOX_TEST_TOKENS } from './test-tokens.js';

/** Time zone of a payment sent without one (the earlier API's documented default). */
export const DEFAULT_PAYMENT_TIMEZONE = 'America/New_York';

const paymentSchema = z.object({
  client_id: requiredId(),
  amount: z
    .number({ error: (iss) => (iss.input === undefined || iss.input === null ? 'is required' : 'must be a number greater than 0') })
    .positive({ error: 'must be a number greater than 0' }),
  send_email: optionalFlag(0),
  service_id: optionalId(),
  discount_code: optionalText(50),
  note: optionalText(1000),
  token: z.string({ error: 'must be a string' }).nullable().optional(),
  qb_customer_id: optionalId(),
  timezone: optionalText(64),
});

export interface PaymentOutcome {
  payment: PaymentRecord;
  /** True for the tok_timeout token: the reply must wait paymentHangMs. */
  delayReply: boolean;
}

function checkDiscount(state: SandboxState, code: string, serviceId: number | null): DiscountRecord {
  const discount = state.discounts.find((d) => d.code?.toLowerCase() === code.toLowerCase());
  if (discount === undefined || discount.status !== 'active') {
    throw new SandboxError('invalid_request', 'discount_code is not a valid discount code');
  }
  if (discount.max_uses !== null && (discount.uses ?? 0) >= discount.max_uses) {
    throw new SandboxError('invalid_request', 'discount_code has reached its maximum number of uses');
  }
  if (discount.service_id !== null && discount.service_id !== serviceId) {
    throw new SandboxError('invalid_request', `discount_code is only valid for service ${String(discount.service_id)}`);
  }
  return discount;
}

/** Validates `body`, applies the rules above and records the payment; throws SandboxError on refusal. */
export function createPayment(state: SandboxState, body: unknown, today: string): PaymentOutcome {
  const input = parseBody(paymentSchema, body);

  requireKnownTimezone(state, input.timezone);
  if (!state.clients.some((c) => c.id === input.client_id)) {
    throw new SandboxError('not_found', `no client with id ${String(input.client_id)}`);
  }
  const service = input.service_id === null ? undefined : state.services.find((s) => s.id === input.service_id);
  if (input.service_id !== null && service === undefined) {
    throw new SandboxError('not_found', `no service with id ${String(input.service_id)}`);
  }
  const discount = input.discount_code === null ? undefined : checkDiscount(state, input.discount_code, input.service_id);
  if (service !== undefined && (service.group_num ?? 1) > 1) {
    throw new SandboxError('conflict', 'package payments cannot be made through the API');
  }
  if (input.token === SANDBOX_TEST_TOKENS.declined.token) {
    throw new SandboxError('card_declined', 'the card was declined');
  }
  if (input.token === SANDBOX_TEST_TOKENS.refused.token) {
    throw new SandboxError('payment_refused', 'the payment was refused by the processor');
  }

  // The token and qb_customer_id are body fields only: appendRecord keeps the payment record's fields.
  const payment = appendRecord(state.payments, PAYMENT_FIELDS, {
    ...input,
    object: 'payment',
    discount_code: discount?.code ?? null,
    timezone: input.timezone ?? DEFAULT_PAYMENT_TIMEZONE,
    status: 'completed',
    created: today,
  });
  if (discount !== undefined) discount.uses = (discount.uses ?? 0) + 1;
  return { payment, delayReply: input.token === SANDBOX_TEST_TOKENS.timeout.token };
}
