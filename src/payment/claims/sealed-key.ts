// The API key a claim's ticket keeps so that its payment can be settled without a caller (the background
// settler reads v1's list with the key that paid): sealed with AES-256-GCM under a key derived from the
// gateway's secret, so every replica sharing the secret can open it, and a store's copy reveals nothing.
// Never in clear in a store, a log line or a listing.
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

export interface KeySeal {
  seal(apiKey: string): string;
  /** The key, or undefined when the text was not sealed under this secret. */
  open(sealed: string): string | undefined;
}

export function keySeal(secret: string | Buffer): KeySeal {
  const key = createHmac('sha256', secret).update('legacy-gateway sealed api key').digest();
  return {
    seal(apiKey) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const text = Buffer.concat([cipher.update(apiKey, 'utf8'), cipher.final()]);
      return Buffer.concat([iv, cipher.getAuthTag(), text]).toString('base64url');
    },
    open(sealed) {
      try {
        const raw = Buffer.from(sealed, 'base64url');
        const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
        decipher.setAuthTag(raw.subarray(12, 28));
        return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
      } catch {
        return undefined;
      }
    },
  };
}
