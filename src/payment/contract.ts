// The legacy payment contract of POST /api/payment in one place: the reply shape, the rules of the checks
// made without v1 (codes 1, 0, 3), the Idempotency-Key format, and the replies the route gives outside
// the flow. The codes are codes.ts's; what each means is said in the legacy surface's description
// (src/legacy-surface/legacy-surface.ts). Pure: no I/O, no knowledge of v1. It never holds a message text: those
// are the product's guesses and live in mappings/payment.yaml, filled here from the mapping.
import { PAYMENT_CODES } from './codes.js';
import { fillMessage } from './message-template.js';
import type { PaymentMapping } from './payment-mapping.js';

// The codes (names and numbers) are codes.ts's, re-exported here for the flow, its orchestrator and the stores.
export { ALL_PAYMENT_CODES, PAYMENT_CODES, isPaymentCode, type PaymentCode, type PaymentCodeName } from './codes.js';

/** The legacy reply: `{"status","code","response"}`, with the HTTP status and headers to send it with. */
export interface LegacyPaymentReply {
  httpStatus: number;
  headers: Record<string, string>;
  body: { status: 'success' | 'failure'; code: number; response: string };
  /** An unexpected fault inside the gateway, for the log line (never sent to the caller). */
  internalError?: unknown;
}

/** Builds a legacy reply; `status` is "success" for code 12 only. */
export const reply = (code: number, message: string, httpStatus = 200, headers: Record<string, string> = {}): LegacyPaymentReply => ({
  httpStatus,
  headers,
  body: { status: code === PAYMENT_CODES.paymentAdded ? 'success' : 'failure', code, response: message },
});

// --- The checks made without v1, in this order: required (1), formats (0), passwords (3). ---

/** The field whose presence makes a payment for an existing client (otherwise a new client is created). */
export const CLIENT_ID_FIELD = 'client_id';
/** Code 1: every payment needs these. */
export const REQUIRED_ALWAYS: readonly string[] = ['revenue_amount', 'send_email'];
/** Code 1: a payment without `client_id` also needs these (they describe the new client). */
export const REQUIRED_FOR_NEW_CLIENT: readonly string[] = ['first_name', 'last_name', 'state', 'country', 'status'];

/** Code 3: read by the checks only, never sent to v1 (every other field the payment reads is the mapping's). */
export const CHECK_ONLY_FIELDS: readonly string[] = ['password2'];

/** Code 0: the format rules, as patterns. */
export const FORMATS = {
  /** `revenue_amount`: digits, optionally a point and one or two decimals (no "1,000.00", "$5", "5."). */
  plainDecimal: /^\d{1,12}(?:\.\d{1,2})?$/,
  /** An id: a whole number. */
  wholeNumber: /^\d{1,15}$/,
  /** An availability time. */
  hourMinute: /^(?:[01]\d|2[0-3]):[0-5]\d$/,
  /** A date, also checked to be on the calendar. */
  calendarDate: /^(\d{4})-(\d{2})-(\d{2})$/,
} as const;

/** Code 0: `send_email` is one of these. */
export const SEND_EMAIL_VALUES = ['0', '1'] as const;
/** Code 0: optional ids, a whole number when given. */
export const WHOLE_NUMBER_FIELDS: readonly string[] = ['client_id', 'service_id', 'qb_customer_id'];
/** Code 0, new client only: optional dates, `YYYY-MM-DD` on the calendar when given. (The new client's
 * `status` must also be one of the mapping's `clientStatuses`, and its availability pass `availabilityFaults`.) */
export const NEW_CLIENT_DATE_FIELDS: readonly string[] = ['inactive_date'];

/** Code 0: an amount is a plain decimal above zero. */
export const isPlainAmount = (text: string): boolean => FORMATS.plainDecimal.test(text) && Number(text) > 0;

export function isCalendarDate(text: string): boolean {
  const m = FORMATS.calendarDate.exec(text);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}

/** Code 0, new client: one day's availability is both times or neither, `HH:MM`, the end after the start. */
export function availabilityFaults(from: string, to: string): { from: boolean; to: boolean } {
  if (from === '' && to === '') return { from: false, to: false };
  const fromOk = FORMATS.hourMinute.test(from);
  return { from: !fromOk, to: !FORMATS.hourMinute.test(to) || (fromOk && to <= from) };
}

/** Code 3: a `password` was given and `password2` is not the same. */
export const passwordsDiffer = (fields: Readonly<Record<string, string>>): boolean =>
  (fields.password ?? '') !== '' && fields.password !== (fields.password2 ?? '');

// --- The Idempotency-Key header. ---

/** Visible ASCII, as the Idempotency-Key header convention allows; long enough for a UUID and more. */
export const IDEMPOTENCY_KEY_FORMAT = /^[\x21-\x7e]{1,255}$/;

export const isIdempotencyKey = (header: string): boolean => IDEMPOTENCY_KEY_FORMAT.test(header);

// --- The replies given outside the flow (the route's and the orchestrator's). Each takes its texts from the mapping. ---

type Texts = Pick<PaymentMapping, 'messages'>;

/** Why a body could not be read (the route's body reader). */
export type BodyProblem = 'too-large' | 'unsupported' | 'malformed';

/** The reason an internal fault gives in its message. */
export const INTERNAL_FAULT_REASON = 'internal gateway error';

/** 413, code 0: the body is over the mapping's `bodyLimitBytes`. */
export const bodyTooLargeReply = (mapping: Pick<PaymentMapping, 'messages' | 'bodyLimitBytes'>): LegacyPaymentReply =>
  reply(PAYMENT_CODES.invalidFields, fillMessage(mapping.messages.tooLarge, { limit: mapping.bodyLimitBytes }), 413);

/** 415, code 0: not urlencoded, multipart or JSON. */
export const unsupportedBodyReply = (mapping: Texts): LegacyPaymentReply =>
  reply(PAYMENT_CODES.invalidFields, mapping.messages.unsupportedBody, 415);

/** 200, code 0: a body that cannot be parsed (or JSON that is not an object). */
export const malformedBodyReply = (mapping: Texts): LegacyPaymentReply =>
  reply(PAYMENT_CODES.invalidFields, fillMessage(mapping.messages.invalid, { fields: 'body' }));

/** The reply to a body that could not be read. */
export function bodyProblemReply(problem: BodyProblem, mapping: Pick<PaymentMapping, 'messages' | 'bodyLimitBytes'>): LegacyPaymentReply {
  if (problem === 'too-large') return bodyTooLargeReply(mapping);
  if (problem === 'unsupported') return unsupportedBodyReply(mapping);
  return malformedBodyReply(mapping);
}

/**
 * 200, code 0: fields the gateway does not accept (file parts of a multipart body, JSON objects or arrays),
 * named invalid fields first; undefined when there are none. Any file part makes it the file message.
 */
export function unacceptedFieldsReply(
  found: { readonly fileFields: readonly string[]; readonly invalidFields: readonly string[] },
  mapping: Texts,
): LegacyPaymentReply | undefined {
  if (found.fileFields.length === 0 && found.invalidFields.length === 0) return undefined;
  const fields = [...found.invalidFields, ...found.fileFields].join(', ');
  const template = found.fileFields.length > 0 ? mapping.messages.fileNotAccepted : mapping.messages.invalid;
  return reply(PAYMENT_CODES.invalidFields, fillMessage(template, { fields }));
}

/** 400, code 0: an Idempotency-Key header that is not `IDEMPOTENCY_KEY_FORMAT`. */
export const malformedIdempotencyKeyReply = (mapping: Texts): LegacyPaymentReply =>
  reply(PAYMENT_CODES.invalidFields, fillMessage(mapping.messages.invalid, { fields: 'Idempotency-Key' }), 400);

/** 409, code 0: the Idempotency-Key was already used (same API key) for a payment with other fields. */
export const idempotencyKeyReusedReply = (mapping: Texts): LegacyPaymentReply =>
  reply(PAYMENT_CODES.invalidFields, mapping.messages.idempotencyMismatch, 409);

/** Why a claim could not be taken or followed: the reason its 503 gives. `keyed`: with an Idempotency-Key;
 * `keyless`: the duplicate check of a payment sent without one. */
export const CLAIM_UNAVAILABLE_REASONS = {
  full: { keyed: 'the Idempotency-Key store is full', keyless: 'the payment duplicate check is full' },
  'store-unreachable': { keyed: 'the Idempotency-Key store cannot be reached', keyless: 'the payment duplicate check cannot be reached' },
  'wait-expired': { keyed: 'the first call with this Idempotency-Key has not answered yet', keyless: 'an identical payment sent just before has not answered yet' },
  'not-durable': { keyed: 'the Idempotency-Key store cannot prove it keeps keys', keyless: 'the payment duplicate check cannot prove it keeps payments' },
} as const;

export type ClaimUnavailableReason = keyof typeof CLAIM_UNAVAILABLE_REASONS;

/**
 * 503, code 8: the claim could not be taken (the store is full, unreachable, or cannot prove it keeps
 * claims) or the first call is still running; answered before any v1 write. `detail` (the store's own
 * words, never a value) replaces the generic reason. A retry is safe: it pays once, or gets the first
 * call's reply.
 */
export function claimUnavailableReply(reason: ClaimUnavailableReason, keyed: boolean, mapping: Texts, detail?: string): LegacyPaymentReply {
  const why = detail ?? CLAIM_UNAVAILABLE_REASONS[reason][keyed ? 'keyed' : 'keyless'];
  return reply(PAYMENT_CODES.paymentFailed, fillMessage(keyed ? mapping.messages.idempotencyUnavailable : mapping.messages.duplicateUnavailable, { reason: why }), 503);
}

/**
 * 502, code 8: the first call stopped while paying (its replica died, or its reply could not be stored) and
 * no reply was kept: the payment may have been made, and it is never made again under this claim (this
 * Idempotency-Key, or for a keyless payment the same payment within the duplicate window). A fault's
 * status, as every outcome the gateway cannot know: HTTP 200 with code 8 is v1 refusing the payment,
 * which an integration may take as "not paid" and pay again.
 */
export const claimOutcomeUnknownReply = (keyed: boolean, mapping: Texts): LegacyPaymentReply =>
  reply(PAYMENT_CODES.paymentFailed, keyed ? mapping.messages.idempotencyOutcomeUnknown : mapping.messages.duplicateOutcomeUnknown, 502);

/** 500, code 8: a fault inside the gateway; the caller is told to check the payments before retrying. */
export const internalFaultReply = (mapping: Texts): LegacyPaymentReply =>
  reply(PAYMENT_CODES.paymentFailed, fillMessage(mapping.messages.outcomeUnknown, { reason: INTERNAL_FAULT_REASON }), 500);

/** Whether a reply shows that v1 refused the API key itself (401, 403): nothing was done, so the call takes
 * no Idempotency-Key for long, and made-up API keys cannot fill the key store for everyone else. */
export function refusedTheApiKey(reply: LegacyPaymentReply): boolean {
  return reply.httpStatus === 401 || reply.httpStatus === 403;
}
