// What a call reads and writes of v1, told by the mappings and never by a table of methods here: a read
// mapping reads its v1 source's resource; the payment writes the payment mapping's payments resource, and
// its clients resource when the call names no client_id (it creates the client first); an
// `/api/v1/{resource}/...` call reads or writes `{resource}`. One rule for the gateway (a write stops the
// cached copies of what it changed from being served to its API key) and the replay (a read after a
// replayed write of what it reads is marked as the replay's doing), so the two can never disagree. Pure.
import { CLIENT_ID_FIELD } from '../payment/contract.js';
import type { PaymentMapping } from '../payment/payment-mapping.js';
import { parseLegacyPath } from '../shared/request-target.js';
import type { Mapping } from '../mapping/schema.js';

/** GET, HEAD and OPTIONS read; every other method, known or not, is a write. */
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** `/api/v1/...`: v1 itself, reached through the passthrough. */
const V1_METHOD = 'v1';

export function isWriteMethod(method: string): boolean {
  return !READ_METHODS.has(method.toUpperCase());
}

/** The v1 resource a read mapping reads; undefined for one served without v1 (an operator's file). */
export function resourceRead(mapping: Mapping): string | undefined {
  return 'resource' in mapping.source ? mapping.source.resource : undefined;
}

/** The v1 resource an `/api/v1/{resource}/...` path names; undefined for any other path. */
export function v1ResourceOf(path: string): string | undefined {
  const legacy = parseLegacyPath(path);
  return legacy?.method === V1_METHOD && legacy.segments[0] ? legacy.segments[0] : undefined;
}

/** The v1 resources a payment changes, given how to read one of its body fields. */
export function paymentWrites(payment: PaymentMapping, field: (name: string) => unknown): string[] {
  const clientId = field(CLIENT_ID_FIELD);
  const newClient = clientId === undefined || clientId === null || clientId === '';
  return newClient ? [payment.resources.clients, payment.resources.payments] : [payment.resources.payments];
}

/** The v1 resources a call to v1 itself (`/api/v1/...`) changes: its resource for a write, else none. */
export function v1CallWrites(method: string, path: string): string[] {
  if (!isWriteMethod(method)) return [];
  const resource = v1ResourceOf(path);
  return resource === undefined ? [] : [resource];
}
