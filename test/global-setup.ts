// Builds dist/ once before the suite, so tests that run the CLI as a process run the current code.
// LGW_TEST_SKIP_BUILD=1 skips it, for a quick run of tests that never start the CLI as a process.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  if (process.env.LGW_TEST_SKIP_BUILD === '1') return;
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  execFileSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
}
