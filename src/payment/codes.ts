// The legacy payment codes: each one's name and number, in the legacy reference's numbering. What each
// code means is said once, beside it, in the legacy surface's description (PAYMENT_CODE_MEANINGS in
// src/legacy-surface/legacy-surface.ts), which the OpenAPI document prints. A leaf: it imports nothing, so the
// payment mapping's schema and the payment contract can both read it.

export const PAYMENT_CODES = {
  invalidFields: 0,
  missingFields: 1,
  clientExists: 2,
  passwordsDiffer: 3,
  usernameTaken: 4,
  clientNotCreated: 5,
  clientNotFound: 6,
  discountInvalid: 7,
  paymentFailed: 8,
  packageRefused: 9,
  serviceNotFound: 10,
  cardDeclined: 11,
  /** The only success. */
  paymentAdded: 12,
} as const;

export type PaymentCodeName = keyof typeof PAYMENT_CODES;

export type PaymentCode = (typeof PAYMENT_CODES)[PaymentCodeName];

/** Every legacy code, ascending. */
export const ALL_PAYMENT_CODES: readonly PaymentCode[] = Object.values(PAYMENT_CODES).sort((a, b) => a - b);

export const isPaymentCode = (n: number): n is PaymentCode => (ALL_PAYMENT_CODES as readonly number[]).includes(n);
