// The sandbox's two API keys and what each may reach (v1's API reference, Authentication rule 3).
// Demo values, public by design; the key a request carries must never be stored, logged or echoed.

export const SANDBOX_KEYS: Readonly<{ primary: string; secondary: string }> = Object.freeze({
  primary: 'sandbox-primary-key',
  secondary: 'sandbox-secondary-key',
});

export type KeyRole = 'primary' | 'secondary';

/** Resources the secondary key was "created with"; every other resource answers 403 resource_not_allowed. */
export const SECONDARY_KEY_RESOURCES: ReadonlySet<string> = new Set(['clients', 'services', 'timezones']);

/** Which key a header value is, or undefined for a missing or unknown key. */
export function keyRole(headerValue: string | undefined): KeyRole | undefined {
  if (headerValue === SANDBOX_KEYS.primary) return 'primary';
  if (headerValue === SANDBOX_KEYS.secondary) return 'secondary';
  return undefined;
}

export function keyMayUse(role: KeyRole, resource: string): boolean {
  return role === 'primary' || SECONDARY_KEY_RESOURCES.has(resource);
}
