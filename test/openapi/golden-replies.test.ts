// Every golden legacy reply (test/golden/*.json: the exact reply the gateway must write for a recorded v1
// reply) is one the OpenAPI document describes: it validates against the 200 schema of its path, key order
// included. And the checker is not vacuous: a reply with its keys swapped, a number where the legacy reply
// has text, or an extra field is refused.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { openApiDocumentFor } from '../../src/commands/openapi.js';
import { SHIPPED_MAPPINGS_DIR } from '../../src/gateway/config.js';
import { openApiChecker, type OpenApiChecker } from '../helpers/openapi-check.js';

const GOLDEN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'golden');

interface GoldenFixture {
  legacy: string;
  expected: Record<string, unknown>;
}

const fixtures = readdirSync(GOLDEN)
  .filter((name) => name.endsWith('.json'))
  .sort()
  .map((name) => ({ name, fixture: JSON.parse(readFileSync(path.join(GOLDEN, name), 'utf8')) as GoldenFixture }));

let checker: OpenApiChecker;

beforeAll(async () => {
  checker = openApiChecker(await openApiDocumentFor(SHIPPED_MAPPINGS_DIR));
});

const asReply = (legacy: string, body: unknown) => ({ method: 'GET', path: legacy, status: 200, contentType: 'application/json; charset=utf-8', body });

it('has golden fixtures to check', () => {
  expect(fixtures.length).toBeGreaterThan(10);
});

describe.each(fixtures)('golden $name', ({ fixture }) => {
  it(`GET ${fixture.legacy}: the expected legacy reply validates against its path's 200 schema`, () => {
    expect(checker.pathOf(fixture.legacy)).toBeDefined();
    expect(checker.check(asReply(fixture.legacy, fixture.expected))).toEqual([]);
  });
});

describe('the checker refuses what the legacy reply never is', () => {
  const sessions = fixtures.find((f) => f.name === 'sessions.json')!.fixture;

  it('keys in another order', () => {
    const { status, total, timezone, response } = sessions.expected;
    const problems = checker.check(asReply(sessions.legacy, { status, timezone, total, response }));
    expect(problems.join('\n')).toMatch(/keys must come in the order status, total, timezone, response/);
  });

  it('a record field in another place', () => {
    const records = sessions.expected.response as Array<Record<string, unknown>>;
    const { id, ...rest } = records[0]!;
    const problems = checker.check(asReply(sessions.legacy, { ...sessions.expected, response: [{ ...rest, id }] }));
    expect(problems.join('\n')).toMatch(/\/response\/0 keys must come in the order id,/);
  });

  it('a number instead of text, an extra field, a missing total', () => {
    const records = sessions.expected.response as Array<Record<string, unknown>>;
    const numeric = { ...sessions.expected, response: [{ ...records[0], id: 5 }] };
    expect(checker.check(asReply(sessions.legacy, numeric)).join('\n')).toMatch(/\/response\/0\/id must be string,null/);
    const extra = { ...sessions.expected, response: [{ ...records[0], object: 'session' }] };
    expect(checker.check(asReply(sessions.legacy, extra)).join('\n')).toMatch(/additional properties: object/);
    const { total: _total, ...noTotal } = sessions.expected;
    expect(checker.check(asReply(sessions.legacy, noTotal)).join('\n')).toMatch(/must have required property 'total'/);
  });

  it('a path, a status or a content type the document does not describe', () => {
    expect(checker.check(asReply('/api/nosuchmethod/0/5', sessions.expected))).toEqual([expect.stringMatching(/no path of the document matches/)]);
    expect(checker.check({ ...asReply('/api/testimonials', {}), status: 404 })).toEqual([expect.stringMatching(/status 404 is not described/)]);
    expect(checker.check({ ...asReply(sessions.legacy, sessions.expected), contentType: 'text/html' })).toEqual([expect.stringMatching(/no text\/html content/)]);
  });
});
