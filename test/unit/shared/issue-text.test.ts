// zod's issues as sentences (src/shared/issue-text.ts): what is allowed, in words read from the schema, with
// the value received where it may be repeated; a schema's own message wins; never zod's own text.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { expectation, issueReason, issueSentence, valueAt } from '../../../src/shared/issue-text.js';

/** The sentence of the first issue of parsing `value`, by `name`, the value repeated. */
function sentence(name: string, schema: z.ZodType, value: unknown, repeat = true): string {
  const parsed = schema.safeParse(value, { error: expectation });
  if (parsed.success) throw new Error(`${JSON.stringify(value)} was accepted`);
  return issueSentence(name, parsed.error.issues[0]!, repeat ? { value } : undefined);
}

describe('what is allowed, in words', () => {
  const port = z.coerce.number().int().min(0).max(65535);

  it('a whole number within bounds, whatever the check that failed', () => {
    expect(sentence('PORT', port, 'abc')).toBe('PORT must be a whole number from 0 to 65535, got "abc"');
    expect(sentence('PORT', port, '70000')).toBe('PORT must be a whole number from 0 to 65535, got "70000"');
    expect(sentence('PORT', port, '1.5')).toBe('PORT must be a whole number from 0 to 65535, got "1.5"');
    expect(sentence('--concurrency', z.number().int().min(1), 0)).toBe('--concurrency must be a whole number of at least 1, got 0');
    expect(sentence('n', z.number().max(9), 10)).toBe('n must be a number of at most 9, got 10');
    expect(sentence('n', z.number().positive(), 0)).toBe('n must be a number above 0, got 0');
  });

  it('one of a list: the values as written, a semicolon before what was received', () => {
    expect(sentence('--format', z.enum(['nginx', 'haproxy']), 'apache')).toBe('--format must be one of nginx, haproxy; got "apache"');
    expect(sentence('--format', z.enum(['nginx', 'haproxy']), undefined, false)).toBe('--format is required: one of nginx, haproxy');
    expect(sentence('kind', z.literal('all'), 'every')).toBe('kind must be all, got "every"');
  });

  it('a discriminated union names its kinds', () => {
    const files = z.discriminatedUnion('kind', [z.object({ kind: z.literal('list') }), z.object({ kind: z.literal('detail') })]);
    const parsed = files.safeParse({ kind: 'lists' }, { error: expectation });
    expect(parsed.error!.issues[0]!.path).toEqual(['kind']);
    expect(issueReason(parsed.error!.issues[0]!, valueAt({ kind: 'lists' }, ['kind']))).toBe('must be one of list, detail; got "lists"');
  });

  it('types, lengths, sizes and keys', () => {
    expect(sentence('name', z.string(), 5)).toBe('name must be text, got 5');
    expect(sentence('name', z.string(), undefined, false)).toBe('name is required');
    expect(sentence('name', z.string().min(1), '')).toBe('name must not be empty, got ""');
    expect(sentence('name', z.string().min(3), 'ab')).toBe('name must have at least 3 characters, got "ab"');
    expect(sentence('sort', z.array(z.string()).min(1), [])).toBe('sort must not be empty');
    expect(sentence('on', z.boolean(), 'yes')).toBe('on must be true or false, got "yes"');
    expect(sentence('source', z.strictObject({ a: z.string() }), { a: 'x', b: 1 })).toBe('source has a key that is not allowed here: b');
  });

  it("a schema's own words win: its message, or its description of the allowed value", () => {
    expect(sentence('URL', z.string().refine((v) => v.startsWith('http'), 'must be an http:// or https:// URL'), 'ftp://x', false)).toBe('URL must be an http:// or https:// URL');
    expect(sentence('T', z.coerce.number().int().min(1).describe('a whole number of milliseconds from 1 to 10'), 'soon')).toBe(
      'T must be a whole number of milliseconds from 1 to 10, got "soon"',
    );
    expect(sentence('S', z.enum(['1', '0'], { error: 'must be 1 (on) or 0 (off)' }), 'maybe')).toBe('S must be 1 (on) or 0 (off), got "maybe"');
  });
});

describe('the value received', () => {
  it('is repeated short, and only as text, a number or a boolean', () => {
    expect(issueReason({ message: 'must be short' }, { value: 'x'.repeat(80) })).toBe(`must be short, got "${'x'.repeat(57)}..."`);
    expect(issueReason({ message: 'must be text' }, { value: { a: 1 } })).toBe('must be text');
    expect(issueReason({ message: 'must be text' })).toBe('must be text');
  });

  it('is found at its path in parsed data', () => {
    expect(valueAt({ paging: { max: 5000 } }, ['paging', 'max'])).toEqual({ value: 5000 });
    expect(valueAt({ paging: 3 }, ['paging', 'max'])).toBeUndefined();
    expect(valueAt({ list: ['a', 'b'] }, ['list', 1])).toEqual({ value: 'b' });
  });
});
