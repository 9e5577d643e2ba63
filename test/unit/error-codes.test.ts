import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/shared/errors.js';

describe('the error code registry', () => {
  it('documents every code in the README with its HTTP status', async () => {
    const readme = await readFile(new URL('../../docs/legacy-api.md', import.meta.url), 'utf8');
    for (const [code, { status }] of Object.entries(ERROR_CODES)) {
      const row = readme.split('\n').find((l) => l.startsWith(`| \`${code}\` |`));
      expect(row, `README row for ${code}`).toBeDefined();
      expect(row).toContain(status === 0 ? "| v1's |" : `| ${status} |`);
    }
  });
});
