#!/usr/bin/env node
// The one entry point: `legacy-gateway serve | sandbox | coverage | openapi | routes | check | usage | migration-guide | payments | retire-check | brownout | notices | replay`, and --version.
// The process around the command line (commands/program.ts: the commands, their options, the exit codes).
import { runCommandLine } from './commands/program.js';

// A reader that goes away (`legacy-gateway openapi | head -1`) ends the output, not the command with a stack
// trace: the command exits quietly, with its own code if it has set one.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE') throw err;
  process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
});

await runCommandLine(process.argv);
