// The signature a notice carries, so that its receiver can tell the gateway sent it and when: the header
// `Legacy-Gateway-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" under GATEWAY_SECRET>`,
// the scheme Stripe signs its webhooks with (a receiver's code for one reads the other). node:crypto makes
// it: the scheme is two lines, which no library would make shorter, and a dependency would be one more
// thing to trust with the secret. The secret itself never leaves this file's callers.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'Legacy-Gateway-Signature';

/** The header's value for `body`, signed at `atMs` (ms since the epoch; the header carries whole seconds). */
export function signNotice(secret: string, body: string, atMs: number): string {
  const t = Math.floor(atMs / 1000);
  const v1 = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
  return `t=${t},v1=${v1}`;
}

/** Whether `header` signs `body` under `secret`, signed no more than `toleranceS` seconds from `nowMs`: what a
 * receiver checks (docs/usage.md shows the same check in a few lines). */
export function verifyNotice(secret: string, body: string, header: string | undefined, nowMs: number, toleranceS = 300): boolean {
  if (header === undefined) return false;
  const parts = new Map(header.split(',').map((p) => [p.slice(0, p.indexOf('=')).trim(), p.slice(p.indexOf('=') + 1).trim()] as const));
  const t = Number(parts.get('t'));
  const v1 = parts.get('v1') ?? '';
  if (!Number.isInteger(t) || !/^[0-9a-f]{64}$/.test(v1)) return false;
  if (Math.abs(nowMs / 1000 - t) > toleranceS) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest();
  return timingSafeEqual(expected, Buffer.from(v1, 'hex'));
}
