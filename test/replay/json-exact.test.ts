// Exact JSON parse/print: number spellings survive, everything else matches JSON.parse.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonSyntaxError, NumberLiteral, parseJsonExact, stringifyExact } from '../../src/shared/json-exact.js';

describe('parseJsonExact', () => {
  it('keeps non-canonical number spellings and big integers', () => {
    expect(parseJsonExact('[1, 1.0, 1e2, -0, 12345678901234567891, 0.5]')).toEqual([
      1,
      new NumberLiteral('1.0'),
      new NumberLiteral('1e2'),
      new NumberLiteral('-0'),
      new NumberLiteral('12345678901234567891'),
      0.5,
    ]);
    expect(stringifyExact(parseJsonExact('{"a":1.50,"b":[true,null,"x\\"y"]}'))).toBe('{"a":1.50,"b":[true,null,"x\\"y"]}');
  });

  it('agrees with JSON.parse on any JSON text', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const text = JSON.stringify(v);
        expect(parseJsonExact(text)).toEqual(JSON.parse(text));
        expect(stringifyExact(parseJsonExact(text))).toBe(text);
      }),
    );
  });

  it('keeps __proto__ as an own property, like JSON.parse', () => {
    const v = parseJsonExact('{"__proto__":{"polluted":1}}') as Record<string, unknown>;
    expect(Object.keys(v)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('rejects bad JSON with the position', () => {
    for (const bad of ['{', '{"a":}', '[1,]', 'tru', '"abc', '01', '1 2', '{"a" 1}', '"\\x"']) {
      expect(() => parseJsonExact(bad), bad).toThrow(JsonSyntaxError);
    }
    try {
      parseJsonExact('{"a": x}');
    } catch (err) {
      expect((err as JsonSyntaxError).position).toBe(6);
    }
  });

  it('pretty-prints with an indent', () => {
    expect(stringifyExact(parseJsonExact('{"a":[1.0]}'), 2)).toBe('{\n  "a": [\n    1.0\n  ]\n}');
  });
});
