// Starts a gateway: loads mappings, picks the upstream (UPSTREAM_URL or the embedded sandbox), listens.
// Placeholder signature; the implementation lands with the gateway core.
import type { GatewayConfig } from '../config.js';

export interface RunningGateway {
  /** e.g. http://127.0.0.1:54321 */
  url: string;
  port: number;
  /** Base URL of the v1 upstream in use (the embedded sandbox's when UPSTREAM_URL is unset). */
  upstreamUrl: string;
  close(): Promise<void>;
}

export async function startGateway(_options: { config: GatewayConfig }): Promise<RunningGateway> {
  throw new Error('not implemented yet');
}
