// `legacy-gateway sandbox`: the embedded v1 sandbox alone, on its own port, until SIGTERM/SIGINT.
import { SANDBOX_KEYS, startSandbox } from '../sandbox/index.js';

export async function runSandbox(opts: { port: number; host: string; rateLimit: number }): Promise<void> {
  const sandbox = await startSandbox({ port: opts.port, host: opts.host, rateLimitPerHour: opts.rateLimit });
  process.stdout.write(
    `v1 sandbox (demo data) listening on ${sandbox.url}/api/v1\n` +
      `  primary key:   ${SANDBOX_KEYS.primary}\n` +
      `  secondary key: ${SANDBOX_KEYS.secondary} (clients, services, timezones only)\n`,
  );
  const stop = () => void sandbox.close();
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
