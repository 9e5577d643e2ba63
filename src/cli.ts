#!/usr/bin/env node
// The one entry point: `legacy-gateway serve | sandbox | coverage | replay | check`.
// Parses arguments only; each command's work lives in its own module.
import { Command } from 'commander';

const program = new Command()
  .name('legacy-gateway')
  .description('Serves the retired unversioned API (/api/{method}) from the v1 REST API.')
  .showHelpAfterError();

program
  .command('serve')
  .description('run the gateway (UPSTREAM_URL unset: against the embedded v1 sandbox)')
  .action(async () => {
    const { runServe } = await import('./server/serve-command.js');
    await runServe();
  });

await program.parseAsync(process.argv);
