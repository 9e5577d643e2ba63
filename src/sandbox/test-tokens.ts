// Card tokens with a fixed outcome on POST /api/v1/payments, for tests of the payment flow.
// Any other token (or none) succeeds. Demo values: the sandbox must never call a real processor.

export const SANDBOX_TEST_TOKENS = Object.freeze({
  declined: {
    token: 'tok_declined',
    description: 'The card is declined: 402 card_declined "the card was declined"; nothing is recorded.',
  },
  refused: {
    token: 'tok_refused',
    description:
      'The processor refuses the payment: 402 payment_refused "the payment was refused by the processor"; nothing is recorded.',
  },
  timeout: {
    token: 'tok_timeout',
    description:
      'The payment is recorded at once but the reply waits paymentHangMs (default 60 s) before 201: an outcome unknown to a caller that times out.',
  },
} as const);
