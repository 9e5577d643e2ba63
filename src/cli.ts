#!/usr/bin/env node
// The one entry point: `legacy-gateway serve | sandbox | coverage | check | replay`.
// Parses arguments only; each command's work lives in its own module, loaded when the command runs.
import { Command, InvalidArgumentError } from 'commander';
import { registerReplayCommand } from './commands/replay.js';

function portNumber(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) throw new InvalidArgumentError('a port number from 0 to 65535');
  return n;
}

const program = new Command()
  .name('legacy-gateway')
  .description('Serves the retired unversioned API (/api/{method}) from the v1 REST API, in the old reply shape.')
  .showHelpAfterError();

program
  .command('serve')
  .description('run the gateway; settings come from the environment (README: Configuration).\nWithout UPSTREAM_URL it serves from the embedded v1 sandbox.')
  .action(async () => {
    const { runServe } = await import('./commands/serve.js');
    await runServe();
  });

program
  .command('sandbox')
  .description('run the embedded v1 sandbox alone (demo data, demo keys) on its own port')
  .option('-p, --port <port>', 'port to listen on', portNumber, 8081)
  .option('-H, --host <host>', 'address to listen on', '127.0.0.1')
  .option('--rate-limit <calls>', 'calls per hour per key, URL and verb', (v) => {
    if (!/^\d+$/.test(v) || Number(v) < 1) throw new InvalidArgumentError('a whole number of 1 or more');
    return Number(v);
  }, 1000)
  .action(async (opts: { port: number; host: string; rateLimit: number }) => {
    const { runSandbox } = await import('./commands/sandbox.js');
    await runSandbox(opts);
  });

program
  .command('coverage')
  .description('print the legacy field coverage matrix (copied / renamed / derived / defaulted / missing), generated from the mappings')
  .option('--json', 'machine-readable output')
  .option('--mappings <dir>', 'mappings directory (default: MAPPINGS_DIR or the shipped mappings/)')
  .action(async (opts: { json?: boolean; mappings?: string }) => {
    const { runCoverage } = await import('./commands/coverage.js');
    await runCoverage(opts);
  });

program
  .command('openapi')
  .description('print the OpenAPI 3.1 description of the legacy surface (paths, parameters, replies, payment form and codes), generated from the mappings\n(exit 2 when the mappings cannot be loaded)')
  .option('--yaml', 'YAML instead of JSON')
  .option('--mappings <dir>', 'mappings directory (default: MAPPINGS_DIR or the shipped mappings/)')
  .action(async (opts: { yaml?: boolean; mappings?: string }) => {
    const { runOpenApi } = await import('./commands/openapi.js');
    await runOpenApi(opts);
  });

program
  .command('check')
  .description('probe what the gateway depends on: mappings, upstream reachable, and the key on every v1 resource it uses\n(reads UPSTREAM_URL, UPSTREAM_API_KEY, MAPPINGS_DIR; one GET per resource; exit 1 when a check fails)')
  .option('--json', 'machine-readable output')
  .action(async (opts: { json?: boolean }) => {
    const { runCheck } = await import('./commands/check.js');
    await runCheck(opts);
  });

registerReplayCommand(program);

await program.parseAsync(process.argv);
