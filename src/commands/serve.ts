// `legacy-gateway serve`: reads the environment, starts the gateway, and stops it on SIGTERM/SIGINT:
// the gateway drains (see src/gateway/lifecycle.ts), then the process exits; a second signal exits at once.
// SIGHUP reloads the mappings (src/gateway/reload/mapping-reload.ts): a valid set takes over, an invalid one
// is refused with one log line and the set in service stays; the process never exits on it.
// Start-up problems are printed plainly, one line each, without a stack trace: a bad setting, mapping or
// operator file exits 2 (an input error), a listener that cannot be opened (the port in use) exits 1.
import { ConfigError, loadConfig } from '../gateway/config.js';
import { StaticFileError } from '../gateway/loaders/static-records.js';
import { MappingSetError } from '../mapping/mapping-set.js';
import { createLogger } from '../gateway/logging.js';
import { startServing } from './serving.js';

/** Prints the problem after the command's name, and sets the exit code. */
function refuse(message: string, exitCode: 1 | 2): void {
  process.stderr.write(`legacy-gateway: ${message}\n`);
  process.exitCode = exitCode;
}

export async function runServe(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  let config;
  try {
    config = loadConfig(env);
  } catch (err) {
    // One line per bad setting, each naming the command.
    if (err instanceof ConfigError) return refuse(err.message.split('\n').join('\nlegacy-gateway: '), 2);
    throw err;
  }
  const logger = createLogger(config.logLevel);
  let gateway;
  try {
    gateway = await startServing({ config, logger });
  } catch (err) {
    if (err instanceof MappingSetError || err instanceof StaticFileError || err instanceof ConfigError) {
      return refuse(`cannot start: ${err.message}`, 2);
    }
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
      const port = (err as { port?: unknown }).port ?? config.port;
      return refuse(`cannot listen on ${config.host}:${String(port)} (${code})`, 1);
    }
    throw err;
  }
  // A stray rejection is a bug to log, not a reason to drop every request in flight.
  process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled rejection'));
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting without waiting for requests in flight');
      logger.flush?.();
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'shutting down: draining requests in flight');
    void gateway.close().then(() => {
      logger.info('stopped');
      logger.flush?.();
      // Everything the gateway opened is closed, so the process ends by itself; should a stray handle
      // (a library timer) keep it alive, it still exits shortly.
      setTimeout(() => process.exit(0), 1000).unref();
    });
  };
  process.on('SIGHUP', () => {
    if (!stopping) void gateway.reloads.reload();
  });
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}
