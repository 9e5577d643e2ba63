// `npm run test:unit`: every test that needs no external server (no redis-server, PostgreSQL, nginx, HAProxy
// or Chromium), for a quick run after a change to a mapping or a pure module. A test needs one when it
// imports the helper that starts it (test/helpers/redis-server, postgres-server, nginx), drives a browser
// (playwright-core) or runs HAProxy: such files are left out, found by reading them, so a new one is left
// out without a list to keep. `npm test` (vitest.config.ts) stays the whole suite.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.js';

const NEEDS_A_SERVER = /helpers\/(redis-server|postgres-server|nginx)\.js|from 'playwright-core'|\/usr\/sbin\/haproxy/;

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
export default mergeConfig(base, defineConfig({ test: { exclude: [...withServers, 'node_modules/**'], maxWorkers: 3 } }));
