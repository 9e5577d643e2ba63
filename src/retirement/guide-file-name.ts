// The file name of an integration's migration guide: `migration-guide --all` writes it, the retirement page
// links to it, so the rule lives here once.

/**
 * An integration's name made safe for a file name, else the first 12 digits of its fingerprint; a name taken
 * already (in `taken`, which it adds to) gets the fingerprint's digits after it. Without the extension.
 */
export function guideFileBase(integration: { name?: string | undefined; fingerprint: string }, taken: Set<string>): string {
  const safe = integration.name !== undefined ? integration.name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[.-]+/, '') : '';
  let base = safe === '' ? integration.fingerprint.slice(0, 12) : safe;
  if (taken.has(base)) base = `${base}-${integration.fingerprint.slice(0, 12)}`;
  taken.add(base);
  return base;
}
