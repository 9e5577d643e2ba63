// The Idempotency-Key store: a repeated payment call with the same key (per API key, for 24 h) gets the
// stored reply without reaching v1 again; a repeat that arrives while the first is in flight waits for it.
// Keys and request fingerprints are kept only as HMACs under a per-process secret, never in clear,
// and a stored reply holds only the legacy reply, as the route sends it: scrubbed of the request's secrets
// (v1's text in it may have echoed the key, a token or a password).
import { createHmac, randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { LegacyPaymentReply } from '../../payment/outcome.js';

interface Entry {
  fingerprint: string;
  reply: Promise<LegacyPaymentReply>;
}

export type IdempotentResult =
  | { kind: 'fresh'; reply: LegacyPaymentReply }
  | { kind: 'replayed'; reply: LegacyPaymentReply }
  | { kind: 'mismatch' };

export class IdempotencyStore {
  private readonly secret = randomBytes(32);
  private readonly entries: LRUCache<string, Entry>;

  constructor(options: { ttlMs?: number; maxEntries?: number } = {}) {
    // Bounded by count through maxSize (each entry weighs 1) rather than `max`, which would allocate its
    // index arrays for every possible entry up front: about 4 MB held from start-up for 100,000 entries.
    this.entries = new LRUCache<string, Entry>({
      maxSize: options.maxEntries ?? 100_000,
      sizeCalculation: () => 1,
      ttl: options.ttlMs ?? 24 * 3600 * 1000,
    });
  }

  private hmac(...parts: string[]): string {
    const h = createHmac('sha256', this.secret);
    for (const p of parts) h.update(p).update('\u0000');
    return h.digest('base64url');
  }

  /** The fingerprint of a request's fields, so a reused key with another payment is caught. */
  fingerprint(fields: Readonly<Record<string, string>>): string {
    return this.hmac(JSON.stringify(Object.entries(fields).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));
  }

  /** Runs `pay` once per (API key, Idempotency-Key); every repeat gets the first call's reply. */
  async run(apiKey: string | undefined, idempotencyKey: string, fingerprint: string, pay: () => Promise<LegacyPaymentReply>): Promise<IdempotentResult> {
    const id = this.hmac(apiKey ?? '', idempotencyKey);
    const existing = this.entries.get(id);
    if (existing) {
      if (existing.fingerprint !== fingerprint) return { kind: 'mismatch' };
      return { kind: 'replayed', reply: await existing.reply };
    }
    // Stored before the first await, so a concurrent repeat finds it and waits for this reply.
    const reply = pay();
    this.entries.set(id, { fingerprint, reply });
    return { kind: 'fresh', reply: await reply };
  }
}
