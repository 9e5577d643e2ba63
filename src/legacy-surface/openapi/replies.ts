// The legacy reply envelopes and the failure replies of the read methods, as OpenAPI schemas and responses.
// Pure; the shapes are the engine's (run.ts builds them) and the error registry's (shared/errors.ts), the
// limits the legacy surface's (legacy-surface.ts).
import { REQUEST_LIMITS } from '../legacy-surface.js';
import { orderedObject, type JsonObject, type SchemaObject } from './types.js';

export const JSON_MEDIA = 'application/json';

export const FAILURE_SCHEMA = 'legacy.failure';

export const KEY_ORDER_NOTE =
  'Keys are written in the order given by `x-key-order`; legacy integrations may read them by position, so the ' +
  'order is part of the contract (JSON Schema cannot enforce it).';

export const successStatus: SchemaObject = { type: 'string', const: 'success' };

export const failureSchema: SchemaObject = orderedObject(
  `The legacy failure reply: {"status":"failure","response":"<message>"}. ${KEY_ORDER_NOTE}`,
  [
    ['status', { type: 'string', const: 'failure' }],
    ['response', { type: 'string', description: 'What went wrong; never a secret, a stack trace or the upstream\'s address.' }],
  ],
);

/** `total`: the count of every record found, as text. */
const totalSchema: SchemaObject = { type: 'string', pattern: '^\\d+$', description: 'The count of all records found (not only this page), as text.' };

const timezoneSchema = (fallback: string): SchemaObject => ({
  type: 'string',
  description: `The time zone of the records' dates and times: the first record's time zone, else the gateway's ACCOUNT_TIMEZONE, else ${fallback}.`,
});

export interface EnvelopeParts {
  /** `total` before the records: a page of a list. */
  total: boolean;
  /** `timezone` before `response`, with the zone used when neither the record nor the gateway names one. */
  timezone: string | undefined;
  /** The records: an array schema or one record's schema. */
  response: SchemaObject;
  description: string;
}

/** {"status":"success"[,"total"][,"timezone"],"response":...}, in that order. */
export function successEnvelope(parts: EnvelopeParts): SchemaObject {
  const properties: Array<[string, SchemaObject]> = [['status', successStatus]];
  if (parts.total) properties.push(['total', totalSchema]);
  if (parts.timezone !== undefined) properties.push(['timezone', timezoneSchema(parts.timezone)]);
  properties.push(['response', parts.response]);
  return orderedObject(`${parts.description} ${KEY_ORDER_NOTE}`, properties);
}

export const jsonContent = (schema: SchemaObject, example?: JsonObject): JsonObject => ({
  [JSON_MEDIA]: example === undefined ? { schema } : { schema, example },
});

const failureRef: SchemaObject = { $ref: `#/components/schemas/${FAILURE_SCHEMA}` };

/** A legacy failure reply with this description (and the gateway's own message, when it is known). */
export function failureResponse(description: string, message?: string, headers?: JsonObject): JsonObject {
  const response: JsonObject = {
    description,
    content: jsonContent(failureRef, message === undefined ? undefined : { status: 'failure', response: message }),
  };
  if (headers) response.headers = headers;
  return response;
}

export const headerRef = (name: string): JsonObject => ({ $ref: `#/components/headers/${name}` });

/** Reply headers the gateway may send, described once. */
export const REPLY_HEADERS: Record<string, JsonObject> = {
  'X-Request-Id': {
    description: 'The request id: the caller\'s X-Request-Id echoed, or one the gateway made; it is also in the log line.',
    schema: { type: 'string' },
  },
  'Retry-After': {
    description: 'Kept from v1\'s 429: when to try again.',
    schema: { type: 'string' },
  },
  Warning: {
    description: 'Set to `110 - "Response is Stale"` when v1 failed and a reply cached within the last hour was served instead.',
    schema: { type: 'string' },
  },
  'Idempotent-Replayed': {
    description: '`true` when the reply is the stored reply of an earlier payment with the same Idempotency-Key: no payment was made.',
    schema: { type: 'string', const: 'true' },
  },
};

/** The failure replies every read method shares, described once (`components.responses`). */
export const SHARED_FAILURES = {
  'v1.401': failureResponse('v1 refused the API key: v1\'s status and message.'),
  'v1.403': failureResponse('v1 does not let the API key read this resource (scope or account): v1\'s status and message.'),
  'v1.429': failureResponse('v1\'s rate limit: v1\'s status and message, with its Retry-After.', undefined, { 'Retry-After': headerRef('Retry-After') }),
  'v1.500': failureResponse('v1\'s 500 (its message), or an unexpected fault in the gateway (the message carries the request id).'),
  'v1.502': failureResponse('v1 could not be reached, or answered something that is not the documented JSON.'),
  'v1.503': failureResponse('v1\'s 503 (its message), or the gateway is shutting down.'),
  'v1.504': failureResponse('v1 did not answer within UPSTREAM_TIMEOUT_MS.'),
  'v1.other': failureResponse(
    `Any other error v1 answers (405, 409, ...): v1's status and message are kept. A request body over ${REQUEST_LIMITS.gatewayBodyBytes / 1024} KB answers 413.`,
  ),
  'gateway.500': failureResponse('An unexpected fault in the gateway; the message carries the request id.'),
  'gateway.503': failureResponse('The gateway is shutting down.'),
} satisfies Record<string, JsonObject>;

const shared = (name: keyof typeof SHARED_FAILURES): JsonObject => ({ $ref: `#/components/responses/${name}` });

/** The statuses the gateway answers for v1's faults, on every method that calls v1. */
export function upstreamFaultResponses(): Record<string, JsonObject> {
  return {
    '401': shared('v1.401'),
    '403': shared('v1.403'),
    '429': shared('v1.429'),
    '500': shared('v1.500'),
    '502': shared('v1.502'),
    '503': shared('v1.503'),
    '504': shared('v1.504'),
    default: shared('v1.other'),
  };
}

/** Reads without a v1 call (an operator file): only the gateway's own faults. */
export function gatewayFaultResponses(): Record<string, JsonObject> {
  return { '500': shared('gateway.500'), '503': shared('gateway.503') };
}
