// What `npm start` runs the gateway with (package.json's start script): the environment it sets
// (`env NAME=value`) and Node's flags, so that the bench measures what ships.
import { readFileSync } from 'node:fs';
import path from 'node:path';

export interface StartCommand {
  env: Record<string, string>;
  nodeFlags: string[];
}

export function readStartCommand(root: string): StartCommand {
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { start: string } };
  const tokens = pkg.scripts.start.split(/\s+/);
  const nodeAt = tokens.indexOf('node');
  if (nodeAt < 0) throw new Error(`package.json's start script runs no node: ${pkg.scripts.start}`);
  const env: Record<string, string> = {};
  for (const token of tokens.slice(0, nodeAt)) {
    const m = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(token);
    if (m) env[m[1]!] = m[2]!;
  }
  return { env, nodeFlags: tokens.slice(nodeAt + 1).filter((token) => token.startsWith('--')) };
}

/** `NAME=value ... node --flag ...`, as printed in the bench's first line. */
export const describeStart = (start: StartCommand): string =>
  [...Object.entries(start.env).map(([k, v]) => `${k}=${v}`), 'node', ...start.nodeFlags].join(' ');
