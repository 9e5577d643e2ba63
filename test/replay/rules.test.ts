// Rules files and path patterns: one syntax for report paths and rule paths; errors name file, rule, reason.
// The default rule set shipped with the tool is a valid rules file that equates exactly what the gateway
// makes new on every call.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEFAULT_RULES_FILE, readDefaultRules } from '../../src/replay/run/rule-files.js';
import { diffJson } from '../../src/json-diff/json-diff.js';
import { appendPath, formatPath, matchesPattern, parsePathPattern, PathPatternError } from '../../src/json-diff/json-path.js';
import { combineRuleSets, parseRules, RulesFileError, rulesForMethod } from '../../src/replay/rules/rules-file.js';
import type { JsonValue } from '../../src/shared/json-exact.js';
import { parse as parseYaml } from 'yaml';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

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
    expect(() => parseRules("pattern:\n  - path: $.a\n    regex: '(unclosed'\n", 'r.yaml')).toThrow(
      /^r\.yaml: invalid rules file:\n {2}pattern\[0\]\.regex: not a valid regular expression: .*Unterminated group$/,
    );
    expect(() => parseRules('pattern:\n  - path: $.a\n', 'r.yaml')).toThrow(/pattern\[0\]\.regex: /);
    expect(() => parseRules("pattern:\n  - path: a\n    regex: x\n", 'r.yaml')).toThrow(/r\.yaml: pattern\[0\]\.path: a path must start with "\$"/);
    expect(() => parseRules("pattern:\n  - path: $.a\n    regex: x\n    flags: i\n", 'r.yaml')).toThrow(/pattern\[0\]: .*flags/);
  });

  it('reads pattern rules, labelled like the others; the default set is labelled apart', () => {
    const set = parseRules("pattern:\n  - path: $.response\n    regex: '^id \\d+$'\n    methods: [payment]\n", 'r.yaml');
    expect(set.rules.map((r) => [r.label, r.origin])).toEqual([['pattern[0] $.response (payment)', 'file']]);
    expect(rulesForMethod(set, 'payment').pattern).toHaveLength(1);
    const defaults = parseRules("pattern:\n  - path: $.x\n    regex: y\n", 'default.yaml', 'default');
    const both = combineRuleSets(defaults, set);
    expect(both.rules.map((r) => [r.id, r.label, r.origin])).toEqual([
      [0, 'default pattern[0] $.x', 'default'],
      [1, 'pattern[0] $.response (payment)', 'file'],
    ]);
  });
});

describe('the default rule set', () => {
  it('ships in the package, and applies to the messages the gateway writes with a new id each time', async () => {
    const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { files: string[] };
    expect(path.relative(root, DEFAULT_RULES_FILE)).toBe(path.join('replay-rules', 'default.yaml'));
    expect(pkg.files).toContain('replay-rules/');
    const rules = await readDefaultRules();
    expect(rules.rules.every((r) => r.origin === 'default' && r.label.startsWith('default pattern['))).toBe(true);

    // The texts come from the shipped payment mapping and the gateway's internal error reply.
    const { messages } = parseYaml(readFileSync(path.join(root, 'mappings', 'payment.yaml'), 'utf8')) as { messages: Record<string, string> };
    const fill = (template: string, values: Record<string, string>): string => template.replace(/\{(\w+)\}/g, (_, k: string) => values[k] ?? `{${k}}`);
    const equal = (method: string, e: JsonValue, a: JsonValue): boolean => diffJson(e, a, { rules: rulesForMethod(rules, method) }).differences.length === 0;
    const paid = (id: string): JsonValue => ({ status: 'success', code: 12, response: fill(messages.created!, { payment_id: id }) });
    expect(equal('payment', paid('41'), paid('97'))).toBe(true);
    expect(equal('clients', { response: fill(messages.created!, { payment_id: '41' }) }, { response: fill(messages.created!, { payment_id: '97' }) })).toBe(false);
    const newClient = (message: string, id: string): JsonValue => ({ response: fill(messages.clientCreatedButPaymentFailed!, { message, client_id: id }) });
    expect(equal('payment', newClient('payment error: declined', '501'), newClient('payment error: declined', '502'))).toBe(true);
    // The message around the new client's id is still compared.
    expect(equal('payment', newClient('payment error: declined', '501'), newClient('payment error: refused', '502'))).toBe(false);
    const internal = (id: string): JsonValue => ({ status: 'failure', response: `internal gateway error (request id ${id})` });
    expect(equal('clients', internal('req-1'), internal('req-2'))).toBe(true);
  });
});
