// The Node 26 the bench runs the gateway on beside its own Node: the npm package node@26 (a Node binary
// from the registry, as CI's run on Node 26 installs it), through `npx -y node@26`, or a binary named
// with --node26. Absent, the Node 26 rows are skipped with one line saying why.
import { spawnSync } from 'node:child_process';
import type { Node26Choice } from './options.js';

export interface NodeBinary {
  path: string;
  version: string;
}

function versionOf(binary: string): NodeBinary {
  const run = spawnSync(binary, ['-p', 'process.execPath + " " + process.version'], { encoding: 'utf8', timeout: 30_000 });
  const [execPath, version] = run.stdout.trim().split(' ');
  if (run.status !== 0 || !execPath || !version) throw new Error(`${binary} -p process.version failed: ${run.stderr.trim() || run.error?.message}`);
  return { path: execPath, version };
}

/** The binary npx runs for node@26: the package's own, whose execPath is the Node binary itself. */
function fromNpx(): NodeBinary {
  const run = spawnSync('npx', ['-y', 'node@26', '-p', 'process.execPath + " " + process.version'], { encoding: 'utf8', timeout: 180_000 });
  const last = run.stdout.trim().split('\n').pop() ?? '';
  const [execPath, version] = last.split(' ');
  if (run.status !== 0 || !execPath || !version) throw new Error(`npx -y node@26 failed: ${run.stderr.trim().split('\n').pop() ?? run.error?.message}`);
  return { path: execPath, version };
}

/** Node 26, or why not. */
export function findNode26(choice: Node26Choice): NodeBinary | { skipped: string } {
  if (choice.kind === 'off') return { skipped: '--node26 off' };
  try {
    const found = choice.kind === 'path' ? versionOf(choice.path) : fromNpx();
    if (!found.version.startsWith('v26.')) return { skipped: `${found.path} is Node ${found.version}, not 26` };
    if (found.version === process.version) return { skipped: `the bench itself runs on ${found.version}: there is no other Node to compare it with` };
    return found;
  } catch (err) {
    return { skipped: err instanceof Error ? err.message : String(err) };
  }
}
