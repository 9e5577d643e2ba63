// POST /api/payment as OpenAPI: the form fields (from payment.yaml's body field lists and the payment
// contract's local rules), the three body encodings, the body limit, the Idempotency-Key header, and the
// reply {"status","code","response"} with every HTTP status the route answers. Pure; it restates the legacy
// surface (legacy-surface.ts: the path, the body limit, the codes and what each means), the payment
// contract (src/payment/contract.ts) and the mapping, never a rule of its own.
import {
  FORMATS,
  IDEMPOTENCY_KEY_FORMAT,
  NEW_CLIENT_DATE_FIELDS,
  PAYMENT_CODES,
  REQUIRED_ALWAYS,
  REQUIRED_FOR_NEW_CLIENT,
  SEND_EMAIL_VALUES,
  WHOLE_NUMBER_FIELDS,
  bodyTooLargeReply,
  idempotencyKeyReusedReply,
  malformedIdempotencyKeyReply,
  unsupportedBodyReply,
  type LegacyPaymentReply,
} from '../../payment/contract.js';
import { fillMessage } from '../../payment/message-template.js';
import type { PaymentMapping } from '../../payment/payment-mapping.js';
import type { LegacySurface, PaymentCodeEntry, PaymentRoute } from '../legacy-surface.js';
import { paymentFormFields, type PaymentFormField } from './payment-fields.js';
import { FAILURE_SCHEMA, KEY_ORDER_NOTE, headerRef, jsonContent } from './replies.js';
import { ACCEPTED_PATHS, orderedObject, schemaRef, type JsonObject, type SchemaObject, type SchemaRegistry } from './types.js';

/** The legacy surface of a gateway with its payment route. */
export type PaymentSurface = LegacySurface & { payment: PaymentRoute };

const optionalPattern = (pattern: RegExp): string => `^$|${pattern.source}`;

/** The codes, ascending, each with what it means. */
function codeTable(codes: readonly PaymentCodeEntry[]): string {
  return codes.map(({ code, meaning }) => `- ${code}: ${meaning}`).join('\n');
}

function paymentReplySchema(codes: readonly PaymentCodeEntry[]): SchemaObject {
  const [lowest, highest] = [Math.min(...codes.map((c) => c.code)), Math.max(...codes.map((c) => c.code))];
  const schema = orderedObject(`The legacy payment reply: {"status","code","response"}. ${KEY_ORDER_NOTE}`, [
    ['status', { type: 'string', enum: ['success', 'failure'], description: '"success" for code 12 only.' }],
    ['code', { type: 'integer', minimum: lowest, maximum: highest, description: `The legacy code, a JSON integer:\n\n${codeTable(codes)}` }],
    ['response', { type: 'string', description: 'The message; never a card token, a password or an API key.' }],
  ]);
  const success = PAYMENT_CODES.paymentAdded;
  schema.if = { properties: { code: { const: success } }, required: ['code'] };
  schema.then = { properties: { status: { const: 'success' } } };
  schema.else = { properties: { status: { const: 'failure' } } };
  return schema;
}

/** The reply schema narrowed to one code (and, for the route's own replies, its exact text). */
function replyWith(replyRef: SchemaObject, code: number, message?: string): SchemaObject {
  const properties: JsonObject = { code: { const: code } };
  if (message !== undefined) properties.response = { const: message };
  return { allOf: [replyRef, { properties }] };
}

const bodyOf = (r: LegacyPaymentReply): JsonObject => ({ ...r.body });

function fieldSchema(field: PaymentFormField): SchemaObject {
  const schema: SchemaObject = { type: 'string', description: field.description };
  if (field.name === 'revenue_amount') {
    schema.pattern = FORMATS.plainDecimal.source;
    schema.not = { pattern: '^[0.]+$' };
  } else if (field.name === 'send_email') {
    schema.enum = [...SEND_EMAIL_VALUES];
  } else if (WHOLE_NUMBER_FIELDS.includes(field.name)) {
    schema.pattern = optionalPattern(FORMATS.wholeNumber);
  }
  return schema;
}

/** The rules that hold only when a new client is created (no `client_id`). */
function newClientRules(mapping: PaymentMapping, fields: readonly PaymentFormField[]): SchemaObject {
  const properties: JsonObject = Object.fromEntries(REQUIRED_FOR_NEW_CLIENT.map((n) => [n, { minLength: 1 }]));
  properties.status = { enum: [...mapping.clientStatuses] };
  // `format: date` (RFC 3339 full-date) is a real calendar date: what the contract checks beyond the pattern.
  const date = { pattern: FORMATS.calendarDate.source, format: 'date' };
  for (const name of NEW_CLIENT_DATE_FIELDS) properties[name] = { anyOf: [{ const: '' }, date], description: 'YYYY-MM-DD, a real calendar date.' };
  for (const f of fields) if (f.availability) properties[f.name] = { pattern: optionalPattern(FORMATS.hourMinute) };
  return { description: 'A new client is created: its fields are required and checked.', required: [...REQUIRED_FOR_NEW_CLIENT], properties };
}

function formSchema(mapping: PaymentMapping, fields: readonly PaymentFormField[]): SchemaObject {
  return {
    type: 'object',
    description:
      'The legacy payment form: every value is text. Unknown fields are ignored and never forwarded. ' +
      `Either \`client_id\` (an existing client) or the new client's ${REQUIRED_FOR_NEW_CLIENT.map((n) => `\`${n}\``).join(', ')}; ` +
      'a missing or empty required field answers code 1, a malformed value code 0.',
    properties: Object.fromEntries(fields.map((f) => [f.name, fieldSchema(f)])),
    required: [...REQUIRED_ALWAYS],
    anyOf: [
      { description: 'A payment for an existing client.', required: ['client_id'], properties: { client_id: { minLength: 1 } } },
      newClientRules(mapping, fields),
    ],
  };
}

const SCALAR: SchemaObject = { type: ['string', 'number', 'boolean', 'null'] };

function jsonBodySchema(fields: readonly PaymentFormField[]): SchemaObject {
  return {
    type: 'object',
    description:
      'The same fields as a JSON object. A number is read as its text, a boolean as "1"/"0", null as empty; ' +
      'an object or an array answers code 0. The form\'s rules then apply.',
    properties: Object.fromEntries(fields.map((f) => [f.name, { ...SCALAR, description: f.description }])),
    required: [...REQUIRED_ALWAYS],
    additionalProperties: SCALAR,
  };
}

function requestBody(mapping: PaymentMapping, route: PaymentRoute, registry: SchemaRegistry): JsonObject {
  const limit = route.bodyLimitBytes;
  const fields = paymentFormFields(mapping);
  const form = schemaRef(registry, 'payment.form', formSchema(mapping, fields));
  const json = schemaRef(registry, 'payment.json', jsonBodySchema(fields));
  return {
    required: true,
    description:
      `application/x-www-form-urlencoded (what old integrations send), multipart/form-data (fields only: a file part answers code 0) or JSON. ` +
      `At most ${limit} bytes (${limit / 1024} KB): a larger body answers 413 before anything reaches v1.`,
    content: {
      'application/x-www-form-urlencoded': { schema: form },
      'multipart/form-data': { schema: form },
      'application/json': { schema: json },
    },
  };
}

function paymentResponses(mapping: PaymentMapping, surface: PaymentSurface, registry: SchemaRegistry): Record<string, JsonObject> {
  const replyRef = schemaRef(registry, 'payment.reply', paymentReplySchema(surface.paymentCodes));
  // A fault while creating the new client is code 5 (no payment was tried); at any other step code 8.
  const faultCodes: SchemaObject = { allOf: [replyRef, { properties: { code: { enum: [PAYMENT_CODES.clientNotCreated, PAYMENT_CODES.paymentFailed] } } }] };
  const fault = (description: string, headers?: JsonObject): JsonObject => ({ description, ...(headers ? { headers } : {}), content: jsonContent(faultCodes) });
  const own = (description: string, r: LegacyPaymentReply): JsonObject => ({
    description,
    content: jsonContent(replyWith(replyRef, r.body.code, r.body.response), bodyOf(r)),
  });
  const created = fillMessage(mapping.messages.created, { payment_id: 1001 });
  return {
    '200': {
      description: 'Every outcome of the payment flow, codes 0 to 12 (see `code`), a refusal by v1 included.',
      headers: { 'Idempotent-Replayed': headerRef('Idempotent-Replayed') },
      content: jsonContent(replyRef, { status: 'success', code: PAYMENT_CODES.paymentAdded, response: created }),
    },
    '400': {
      description: 'A malformed Idempotency-Key (code 0); or a malformed API key or request target, answered in the legacy failure shape.',
      content: jsonContent({ oneOf: [replyWith(replyRef, PAYMENT_CODES.invalidFields, malformedIdempotencyKeyReply(mapping).body.response), { $ref: `#/components/schemas/${FAILURE_SCHEMA}` }] }),
    },
    '401': fault('v1 refused the API key (code 5 while creating the new client, else 8).'),
    '403': fault('v1 does not let the API key do this (code 5 while creating the new client, else 8).'),
    '409': own('The Idempotency-Key was already used (with the same API key) for a payment with other fields (code 0).', idempotencyKeyReusedReply(mapping)),
    '413': own(`The body is over ${surface.payment.bodyLimitBytes} bytes (code 0); nothing reached v1.`, bodyTooLargeReply(mapping)),
    '415': own('The body is not urlencoded, multipart or JSON (code 0).', unsupportedBodyReply(mapping)),
    '429': fault('v1\'s rate limit (code 5 while creating the new client, else 8), with its Retry-After.', { 'Retry-After': headerRef('Retry-After') }),
    '500': fault('v1\'s 500 (code 5 while creating the new client: it may exist, look it up; else code 8: check the payments list before retrying), or a fault inside the gateway (code 8).'),
    '502': fault(
      'v1 could not be reached or answered something unreadable (code 5 while creating the new client, else 8); or the first call with this Idempotency-Key stopped before it answered (code 8): its outcome is unknown, check the payments list before paying again with a new key.',
    ),
    '503': fault(
      'v1\'s 503 (code 5 while creating the new client, else 8), or the Idempotency-Key store cannot take the key (code 8: it is full or cannot be reached, or the first call with the key has not answered yet), answered before any v1 call: retry later with the same key. No payment was made when the message says so.',
    ),
    '504': fault('v1 did not answer in time (code 5 while creating the new client, else 8): the outcome is unknown, the message says what to check before retrying.'),
    '5XX': fault('Any other v1 fault (code 5 while creating the new client, else 8), with v1\'s status.'),
  };
}

function paymentDescription(mapping: PaymentMapping): string {
  return [
    'Creates a payment, optionally creating the client first. Each step stops at its code: the local checks (1, 0, 3, no v1 call), the client (6), the service (10), the discount (7), the time zone, the new client (2, 4, 5, 0), then the payment itself (9, 11, 8, 12).',
    `\`timezone\` is checked against v1's time zones; empty or unknown becomes \`${mapping.timezone.fallback}\`.`,
    'The payment POST is made at most once per call and never retried. With an Idempotency-Key, a repeat (same API key, same key, for 24 hours, on any replica) returns the stored reply without any v1 call (header Idempotent-Replayed: true); a repeat while the first is in flight waits for its reply; the same key with other fields answers 409. A key the store cannot take answers 503 (code 8) before any v1 call; a first call that stopped before it answered leaves its key answering 502 (code 8, outcome unknown), never a second payment. The checks made without v1 (codes 1, 0, 3) take no key.',
    '`token`, `password`, `password2` and the API key never appear in a log line, a message or a stored reply. A trailing slash (`/api/payment/`) is accepted.',
  ].join('\n\n');
}

export function paymentPathItem(mapping: PaymentMapping, surface: PaymentSurface, registry: SchemaRegistry): JsonObject {
  return {
    [ACCEPTED_PATHS]: [surface.payment.path],
    post: {
      operationId: 'legacy_payment',
      tags: ['legacy payment'],
      summary: mapping.description,
      description: paymentDescription(mapping),
      parameters: [
        {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description: 'Makes a retry safe: a repeat with the same key (per API key) returns the stored reply instead of paying again.',
          schema: { type: 'string', pattern: IDEMPOTENCY_KEY_FORMAT.source },
        },
      ],
      requestBody: requestBody(mapping, surface.payment, registry),
      responses: paymentResponses(mapping, surface, registry),
    },
  };
}
