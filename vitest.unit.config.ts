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

const MOCKS_MODULES = /\bvi\.(mock|doMock)\(/;

const files = testFiles('test').map((file) => ({ file, text: readFileSync(file, 'utf8') }));
const withServers = files.filter(({ text }) => NEEDS_A_SERVER.test(text)).map(({ file }) => file);
const mocking = files.filter(({ text }) => MOCKS_MODULES.test(text)).map(({ file }) => file);
const excluded = [...withServers, LONG, 'node_modules/**'];

// Three workers on two cores: most of these tests wait on processes and sockets of their own, so a third
// worker fills the time the others spend waiting.
// A worker runs file after file without loading the modules again (isolate: false): importing them for each
// of the files was most of this suite's CPU. A file that replaces a module (vi.mock) needs a module graph of
// its own, so those run isolated, found by the same kind of rule. `npm test` keeps every file isolated, so
// a test that leans on what another file left in a module fails there.
export default mergeConfig(base, defineConfig({
  test: {
    maxWorkers: 3,
    projects: [
      { extends: true, test: { name: 'quick', exclude: [...excluded, ...mocking], isolate: false } },
      // (A project's include adds to the base's, so this one is narrowed by excluding the others.)
      { extends: true, test: { name: 'quick, modules mocked', exclude: [...excluded, ...files.map(({ file }) => file).filter((file) => !mocking.includes(file))] } },
    ],
  },
}));
