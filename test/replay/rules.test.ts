// Rules files and path patterns: one syntax for report paths and rule paths; errors name file, rule, reason.
import { describe, expect, it } from 'vitest';
import { appendPath, formatPath, matchesPattern, parsePathPattern, PathPatternError } from '../../src/replay/json-path.js';
import { parseRules, RulesFileError, rulesForMethod } from '../../src/replay/rules.js';

describe('paths', () => {
  it('formats report paths', () => {
    expect(formatPath(['response', 3, 'first_name'])).toBe('$.response[3].first_name');
    expect(formatPath(['response', 'hide costs'])).toBe('$.response["hide costs"]');
    expect(appendPath('$', '*')).toBe('$["*"]');
  });

  it('matches patterns with wildcards and any depth', () => {
    const m = (pattern: string, segments: Array<string | number>): boolean => matchesPattern(parsePathPattern(pattern), segments);
    expect(m('$.response[*].updated_at', ['response', 2, 'updated_at'])).toBe(true);
    expect(m('$.response[*].updated_at', ['response', 'x', 'updated_at'])).toBe(false);
    expect(m('$.response.*', ['response', 'x'])).toBe(true);
    expect(m('$.response.*', ['response', 1])).toBe(true);
    expect(m('$..ts', ['ts'])).toBe(true);
    expect(m('$..ts', ['a', 0, 'ts'])).toBe(true);
    expect(m('$..[*]', ['a', 0])).toBe(true);
    expect(m('$["hide costs"]', ['hide costs'])).toBe(true);
    expect(m('$.response[3]', ['response', 3])).toBe(true);
    expect(m('$.response', ['response', 3])).toBe(false);
    // A path printed in a report is a pattern that matches it.
    expect(m(formatPath(['response', 3, 'hide costs']), ['response', 3, 'hide costs'])).toBe(true);
  });

  it('rejects malformed patterns', () => {
    for (const bad of ['response', '$.', '$..', '$[x]', '$.a[', '$a']) expect(() => parsePathPattern(bad), bad).toThrow(PathPatternError);
  });
});

describe('parseRules', () => {
  it('reads YAML and JSON', () => {
    const yaml = parseRules('ignore:\n  - path: $.a\n    reason: server clock\nunordered:\n  - path: $.b\n    key: id\n    methods: [Clients]\ntolerance:\n  - path: $.c\n    absolute: 0.01\n', 'r.yaml');
    expect(yaml.rules.map((r) => r.label)).toEqual(['ignore[0] $.a', 'unordered[0] $.b (Clients)', 'tolerance[0] $.c']);
    expect(rulesForMethod(yaml, 'clients').unordered).toHaveLength(1);
    expect(rulesForMethod(yaml, 'staffs').unordered).toHaveLength(0);
    const json = parseRules('{"ignore":[{"path":"$..ts"}]}', 'r.json');
    expect(json.rules).toHaveLength(1);
    expect(parseRules('', 'empty.yaml').rules).toEqual([]);
  });

  it('names the file, the rule and the reason on errors', () => {
    expect(() => parseRules('ignored:\n  - path: $.a\n', 'r.yaml')).toThrow(/r\.yaml: invalid rules file:[\s\S]*ignored/);
    expect(() => parseRules('ignore:\n  - path: response.x\n', 'r.yaml')).toThrow(/r\.yaml: ignore\[0\]\.path: a path must start with "\$"/);
    expect(() => parseRules('tolerance:\n  - path: $.a\n', 'r.yaml')).toThrow(/tolerance\[0\]: needs "absolute" or "relative"/);
    expect(() => parseRules('ignore: [\n', 'r.yaml')).toThrow(RulesFileError);
    expect(() => parseRules('ignore: [\n', 'r.yaml')).toThrow(/r\.yaml \(line \d+\): not valid YAML or JSON/);
  });
});
