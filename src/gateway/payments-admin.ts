// The payments whose outcome is unknown, for an operator (GET /payments/unknown and POST /payments/settle on
// the metrics listener; `legacy-gateway payments unknown | settle`): each claim's time, amount, client and
// caller (the API key's fingerprint, as GET /usage names it, and its integration), never an
// Idempotency-Key, an API key or a card token; and an operator's decision written to a claim, logged at warn.
import type { Logger } from 'pino';
import type { PaymentClaims } from '../payment/claims/payment-claims.js';
import type { Clock } from '../payment/claims/system-time.js';
import type { PaymentMapping } from '../payment/payment-mapping.js';
import { settleTerms } from '../payment/run-claimed-payment.js';
import type { OperatorDecision, OperatorResult } from '../payment/settle/settle-claim.js';

/** One claim whose outcome is unknown, as an operator sees it. */
export interface UnknownPaymentRow {
  /** The claim's id in the store (an HMAC): what `payments settle` names. */
  claim: string;
  /** When its POST was sent (ISO 8601). */
  sent: string;
  ageSeconds: number;
  amount: string;
  client: string;
  /** The API key's fingerprint (GET /usage's), and its integration's name when INTEGRATIONS_FILE gives one. */
  caller: string;
  integration: string | null;
  /** `answered`: its first call was answered code 8, outcome unknown; `stopped`: its replica stopped after sending. */
  state: 'answered' | 'stopped';
}

/** How many claims a listing shows at most (the oldest first). */
export const UNKNOWN_LISTING_LIMIT = 500;

/**
 * A claim as the operator sees and names it: its store id (a base64url digest) in hex, which never begins
 * with "-" (a command line would read it as an option) and reads the same in every font.
 */
export const SHOWN_CLAIM = /^[0-9a-f]{64}$/;
const shownClaim = (id: string): string => Buffer.from(id, 'base64url').toString('hex');
const claimId = (shown: string): string => Buffer.from(shown, 'hex').toString('base64url');

export interface PaymentsAdmin {
  unknown(): Promise<UnknownPaymentRow[]>;
  /** `off`: the mapping in service settles nothing (no `settle` in mappings/payment.yaml). */
  settle(claim: string, decision: OperatorDecision): Promise<OperatorResult | 'off'>;
}

export interface PaymentsAdminDeps {
  claims: Pick<PaymentClaims, 'listUnknown' | 'apiKeyOf' | 'settleByHand'>;
  payment(): PaymentMapping;
  fingerprintOf(apiKey: string | undefined): string;
  integrationOf?(fingerprint: string): string | undefined;
  logger: Logger;
  now: Clock;
}

export function paymentsAdmin(deps: PaymentsAdminDeps): PaymentsAdmin {
  return {
    async unknown() {
      const now = deps.now();
      return (await deps.claims.listUnknown(UNKNOWN_LISTING_LIMIT)).map(({ id, record }) => {
        const ticket = record.ticket!;
        const caller = deps.fingerprintOf(deps.claims.apiKeyOf(record));
        return {
          claim: shownClaim(id),
          sent: new Date(ticket.sentAt).toISOString(),
          ageSeconds: Math.max(0, Math.round((now - ticket.sentAt) / 1000)),
          amount: ticket.amount,
          client: ticket.client,
          caller,
          integration: deps.integrationOf?.(caller) ?? null,
          state: record.phase === 'answered' ? 'answered' : 'stopped',
        };
      });
    },
    async settle(claim, decision) {
      const terms = settleTerms(deps.payment(), () => Promise.reject(new Error('not read')));
      if (terms === undefined) return 'off';
      const result = SHOWN_CLAIM.test(claim) ? await settleWhenFree(() => deps.claims.settleByHand(claimId(claim), decision, terms)) : 'not-unknown';
      const details = { claim, settled: decision.kind === 'paid' ? 'paid' : 'not_paid', ...(decision.kind === 'paid' ? { paymentId: decision.paymentId } : {}), result };
      deps.logger.warn(details, result === 'settled' ? 'a payment whose outcome was unknown was settled by an operator' : 'an operator\'s settlement of a payment was refused');
      return result;
    },
  };
}

// A settle attempt holds a claim for one read of v1's payments list: an operator's decision arriving
// meanwhile waits for it to end (the claim may still be unknown after it) instead of being sent away, and
// is refused as busy only when the claim stays held this long.
const BUSY_WAIT_MS = 10_000;
const BUSY_POLL_MS = 200;

async function settleWhenFree(attempt: () => Promise<OperatorResult>): Promise<OperatorResult> {
  const giveUpAt = Date.now() + BUSY_WAIT_MS;
  for (;;) {
    const result = await attempt();
    if (result !== 'busy' || Date.now() >= giveUpAt) return result;
    await new Promise((resolve) => setTimeout(resolve, BUSY_POLL_MS));
  }
}
