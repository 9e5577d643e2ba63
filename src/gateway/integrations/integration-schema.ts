// The integrations file (INTEGRATIONS_FILE), as an operator writes it, validated with zod: who each
// integration is (a name, its owner, optionally where its notices go) and the fingerprints of its API keys,
// as `legacy-gateway usage --fingerprint-of` prints them. Never a key in clear: a fingerprint is 64 hex
// digits, and a message about a bad one never repeats what was written (it may be a key pasted by mistake).
// A name or a fingerprint given twice is an error: a fingerprint belongs to one integration at most.
import { z } from 'zod';

/** An integration's name: a brownout's scope, a guide's file name (`<name>.html`), a log field. */
const integrationName = z.string({ error: 'must be a name' }).regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'must be 1 to 64 letters, digits, dots, dashes or underscores');

const owner = z.string({ error: 'must be text (who owns the integration, e.g. CRM team <crm@example.com>)' }).trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters');

const notifyUrl = z.string({ error: 'must be an http:// or https:// URL' }).refine((v) => {
  if (!URL.canParse(v)) return false;
  const u = new URL(v);
  return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
}, 'must be an http:// or https:// URL');

/** Lower case, as the fingerprints are printed and counted. */
const fingerprint = z
  .string({ error: 'must be a key fingerprint (64 hex digits, as `legacy-gateway usage --fingerprint-of` prints it), never the key itself' })
  .regex(/^[0-9a-fA-F]{64}$/, 'must be a key fingerprint (64 hex digits, as `legacy-gateway usage --fingerprint-of` prints it), never the key itself')
  .transform((v) => v.toLowerCase());

const integrationEntry = z.strictObject({
  name: integrationName,
  owner,
  notify: notifyUrl.optional(),
  fingerprints: z.array(fingerprint, { error: 'must be a list of key fingerprints' }).min(1, 'must list at least one key fingerprint'),
});

export const integrationsFileSchema = z
  .strictObject({ integrations: z.array(integrationEntry, { error: 'must be a list of integrations' }) }, { error: 'must be a mapping with `integrations:`' })
  .superRefine((file, ctx) => {
    const names = new Set<string>();
    const owners = new Map<string, string>();
    file.integrations.forEach((entry, i) => {
      if (names.has(entry.name)) ctx.addIssue({ code: 'custom', path: ['integrations', i, 'name'], message: `"${entry.name}" names two integrations` });
      names.add(entry.name);
      entry.fingerprints.forEach((fp, j) => {
        const holder = owners.get(fp);
        if (holder === undefined) owners.set(fp, entry.name);
        else {
          const where = holder === entry.name ? 'listed twice in this integration' : `also listed under integration "${holder}"`;
          ctx.addIssue({ code: 'custom', path: ['integrations', i, 'fingerprints', j], message: `${where}: a fingerprint belongs to one integration` });
        }
      });
    });
  });

export type IntegrationsFile = z.output<typeof integrationsFileSchema>;
