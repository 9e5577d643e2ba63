// Reads the run's rules files: the operator's --rules file, and the default rule set shipped with the tool
// (replay-rules/default.yaml at the package root: the values the gateway itself makes unique on every call,
// payment ids, new client ids, request ids, which two runs never share). Both are parsed by the rules file
// parser (../rules/rules-file.ts, pure), the default set's rules labelled `default ...`; a default rule that
// matches nothing is reported but never warned about (the operator did not write it).
// Reads each file once per run; the default set's path is the package's, never the working directory's.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseRules, type RuleSet } from '../rules/rules-file.js';
import { ReplayUsageError } from './command-options.js';

const here = path.dirname(fileURLToPath(import.meta.url));
/** Three levels above src/replay/run/ or dist/replay/run/, as the shipped mappings. */
export const DEFAULT_RULES_FILE = path.resolve(here, '..', '..', '..', 'replay-rules', 'default.yaml');

export async function readDefaultRules(file: string = DEFAULT_RULES_FILE): Promise<RuleSet> {
  return parseRules(await readFile(file, 'utf8'), path.basename(file), 'default');
}

/** The operator's rules file. Throws ReplayUsageError when it cannot be read, RulesFileError when it is wrong. */
export async function readOperatorRules(file: string): Promise<RuleSet> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new ReplayUsageError(`${file}: cannot read the rules file (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  return parseRules(text, file);
}
