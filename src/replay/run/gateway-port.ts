// What the replay takes from the gateway it replays against: the mappings as the gateway loads them, v1 read
// through the gateway's own client, and the gateway started in this process. The command composes them and
// hands them in (src/commands/replay-gateway.ts): the replay imports no file of src/gateway/ or src/sandbox/
// (the floors of eslint.config.js).
import type { ReplayCommandOptions } from './command-options.js';
import type { ReplayTarget } from './target.js';
import type { MappedResources } from './write-effects.js';

/** v1's GETs at one address; each resolves with the reply's JSON value. The key goes only into X-API-KEY. */
export interface V1Reads {
  getJson(path: string, query: Record<string, string>, apiKey: string | undefined): Promise<unknown>;
  close(): Promise<void>;
}

export interface ReplayGateway {
  /** The folder the gateway reads its mappings from when MAPPINGS_DIR is unset. */
  shippedMappingsDir: string;
  /** A mappings folder loaded and validated as the gateway loads it; throws naming what is wrong. */
  loadMappings(dir: string): Promise<MappedResources>;
  /** v1 at baseUrl (or a gateway's /api/v1 passthrough), with the gateway's URL rules and the given timeout. */
  v1Reads(baseUrl: string, timeoutMs: number): V1Reads;
  /** The gateway in this process, on a loopback port, in front of --upstream or an embedded sandbox. */
  startInProcess(options: ReplayCommandOptions, env: NodeJS.ProcessEnv): Promise<ReplayTarget>;
}
