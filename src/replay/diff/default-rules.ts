// The default replay rule set shipped with the tool (replay-rules/default.yaml at the package root):
// the values the gateway itself makes unique on every call (payment ids, new client ids, request ids),
// which two runs never share. Read with the rules file parser, its rules labelled `default ...`; a rule of
// it that matches nothing is reported but never warned about (the operator did not write it).
// Reads one file, once per run; the path is the package's, never the working directory's.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseRules, type RuleSet } from './rules-file.js';

const here = path.dirname(fileURLToPath(import.meta.url));
/** Three levels above src/replay/diff/ or dist/replay/diff/, as the shipped mappings. */
export const DEFAULT_RULES_FILE = path.resolve(here, '..', '..', '..', 'replay-rules', 'default.yaml');

export async function readDefaultRules(file: string = DEFAULT_RULES_FILE): Promise<RuleSet> {
  return parseRules(await readFile(file, 'utf8'), path.basename(file), 'default');
}
