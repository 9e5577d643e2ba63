// The shape of mappings/payment.yaml: what the payment flow knows about v1 (resources, filter and field
// names, request bodies) and about the legacy replies (which v1 refusal is which code, message texts).
// Pure data description (zod); every guess about the real service lives in that file, not in code.
import { z } from 'zod';
import { ALL_PAYMENT_CODES } from './codes.js';

const name = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/);
const resource = z.string().regex(/^[a-z][a-z0-9-]*$/);
const legacyCode = z.literal(ALL_PAYMENT_CODES);

/** One v1 body field taken from one legacy field. */
const bodyField = z.strictObject({
  to: name,
  from: name,
  /** integer/number: sent as JSON numbers; string: as sent; omitted when the legacy field is empty. */
  type: z.enum(['string', 'integer', 'number']),
});

/** Matches a v1 error to a legacy code; the first rule that matches wins. */
const errorRule = z.strictObject({
  status: z.number().int().min(400).max(599).optional(),
  upstreamCode: z.string().optional(),
  /** A case-insensitive regular expression tested against v1's message. */
  messageMatches: z
    .string()
    .refine((source) => {
      try {
        new RegExp(source, 'i');
        return true;
      } catch {
        return false;
      }
    }, 'not a valid regular expression')
    .optional(),
  code: legacyCode,
  /** A message of the gateway's instead of v1's (v1's is kept when omitted). */
  message: z.string().optional(),
});
export type ErrorRule = z.infer<typeof errorRule>;

/** Legacy fields never kept by a claim, even as a settlement's field: the card token and the passwords. */
const SECRET_LEGACY_FIELDS = new Set(['token', 'password', 'password2']);

export const paymentMappingSchema = z.strictObject({
  method: z.literal('payment'),
  description: z.string(),
  kind: z.literal('payment'),
  /** Larger bodies answer 413 without reading further. */
  bodyLimitBytes: z.number().int().min(1024).max(10 * 1024 * 1024),
  /** The legacy client states, for a new client's `status` (code 0 otherwise). */
  clientStatuses: z.array(z.string()).min(1),
  resources: z.strictObject({ clients: resource, services: resource, discounts: resource, timezones: resource, payments: resource }),
  /** The id field of the client and service records the checks read (codes 6, 10); another id there is a fault. */
  recordIdField: name,
  discount: z.strictObject({
    filter: z.string().regex(/^[a-z_]+$/),
    codeField: name,
    statusField: name,
    activeValues: z.array(z.string()).min(1),
    serviceField: name,
  }),
  timezone: z.strictObject({ nameField: name, fallback: z.string().min(1), cacheTtlMs: z.number().int().min(0) }),
  newClient: z.strictObject({
    fields: z.array(bodyField).min(1),
    availability: z.strictObject({
      to: name,
      days: z.array(z.strictObject({ day: z.string(), from: name, to: name })).min(1),
    }),
    /** v1's replies when the client cannot be created; the last rule should catch everything. */
    errors: z.array(errorRule).min(1),
    idField: name,
  }),
  payment: z.strictObject({
    fields: z.array(bodyField).min(1),
    /** v1's refusals of the payment POST itself. */
    refusals: z.array(errorRule).min(1),
    idField: name,
  }),
  /** How an unknown outcome is settled from v1's payments list (payment-mapping's `settle`, and
   * src/payment/settle/): absent, an unknown outcome stays unknown for its claim's life. */
  settle: z
    .strictObject({
      /** The v1 list read (GET /{list}), ordered by id ascending, with `total` in its envelope. */
      list: resource,
      /** The records' id field (integers). */
      idField: name,
      /** The list's filters that narrow it to the payment's own records: v1 filter <- payment body field. */
      filters: z.record(name, name),
      /** The fields a record must carry to be the payment sent: v1 record field <- payment body field. */
      match: z.record(name, name).refine((m) => Object.keys(m).length > 0, 'at least one field'),
      /** The payment body fields an operator's list shows in clear: the client and the amount. */
      shown: z.strictObject({ client: name, amount: name }),
      /** Code 8: the settlement found the payment was never made; it can be sent again. */
      notPaid: z.string(),
    })
    .optional(),
  messages: z.strictObject({
    missing: z.string(),
    invalid: z.string(),
    passwordsDiffer: z.string(),
    clientNotFound: z.string(),
    serviceNotFound: z.string(),
    discountInvalid: z.string(),
    discountWrongService: z.string(),
    outcomeUnknown: z.string(),
    upstreamFault: z.string(),
    /** Code 5: a fault while creating the new client that may have created it (5xx, timeout, dropped connection). */
    clientOutcomeUnknown: z.string(),
    /** Code 5: the service refused to create the new client (401, 403, 429): nothing was created. */
    clientCreationRefused: z.string(),
    created: z.string(),
    clientCreatedButPaymentFailed: z.string(),
    fileNotAccepted: z.string(),
    tooLarge: z.string(),
    unsupportedBody: z.string(),
    idempotencyMismatch: z.string(),
    /** Code 8, HTTP 503: the Idempotency-Key store cannot take the key now ({reason}); this call made no payment. */
    idempotencyUnavailable: z.string(),
    /** Code 8, HTTP 502: the first call with this Idempotency-Key stopped before it answered; its outcome is unknown. */
    idempotencyOutcomeUnknown: z.string(),
    /** Code 8, HTTP 503: a payment sent without an Idempotency-Key cannot be checked for duplicates now ({reason}); this call made no payment. */
    duplicateUnavailable: z.string(),
    /** Code 8, HTTP 502: an identical payment sent just before stopped before it answered; its outcome is unknown. */
    duplicateOutcomeUnknown: z.string(),
  }),
}).superRefine((mapping, ctx) => {
  // A settlement's fields are payment body fields, and none of them comes from a secret: a claim keeps them.
  if (mapping.settle === undefined) return;
  const sources = new Map(mapping.payment.fields.map((f) => [f.to, f.from]));
  const { filters, match, shown } = mapping.settle;
  for (const [where, fields] of [['filters', filters], ['match', match], ['shown', shown]] as const) {
    for (const [key, bodyField] of Object.entries(fields)) {
      const source = sources.get(bodyField);
      if (source === undefined) ctx.addIssue({ code: 'custom', path: ['settle', where, key], message: `${bodyField} is not a field of the payment body` });
      else if (SECRET_LEGACY_FIELDS.has(source)) ctx.addIssue({ code: 'custom', path: ['settle', where, key], message: `${bodyField} holds a secret and is never kept` });
    }
  }
});

export type PaymentMapping = z.infer<typeof paymentMappingSchema>;
export type SettleMapping = NonNullable<PaymentMapping['settle']>;
