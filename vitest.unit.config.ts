// `npm run test:unit`: the quick suite, for a run after a change to a mapping or a pure module. It leaves out
// two kinds of test file, both by a rule, so that a new file is placed without a list to keep:
// - a test that needs an external server (redis-server, PostgreSQL, nginx, HAProxy or Chromium): one that
//   imports the helper that starts it (test/helpers/redis-server, postgres-server, nginx), drives a browser
//   (playwright-core) or runs HAProxy, found by reading the files;
// - a long test, named `*.long.test.ts`: one whose length is its point and grows with the machine's load
//   (thousands of calls, fuzzing at volume, a 100k-entry replay, memory measured over such a run, the
//   package packed, installed and type-checked), with timeouts to match. Where a small run says something
//   on its own, it stays here under the plain name with fixed inputs (the fuzz: a few cases, a fixed seed)
//   and the long file runs the volume.
// `npm test` (vitest.config.ts) stays the whole suite, these included; CI runs it.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.js';

const NEEDS_A_SERVER = /helpers\/(redis-server|postgres-server|nginx)\.js|from 'playwright-core'|\/usr\/sbin\/haproxy/;
const LONG = 'test/**/*.long.test.ts';

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(file);
    return entry.name.endsWith('.test.ts') ? [file] : [];
  });
}

const withServers = testFiles('test').filter((file) => NEEDS_A_SERVER.test(readFileSync(file, 'utf8')));

// Three workers on two cores: most of these tests wait on processes and sockets of their own, so a third
// worker fills the time the others spend waiting.
export default mergeConfig(base, defineConfig({ test: { exclude: [...withServers, LONG, 'node_modules/**'], maxWorkers: 3 } }));
