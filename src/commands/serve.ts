// `legacy-gateway serve`: reads the environment, starts the gateway, and stops it on SIGTERM/SIGINT.
// Start-up problems (bad setting, bad mapping file) are printed plainly and exit 1, without a stack trace.
import { ConfigError, loadConfig } from '../config.js';
import { StaticFileError } from '../loaders/static-records.js';
import { MappingSetError } from '../mapping/mapping-set.js';
import { createLogger } from '../server/logging.js';
import { startGateway } from '../server/start.js';

export async function runServe(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  let config;
  try {
    config = loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`legacy-gateway: ${err.message}\n`);
      process.exitCode = 1;
      return;
    }
    throw err;
  }
  const logger = createLogger(config.logLevel);
  let gateway;
  try {
    gateway = await startGateway({ config, logger });
  } catch (err) {
    if (err instanceof MappingSetError || err instanceof StaticFileError) {
      process.stderr.write(`legacy-gateway: cannot start: ${err.message}\n`);
      process.exitCode = 1;
      return;
    }
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
      process.stderr.write(`legacy-gateway: cannot listen on ${config.host}:${config.port} (${code})\n`);
      process.exitCode = 1;
      return;
    }
    throw err;
  }
  const stop = (signal: string) => {
    logger.info({ signal }, 'shutting down: draining requests in flight');
    void gateway.close().then(() => {
      logger.info('stopped');
      logger.flush?.();
    });
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}
