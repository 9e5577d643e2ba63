// INTEGRATIONS_FILE's parser and the directory over it: a good file read whole (fingerprints in lower case,
// `notify` optional), and each bad file refused with one message naming the file, the integration and the
// field, never quoting what a fingerprint field held (it may be a key pasted by mistake).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIntegrationDirectory } from '../../../../src/gateway/integrations/integration-directory.js';
import { integrationsReload, loadIntegrations } from '../../../../src/gateway/integrations/integration-file.js';

const FP1 = 'a'.repeat(64);
const FP2 = `${'0123456789abcdef'.repeat(4)}`;
const FP3 = 'F'.repeat(64);

let dir: string;
let file: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'lgw-integrations-'));
  file = path.join(dir, 'integrations.yaml');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function load(yaml: string) {
  writeFileSync(file, yaml);
  return loadIntegrations(file);
}

/** The message a bad file is refused with. */
function refusal(yaml: string): string {
  try {
    load(yaml);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('the file was accepted');
}

const GOOD = `integrations:
  - name: crm-sync
    owner: CRM team <crm@example.com>
    notify: https://hooks.example.com/legacy
    fingerprints: ["${FP1}", "${FP3}"]
  - name: shop_widget.v2
    owner: Shop
    fingerprints:
      - ${FP2}
`;

describe('a good file', () => {
  it('gives every integration, in order, fingerprints in lower case, notify when given', () => {
    const loaded = load(GOOD);
    expect(loaded.integrations).toEqual([
      { name: 'crm-sync', owner: 'CRM team <crm@example.com>', notify: 'https://hooks.example.com/legacy', fingerprints: [FP1, 'f'.repeat(64)] },
      { name: 'shop_widget.v2', owner: 'Shop', notify: undefined, fingerprints: [FP2] },
    ]);
    expect(loaded.digest).toMatch(/^[0-9a-f]{12}$/);
    expect(load('integrations: []\n').integrations).toEqual([]);
  });

  it('is looked up by fingerprint, and a reload swaps the whole directory', async () => {
    const directory = createIntegrationDirectory(load(GOOD).integrations);
    expect(directory.byFingerprint(FP2)?.name).toBe('shop_widget.v2');
    expect(directory.byFingerprint('f'.repeat(64))?.owner).toBe('CRM team <crm@example.com>');
    expect(directory.byFingerprint('b'.repeat(64))).toBeUndefined();
    writeFileSync(file, `integrations:\n  - name: billing\n    owner: Billing\n    fingerprints: [${FP2}]\n`);
    const reload = integrationsReload(file, directory);
    expect(reload.name).toBe('INTEGRATIONS_FILE');
    await expect(reload.reload()).resolves.toEqual({ digest: expect.stringMatching(/^[0-9a-f]{12}$/) });
    expect(directory.byFingerprint(FP2)?.name).toBe('billing');
    expect(directory.byFingerprint(FP1)).toBeUndefined();
    expect(directory.list().map((i) => i.name)).toEqual(['billing']);
    // A bad file: the reload throws, and the directory in service stays.
    writeFileSync(file, 'integrations:\n  - name: billing\n');
    await expect(reload.reload()).rejects.toThrow(/INTEGRATIONS_FILE .*integrations\.0 \("billing"\): owner/);
    expect(directory.byFingerprint(FP2)?.name).toBe('billing');
  });
});

describe('a bad file, refused with the file, the integration and the field', () => {
  const entry = (fields: string) => `integrations:\n  - name: crm-sync\n    owner: CRM\n    fingerprints: ["${FP1}"]\n  - ${fields}\n`;
  const at = () => `INTEGRATIONS_FILE (${file}): `;

  it.each([
    ['not YAML', 'integrations: [\n', 'not a readable YAML file: '],
    ['no list', 'integrations: {}\n', 'integrations: must be a list of integrations'],
    ['another file', 'brownouts: []\n', 'integrations: must be a list of integrations'],
    ['a list at the top', '- name: crm-sync\n', 'top level: must be a mapping with `integrations:`'],
    ['a name with a space', entry(`name: crm sync\n    owner: CRM\n    fingerprints: ["${FP2}"]`), 'integrations.1: name: must be 1 to 64 letters, digits, dots, dashes or underscores'],
    ['no owner', entry(`name: shop\n    fingerprints: ["${FP2}"]`), 'integrations.1 ("shop"): owner: must be text'],
    ['an empty owner', entry(`name: shop\n    owner: "  "\n    fingerprints: ["${FP2}"]`), 'integrations.1 ("shop"): owner: must not be empty'],
    ['notify not http', entry(`name: shop\n    owner: Shop\n    notify: ftp://hooks.example.com/x\n    fingerprints: ["${FP2}"]`), 'integrations.1 ("shop"): notify: must be an http:// or https:// URL'],
    ['notify not a URL', entry(`name: shop\n    owner: Shop\n    notify: hooks.example.com\n    fingerprints: ["${FP2}"]`), 'integrations.1 ("shop"): notify: must be an http:// or https:// URL'],
    ['no fingerprints', entry('name: shop\n    owner: Shop\n    fingerprints: []'), 'integrations.1 ("shop"): fingerprints: must list at least one key fingerprint'],
    ['a fingerprint too short', entry(`name: shop\n    owner: Shop\n    fingerprints: ["${FP2.slice(1)}"]`), 'integrations.1 ("shop"): fingerprints.0: must be a key fingerprint (64 hex digits'],
    ['a fingerprint as a number', entry('name: shop\n    owner: Shop\n    fingerprints: [12345]'), 'integrations.1 ("shop"): fingerprints.0: must be a key fingerprint'],
    ['an unknown field', entry(`name: shop\n    owner: Shop\n    fingerprints: ["${FP2}"]\n    team: x`), 'integrations.1 ("shop"): '],
    ['a name twice', entry(`name: crm-sync\n    owner: Other\n    fingerprints: ["${FP2}"]`), 'integrations.1 ("crm-sync"): name: "crm-sync" names two integrations'],
    ['a fingerprint in two integrations', entry(`name: shop\n    owner: Shop\n    fingerprints: ["${FP2}", "${FP1.toUpperCase()}"]`), 'integrations.1 ("shop"): fingerprints.1: also listed under integration "crm-sync": a fingerprint belongs to one integration'],
    ['a fingerprint twice in one integration', entry(`name: shop\n    owner: Shop\n    fingerprints: ["${FP2}", "${FP2}"]`), 'integrations.1 ("shop"): fingerprints.1: listed twice in this integration'],
  ])('%s', (_what, yaml, expected) => {
    const message = refusal(yaml);
    expect(message.startsWith(at())).toBe(true);
    expect(message.slice(at().length)).toContain(expected);
  });

  it('never quotes a key written where a fingerprint belongs', () => {
    const key = 'sk_live_THIS-IS-AN-API-KEY-0123456789';
    const message = refusal(entry(`name: shop\n    owner: Shop\n    fingerprints: ["${key}"]`));
    expect(message).toContain('integrations.1 ("shop"): fingerprints.0: must be a key fingerprint');
    expect(message).not.toContain(key);
  });

  it('names a file that cannot be read', () => {
    expect(() => loadIntegrations(path.join(dir, 'missing.yaml'))).toThrow(`INTEGRATIONS_FILE (${path.join(dir, 'missing.yaml')}): not a readable YAML file: ENOENT`);
  });
});
