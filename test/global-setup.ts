// Builds dist/ once before the suite, so tests that run the CLI as a process run the current code.
// LGW_TEST_SKIP_BUILD=1 skips it, for a quick run of tests that never start the CLI as a process.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  if (process.env.LGW_TEST_SKIP_BUILD === '1') return;
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  // Incremental: a build with nothing changed skips the type check. Its record lives inside dist/, so a
  // dist/ removed takes the record with it and the next build is whole (tsc does not notice missing output).
  execFileSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--incremental', '--tsBuildInfoFile', 'dist/.tsbuildinfo'], { cwd: root, stdio: 'inherit' });
}
