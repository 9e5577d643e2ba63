// `legacy-gateway sandbox`: the embedded v1 sandbox alone, on its own port, until SIGTERM/SIGINT.
// A listener that cannot be opened (the port in use, an address not on this machine) is one line on
// stderr and exit 1, as for `serve` (docs/cli.md: exit codes); bad option values never get here (exit 2).
import { SANDBOX_KEYS, startSandbox, type RunningSandbox } from '../sandbox/index.js';

/** Errors of listen() that say the address cannot be used, not that the code is wrong. */
const LISTEN_ERRORS: ReadonlySet<string> = new Set(['EADDRINUSE', 'EACCES', 'EADDRNOTAVAIL', 'ENOTFOUND', 'EAI_AGAIN']);

export async function runSandbox(opts: { port: number; host: string; rateLimit: number }): Promise<void> {
  let sandbox: RunningSandbox;
  try {
    sandbox = await startSandbox({ port: opts.port, host: opts.host, rateLimitPerHour: opts.rateLimit });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === undefined || !LISTEN_ERRORS.has(code)) throw err;
    process.stderr.write(`legacy-gateway sandbox: cannot listen on ${opts.host}:${String(opts.port)} (${code})\n`);
    process.exitCode = 1;
    return;
  }
  process.stdout.write(
    `v1 sandbox (demo data) listening on ${sandbox.url}/api/v1\n` +
      `  primary key:   ${SANDBOX_KEYS.primary}\n` +
      `  secondary key: ${SANDBOX_KEYS.secondary} (clients, services, timezones only)\n`,
  );
  const stop = () => void sandbox.close();
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
