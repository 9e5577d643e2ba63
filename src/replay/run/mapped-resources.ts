// The mappings the replay's target serves, for what each recorded call reads and writes (write-effects.ts):
// MAPPINGS_DIR, else the shipped mappings. The in-process gateway reads the same folder; a gateway given
// with --target is taken to serve it too (the replay cannot ask it).
// Reads and validates the folder once per run; a folder that cannot be used is a MappedResourcesError
// naming it (exit code 2), as the gateway itself would refuse to start on it.
import path from 'node:path';
import type { ReplayGateway } from './gateway-port.js';
import type { MappedResources } from './write-effects.js';

export class MappedResourcesError extends Error {
  override name = 'MappedResourcesError';
}

export async function readMappedResources(env: NodeJS.ProcessEnv, gateway: ReplayGateway): Promise<MappedResources> {
  const configured = env.MAPPINGS_DIR?.trim();
  const dir = configured ? path.resolve(configured) : gateway.shippedMappingsDir;
  try {
    return await gateway.loadMappings(dir);
  } catch (err) {
    throw new MappedResourcesError(`MAPPINGS_DIR ${dir}: ${(err as Error).message}`);
  }
}
