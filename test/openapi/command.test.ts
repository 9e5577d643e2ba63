// `legacy-gateway openapi`, its command line run in the test's process (test/helpers/cli-in-process.ts; the
// binary on a closed pipe is tested in cli-epipe.test.ts): the document on stdout as JSON or YAML, the package
// version in it, the mappings from --mappings or MAPPINGS_DIR, and exit 2 with a one-line message when the
// mappings cannot be loaded.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { openApiDocumentFor } from '../../src/commands/openapi.js';
import { SHIPPED_MAPPINGS_DIR } from '../../src/gateway/config.js';
import type { OpenApiDocument } from '../../src/legacy-surface/openapi/types.js';
import { runCli } from '../helpers/cli-in-process.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const version = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version;

/** `openapi ARGS` with no MAPPINGS_DIR unless `env` gives one, so the shipped mappings are the default. */
const openapi = (args: string[], env: Record<string, string> = {}) => runCli(['openapi', ...args], env);

let expected: OpenApiDocument;
let copy: string;

beforeAll(async () => {
  expected = await openApiDocumentFor(SHIPPED_MAPPINGS_DIR);
  copy = mkdtempSync(path.join(tmpdir(), 'lgw-openapi-cli-'));
  cpSync(SHIPPED_MAPPINGS_DIR, copy, { recursive: true });
});
afterAll(() => rmSync(copy, { recursive: true, force: true }));

describe('legacy-gateway openapi', () => {
  it('prints the document of the shipped mappings as JSON, with the package version', async () => {
    const { code, stdout, stderr } = await openapi([]);
    expect(code).toBe(0);
    const printed = JSON.parse(stdout) as OpenApiDocument;
    expect(printed).toEqual(expected);
    expect(printed.info.version).toBe(version);
    expect(stderr).toBe('');
  });

  it('--yaml prints the same document as YAML', async () => {
    const { stdout } = await openapi(['--yaml']);
    expect(stdout.trimStart().startsWith('{')).toBe(false);
    expect(parseYaml(stdout)).toEqual(expected);
  });

  it('reads the mappings of --mappings, else MAPPINGS_DIR', async () => {
    // A second method served from an operator file: a copy of the shipped one under a new name.
    const served = readdirSync(copy)
      .filter((n) => n.endsWith('.yaml'))
      .map((n) => parseYaml(readFileSync(path.join(copy, n), 'utf8')) as Record<string, unknown>)
      .find((data) => data.kind === 'static');
    writeFileSync(path.join(copy, 'reviews.yaml'), toYaml({ ...served, method: 'reviews', description: 'Reviews from an operator file' }));
    for (const [args, extra] of [[['--mappings', copy], {}], [[], { MAPPINGS_DIR: copy }]] as const) {
      const { stdout } = await openapi([...args], extra);
      const doc = JSON.parse(stdout) as OpenApiDocument;
      expect(Object.keys(doc.paths)).toContain('/api/reviews');
      expect(Object.keys(doc.paths)).toHaveLength(Object.keys(expected.paths).length + 1);
    }
  });

  it('exits 2 with one line naming the problem when the mappings cannot be loaded', async () => {
    for (const dir of [path.join(root, 'test/fixtures/bad-mappings'), path.join(copy, 'no-such-dir')]) {
      const { code, stdout, stderr } = await openapi(['--mappings', dir]);
      expect({ code, stdout }).toEqual({ code: 2, stdout: '' });
      expect(stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(stderr).toMatch(/^legacy-gateway openapi: the mappings in .+ cannot be loaded: .+/);
    }
  });
});
