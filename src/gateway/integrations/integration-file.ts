// Reads INTEGRATIONS_FILE: YAML, validated (integration-schema.ts) as every such file is
// (loaders/yaml-setting-file.ts). At start a bad file stops the gateway; on SIGHUP (reload/mapping-reload.ts) a
// bad file is refused with the file, the integration and the field, and the directory in service stays. A
// message never quotes a fingerprint field's content: it may be a key pasted by mistake.
import { loadYamlSettingFile, settingFileReload } from '../loaders/yaml-setting-file.js';
import type { ReloadableSet } from '../reload/mapping-reload.js';
import type { Integration, IntegrationDirectory } from './integration-directory.js';
import { integrationsFileSchema } from './integration-schema.js';

export const INTEGRATIONS_SETTING = 'INTEGRATIONS_FILE';

export interface LoadedIntegrations {
  integrations: Integration[];
  /** A short SHA-256 of the file, logged at each reload. */
  digest: string;
}

/** Where a problem is: `integrations.2 ("crm-sync"): fingerprints.0`, or the file's top level. */
function placeOf(path: readonly PropertyKey[], data: unknown): string {
  const [list, at, ...field] = path;
  if (list !== 'integrations' || typeof at !== 'number') return path.map(String).join('.') || 'top level';
  const entries = (data as { integrations?: unknown } | null)?.integrations;
  const name = Array.isArray(entries) ? (entries[at] as { name?: unknown } | null)?.name : undefined;
  const entry = `integrations.${at}${typeof name === 'string' && /^[\w.-]{1,64}$/.test(name) ? ` ("${name}")` : ''}`;
  return field.length === 0 ? entry : `${entry}: ${field.map(String).join('.')}`;
}

/** Reads and validates the file; throws StaticFileError naming the file, the integration, the field and why. */
export function loadIntegrations(file: string): LoadedIntegrations {
  const { data, digest } = loadYamlSettingFile(INTEGRATIONS_SETTING, file, integrationsFileSchema, placeOf);
  const integrations = data.integrations.map((i) => ({ name: i.name, owner: i.owner, notify: i.notify, fingerprints: i.fingerprints }));
  return { integrations, digest };
}

/** INTEGRATIONS_FILE's reload, run on SIGHUP with the other sets. */
export function integrationsReload(file: string, directory: IntegrationDirectory): ReloadableSet {
  return settingFileReload(INTEGRATIONS_SETTING, () => loadIntegrations(file), (loaded) => directory.replace(loaded.integrations));
}
