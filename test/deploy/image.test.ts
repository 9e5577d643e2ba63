// The Docker image starts the gateway as `npm start` does: its ENTRYPOINT gives node the flags of package.json's
// start script (the bench reads the same script, so what it measures is what the image runs), and its ENV sets
// every variable that script sets, to the same value.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './compose-files.js';
import { imageEnvironment, nodeFlagsOfStartScript } from './gateway-facts.js';

/** The exec form of the Dockerfile's last ENTRYPOINT. */
function entrypoint(): string[] {
  const lines = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8').split('\n').filter((line) => line.startsWith('ENTRYPOINT '));
  return JSON.parse(lines.at(-1)?.slice('ENTRYPOINT '.length) ?? '[]') as string[];
}

/** The `NAME=value` words before `node` in the start script. */
function startScriptEnvironment(): Record<string, string> {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const words = (pkg.scripts.start ?? '').split(/\s+/);
  const pairs = words.slice(0, words.indexOf('node')).flatMap((word) => {
    const m = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(word);
    return m ? [[m[1] ?? '', m[2] ?? '']] : [];
  });
  return Object.fromEntries(pairs) as Record<string, string>;
}

describe('the Docker image', () => {
  it("runs node with npm start's flags, then dist/cli.js", () => {
    const words = entrypoint();
    expect(words[0]).toBe('node');
    expect(words.slice(1, -1)).toEqual(nodeFlagsOfStartScript());
    expect(words.at(-1)).toBe('dist/cli.js');
  });

  it("sets every variable npm start sets, to npm start's value", () => {
    const start = startScriptEnvironment();
    expect(Object.keys(start).length).toBeGreaterThan(0);
    expect(imageEnvironment()).toMatchObject(start);
  });
});
