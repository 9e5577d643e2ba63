// The compiled form of replay rules, as the pure diff consumes them, and the choice of the rules that
// apply to one legacy method. Kept apart from rules-file.ts (which parses YAML/JSON files) so the diff's
// module graph holds no parser.
// Pure: must never do I/O.
import type { PathPattern } from './json-path.js';

export type RuleKind = 'ignore' | 'unordered' | 'tolerance' | 'pattern';

/** Where a rule comes from: the default rule set shipped with the tool, or the operator's rules file. */
export type RuleOrigin = 'default' | 'file';

export interface CompiledRule {
  /** Position in the whole rule set, stable for one run; used to report matches. */
  id: number;
  kind: RuleKind;
  /** How the rule is named in reports: `ignore[0] $.response[*].updated_at`. */
  label: string;
  origin: RuleOrigin;
  pattern: PathPattern;
  methods: ReadonlySet<string> | undefined;
  key?: string;
  absolute?: number;
  relative?: number;
  /** `pattern` rules: two values that both match are equal (with groups: only the groups may differ). */
  regex?: RegExp;
}

export interface RuleSet {
  rules: readonly CompiledRule[];
}

/** The rules that apply to one legacy method, split by kind for the diff. */
export interface DiffRules {
  ignore: readonly CompiledRule[];
  unordered: readonly CompiledRule[];
  tolerance: readonly CompiledRule[];
  pattern: readonly CompiledRule[];
}

export const NO_RULES: DiffRules = { ignore: [], unordered: [], tolerance: [], pattern: [] };
export const EMPTY_RULE_SET: RuleSet = { rules: [] };

/** The rules of a set that apply to entries of one legacy method (undefined: entries of no method). */
export function rulesForMethod(set: RuleSet, legacyMethod: string | undefined): DiffRules {
  const applies = (r: CompiledRule): boolean =>
    r.methods === undefined || (legacyMethod !== undefined && r.methods.has(legacyMethod.toLowerCase()));
  const chosen = set.rules.filter(applies);
  return {
    ignore: chosen.filter((r) => r.kind === 'ignore'),
    unordered: chosen.filter((r) => r.kind === 'unordered'),
    tolerance: chosen.filter((r) => r.kind === 'tolerance'),
    pattern: chosen.filter((r) => r.kind === 'pattern'),
  };
}

/** One rule set of several (the default set, then the operator's file), ids renumbered in that order. */
export function combineRuleSets(...sets: readonly RuleSet[]): RuleSet {
  const rules = sets.flatMap((s) => s.rules).map((r, id) => ({ ...r, id }));
  return { rules };
}

/** rulesForMethod, chosen once per legacy method for the whole run. */
export function rulesByMethod(set: RuleSet): (legacyMethod: string) => DiffRules {
  const chosen = new Map<string, DiffRules>();
  return (legacyMethod) => {
    let rules = chosen.get(legacyMethod);
    if (!rules) {
      rules = rulesForMethod(set, legacyMethod);
      chosen.set(legacyMethod, rules);
    }
    return rules;
  };
}
