// The HMACs the payment claims stores keep instead of what a caller sent: the (API key, Idempotency-Key)
// pair, the (API key, fields) of a keyless payment, the API key alone (for a per-caller bound), and the
// fingerprint of a payment's fields (token and password included). Under one secret, the same input gives the same digest, so replicas sharing the
// secret (GATEWAY_SECRET) find each other's keys; without the secret, a digest reveals nothing. Each kind
// of digest has its own label, so one can never stand for another.
import { createHmac } from 'node:crypto';

export interface IdempotencyDigest {
  /** The store's name for one (API key, Idempotency-Key). */
  keyId(apiKey: string | undefined, idempotencyKey: string): string;
  /** The store's name for one keyless payment: the API key and the payment's fields. */
  keylessId(apiKey: string | undefined, fields: Readonly<Record<string, string>>): string;
  /** The store's name for one caller. */
  callerId(apiKey: string | undefined): string;
  /** The fingerprint of a payment's fields, whatever their order. */
  fingerprint(fields: Readonly<Record<string, string>>): string;
  /** One field of a payment as a settlement matches it (settle/ledger-match.ts): the v1 field and its value. */
  ledgerValue(field: string, value: string): string;
  /** The store's name for a v1 payment id taken as a claim's answer by a settlement. */
  ledgerId(paymentId: number): string;
}

/** The fields in one spelling, whatever their order. */
const canonical = (fields: Readonly<Record<string, string>>): string => JSON.stringify(Object.entries(fields).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

export function idempotencyDigest(secret: string | Buffer): IdempotencyDigest {
  const hmac = (...parts: string[]): string => {
    const h = createHmac('sha256', secret);
    for (const p of parts) h.update(p).update('\u0000');
    return h.digest('base64url');
  };
  return {
    keyId: (apiKey, idempotencyKey) => hmac('key', apiKey ?? '', idempotencyKey),
    keylessId: (apiKey, fields) => hmac('keyless', apiKey ?? '', canonical(fields)),
    callerId: (apiKey) => hmac('caller', apiKey ?? ''),
    fingerprint: (fields) => hmac('fields', canonical(fields)),
    ledgerValue: (field, value) => hmac('ledger-value', field, value),
    ledgerId: (paymentId) => hmac('ledger-id', String(paymentId)),
  };
}
