import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signNotice, verifyNotice } from '../../../../src/gateway/notices/notice-signature.js';

const SECRET = 'a-secret-of-at-least-thirty-two-characters';
const BODY = '{"id":"abc","type":"quiet"}';
const AT = Date.UTC(2026, 11, 2, 9, 0, 0, 750);

describe('notice signature', () => {
  it('is t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">, as a Stripe receiver checks it', () => {
    const header = signNotice(SECRET, BODY, AT);
    const t = Math.floor(AT / 1000);
    expect(header).toBe(`t=${t},v1=${createHmac('sha256', SECRET).update(`${t}.${BODY}`).digest('hex')}`);
  });

  it('verifies under the same secret and body within the tolerance', () => {
    const header = signNotice(SECRET, BODY, AT);
    expect(verifyNotice(SECRET, BODY, header, AT + 299_000)).toBe(true);
  });

  it('refuses another secret, another body, a stale or missing or malformed header', () => {
    const header = signNotice(SECRET, BODY, AT);
    expect(verifyNotice(`${SECRET}x`, BODY, header, AT)).toBe(false);
    expect(verifyNotice(SECRET, `${BODY} `, header, AT)).toBe(false);
    expect(verifyNotice(SECRET, BODY, header, AT + 301_000)).toBe(false);
    expect(verifyNotice(SECRET, BODY, undefined, AT)).toBe(false);
    expect(verifyNotice(SECRET, BODY, 't=abc,v1=00', AT)).toBe(false);
  });
});
