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
  };
}
