// The integration directory: who each API key fingerprint belongs to (INTEGRATIONS_FILE), the one place the
// gateway asks. The usage report and the usage step name a caller by it, the brownout step scopes its
// windows by it, and the list (with each owner and where its notices go) is there for whoever must reach
// them. A reload swaps the whole directory in one assignment: a reader sees the old one or the new one.
// It holds fingerprints only, never a key.

/** One integration, as the directory holds it. */
export interface Integration {
  name: string;
  /** Free text: who to talk to about it. */
  owner: string;
  /** Where its notices go (http or https); undefined: none. */
  notify: string | undefined;
  /** Its API keys' fingerprints (lower-case hex, `legacy-gateway usage --fingerprint-of`). */
  fingerprints: readonly string[];
}

export interface IntegrationDirectory {
  /** The integration a key fingerprint belongs to; undefined: a key no integration names. */
  byFingerprint(fingerprint: string): Integration | undefined;
  /** Every integration, in the file's order. */
  list(): readonly Integration[];
  /** Takes a validated list over, whole (a reload). */
  replace(integrations: readonly Integration[]): void;
}

interface Served {
  list: readonly Integration[];
  byFingerprint: ReadonlyMap<string, Integration>;
}

function index(list: readonly Integration[]): Served {
  const byFingerprint = new Map<string, Integration>();
  for (const integration of list) for (const fp of integration.fingerprints) byFingerprint.set(fp, integration);
  return { list, byFingerprint };
}

/** A directory over a validated list (the file's loader checked that no fingerprint is listed twice). */
export function createIntegrationDirectory(initial: readonly Integration[] = []): IntegrationDirectory {
  let served = index(initial);
  return {
    byFingerprint: (fingerprint) => served.byFingerprint.get(fingerprint),
    list: () => served.list,
    replace(integrations) {
      served = index(integrations);
    },
  };
}
