// Runs the sandbox on a real socket: listen, report the URL, and close for good. close() must end
// keep-alive sockets and held (tok_timeout) replies at once, so a test suite or CLI never hangs on exit.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildSandbox, type SandboxOptions } from './app.js';
import type { SandboxState } from './state.js';

export interface RunningSandbox {
  /** e.g. http://127.0.0.1:54321 (no trailing slash) */
  url: string;
  port: number;
  state: SandboxState;
  close(): Promise<void>;
}

/** A URL host for a listen address: wildcard addresses become loopback, IPv6 gets brackets. */
function urlHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

export async function startSandbox(
  options: SandboxOptions & { port?: number; host?: string } = {},
): Promise<RunningSandbox> {
  const { port = 0, host = '127.0.0.1', ...sandboxOptions } = options;
  const sandbox = buildSandbox(sandboxOptions);
  const server = createServer(sandbox.app);

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const actualPort = (server.address() as AddressInfo).port;
  const url = `http://${urlHost(host)}:${String(actualPort)}`;
  sandbox.setOrigin(url);

  let closing: Promise<void> | undefined;
  return {
    url,
    port: actualPort,
    state: sandbox.state,
    close() {
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Sockets first, so a held reply released below has nowhere to go.
        server.closeAllConnections();
        sandbox.shutdown();
      });
      return closing;
    },
  };
}
