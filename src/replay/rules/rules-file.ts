// The replay rules file (YAML or JSON): paths to ignore, lists whose order does not matter, numeric
// tolerance, values that are equal when both match a pattern (a payment id in a message). Validated with
// zod once, compiled once, then handed to the pure diff per entry. The default rule set shipped with the
// tool (replay-rules/default.yaml) is a rules file too, read by the same parser.
// It must never read files itself (the command reads, this parses text) and must never accept a rule it
// cannot apply: unknown keys and bad paths are errors naming the file, the rule and the reason.
import { parse as parseYaml, YAMLParseError } from 'yaml';
import { z } from 'zod';
import type { CompiledRule, RuleKind, RuleOrigin, RuleSet } from '../../json-diff/diff-rules.js';
import { parsePathPattern, PathPatternError, type PathPattern } from '../../json-diff/json-path.js';

export {
  combineRuleSets,
  EMPTY_RULE_SET,
  NO_RULES,
  rulesForMethod,
  type CompiledRule,
  type DiffRules,
  type RuleKind,
  type RuleSet,
} from '../../json-diff/diff-rules.js';

const methods = z
  .array(z.string().min(1))
  .min(1)
  .optional()
  .describe('legacy method names (`clients`, `session`...) the rule is limited to');

const ignoreRule = z.strictObject({
  path: z.string().min(1),
  methods,
  reason: z.string().optional(),
});

const unorderedRule = z.strictObject({
  path: z.string().min(1),
  /** Pair the elements that differ by this field (e.g. `id`) so their inner differences are shown. */
  key: z.string().min(1).optional(),
  methods,
  reason: z.string().optional(),
});

const toleranceRule = z
  .strictObject({
    path: z.string().min(1),
    absolute: z.number().nonnegative().optional(),
    relative: z.number().nonnegative().optional(),
    methods,
    reason: z.string().optional(),
  })
  .refine((r) => r.absolute !== undefined || r.relative !== undefined, 'needs "absolute" or "relative"');

/** A JavaScript regular expression, compiled with the `d` flag (the diff reads where its groups matched). */
const regexSource = z.string().min(1).superRefine((source, ctx) => {
  try {
    new RegExp(source, 'd');
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: `not a valid regular expression: ${(err as Error).message}` });
  }
});

const patternRule = z.strictObject({
  path: z.string().min(1),
  /** Both values match: equal. With capturing groups only what they capture may differ; else the match. */
  regex: regexSource,
  methods,
  reason: z.string().optional(),
});

const rulesFileSchema = z.strictObject({
  ignore: z.array(ignoreRule).default([]),
  unordered: z.array(unorderedRule).default([]),
  tolerance: z.array(toleranceRule).default([]),
  pattern: z.array(patternRule).default([]),
});

export class RulesFileError extends Error {
  override name = 'RulesFileError';
}

/**
 * Parses and compiles a rules file's text; `fileName` only labels error messages. The default rule set's
 * rules are labelled `default pattern[0] ...`, so a report tells them from the operator's.
 */
export function parseRules(text: string, fileName: string, origin: RuleOrigin = 'file'): RuleSet {
  let raw: unknown;
  try {
    raw = parseYaml(text, { prettyErrors: true, uniqueKeys: true });
  } catch (err) {
    const where = err instanceof YAMLParseError && err.linePos ? ` (line ${err.linePos[0].line})` : '';
    throw new RulesFileError(`${fileName}${where}: not valid YAML or JSON: ${(err as Error).message.split('\n')[0]}`);
  }
  if (raw === null || raw === undefined) raw = {};
  const parsed = rulesFileSchema.safeParse(raw);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${formatIssuePath(i.path)}: ${i.message}`);
    throw new RulesFileError(`${fileName}: invalid rules file:\n  ${lines.join('\n  ')}`);
  }
  const rules: CompiledRule[] = [];
  const add = (
    kind: RuleKind,
    index: number,
    rule: { path: string; methods?: string[] | undefined },
    extra: Partial<CompiledRule>,
  ): void => {
    let pattern: PathPattern;
    try {
      pattern = parsePathPattern(rule.path);
    } catch (err) {
      if (err instanceof PathPatternError) throw new RulesFileError(`${fileName}: ${kind}[${index}].path: ${err.message}`);
      throw err;
    }
    rules.push({
      id: rules.length,
      kind,
      label: `${origin === 'default' ? 'default ' : ''}${kind}[${index}] ${rule.path}${rule.methods ? ` (${rule.methods.join(', ')})` : ''}`,
      origin,
      pattern,
      methods: rule.methods ? new Set(rule.methods.map((m) => m.toLowerCase())) : undefined,
      ...extra,
    });
  };
  parsed.data.ignore.forEach((r, i) => add('ignore', i, r, {}));
  parsed.data.unordered.forEach((r, i) => add('unordered', i, r, r.key === undefined ? {} : { key: r.key }));
  parsed.data.tolerance.forEach((r, i) =>
    add('tolerance', i, r, {
      ...(r.absolute === undefined ? {} : { absolute: r.absolute }),
      ...(r.relative === undefined ? {} : { relative: r.relative }),
    }),
  );
  parsed.data.pattern.forEach((r, i) => add('pattern', i, r, { regex: new RegExp(r.regex, 'd') }));
  return { rules };
}

function formatIssuePath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(top level)';
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`)).join('');
}
