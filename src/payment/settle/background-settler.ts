// Settles unknown outcomes when no one repeats them: every few seconds it lists the claims whose outcome is
// unknown (any replica's; the claims store's listUnknown) and makes one settle attempt for each that is due,
// one claim after another; each attempt holds its claim's settle lease, so replicas running this at once
// never settle one claim twice. It tells what it saw (how many are unknown, the oldest's age) on each scan.
// Pure: the claims, the clock and the timers are ports.
import type { PaymentClaims } from '../claims/payment-claims.js';
import type { Clock, Timers } from '../claims/system-time.js';
import type { SettleAttempt, SettleTerms } from './settle-claim.js';

/** Claims looked at per scan at most (the oldest first). */
export const SCAN_LIMIT = 100;

export interface BackgroundSettlerOptions {
  claims: Pick<PaymentClaims, 'settle' | 'listUnknown'>;
  /** Between two scans. */
  everyMs: number;
  now: Clock;
  timers: Timers;
  /** The terms to settle with, for the API key a payment was sent with (undefined: none); undefined: the
   * mapping in service settles nothing. */
  termsFor(apiKey: string | undefined): SettleTerms | undefined;
  /** After each scan: the unknown claims found, and how long ago the oldest was sent (0: none). */
  onScan?(unknown: number, oldestAgeMs: number): void;
  /** A scan that failed (the store cannot be reached): tried again at the next. */
  onError?(err: unknown): void;
}

export interface BackgroundSettler {
  /** One scan now (the timers run them by themselves). */
  scan(): Promise<void>;
  /** No scan after this one; resolves once the running scan ends. */
  stop(): Promise<void>;
}

export function startBackgroundSettler(options: BackgroundSettlerOptions): BackgroundSettler {
  /** When each claim is worth another attempt (what its last attempt said). */
  const nextAt = new Map<string, number>();
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  let cancel: (() => void) | undefined;

  const scanOnce = async (): Promise<void> => {
    const unknown = await options.claims.listUnknown(SCAN_LIMIT);
    const now = options.now();
    const oldest = unknown[0]?.record.ticket?.sentAt;
    options.onScan?.(unknown.length, oldest === undefined ? 0 : Math.max(0, now - oldest));
    const listed = new Set(unknown.map((c) => c.id));
    for (const id of nextAt.keys()) if (!listed.has(id)) nextAt.delete(id);
    for (const { id } of unknown) {
      if (stopped) return;
      if ((nextAt.get(id) ?? 0) > options.now()) continue;
      let attempt: SettleAttempt;
      try {
        attempt = await options.claims.settle(id, options.termsFor);
      } catch (err) {
        options.onError?.(err);
        continue;
      }
      if (attempt.kind === 'unknown') nextAt.set(id, attempt.nextAt);
      else nextAt.delete(id);
    }
  };

  const scan = (): Promise<void> => {
    running = running.then(scanOnce).catch((err: unknown) => options.onError?.(err));
    return running;
  };

  const loop = (): void => {
    cancel = options.timers.after(options.everyMs, () => {
      void scan().finally(() => {
        if (!stopped) loop();
      });
    });
  };
  loop();

  return {
    scan,
    async stop() {
      stopped = true;
      cancel?.();
      await running;
    },
  };
}
