// `legacy-gateway coverage`: loads the mapping set and prints the field coverage matrix.
// Mappings that cannot be loaded are an input error: one message on stderr, exit 2 (docs/cli.md: exit codes).
import { SHIPPED_MAPPINGS_DIR } from '../gateway/config.js';
import { loadMappingFiles } from '../gateway/loaders/mapping-files.js';
import { coverageRows, coverageText, recordGuessOf, sourceOf } from '../mapping/coverage.js';
import { MappingSetError } from '../mapping/mapping-set.js';

export async function runCoverage(opts: { json?: boolean; mappings?: string }): Promise<void> {
  const dir = opts.mappings ?? (process.env.MAPPINGS_DIR || SHIPPED_MAPPINGS_DIR);
  try {
    const set = await loadMappingFiles(dir);
    if (opts.json) {
      const fields = coverageRows(set);
      const methods = [...set.values()].map((m) => {
        const recordGuess = recordGuessOf(m);
        const guesses = fields.filter((f) => f.method === m.method && f.guess).length;
        return { method: m.method, kind: m.kind, source: sourceOf(m), record: m.record.name, ...(recordGuess !== undefined && { recordGuess }), guesses };
      });
      process.stdout.write(`${JSON.stringify({ methods, fields }, null, 2)}\n`);
    } else {
      process.stdout.write(`${coverageText(set)}\n`);
    }
  } catch (err) {
    if (!(err instanceof MappingSetError)) throw err;
    process.stderr.write(`legacy-gateway coverage: ${err.message}\n`);
    process.exitCode = 2;
  }
}
