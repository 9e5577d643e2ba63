// Golden fixtures: for each legacy read method, the v1 reply the sandbox gives (pinned here, so a change in
// the demo data fails loudly instead of silently changing the expectation) and the exact legacy reply the
// gateway must write for it, byte for byte. The fixtures are JSON files beside this test; README.md says
// how they were made and how to review one.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_KEYS, startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { get, startTestGateway, type TestGateway } from '../helpers/gateway.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..', '..');

/** The 13 legacy read methods; every one has a fixture `<method>.json`. */
const READ_METHODS = [
  'clients', 'client', 'staffs', 'staff', 'meetourstaff', 'practitioners', 'practitioner', 'meetourteam',
  'services', 'service', 'sessions', 'session', 'testimonials',
];

interface V1Exchange {
  /** v1 path and query, as the gateway sends it. */
  request: string;
  /** Set for team listings: the stored reply keeps only these fields of each `data` record. */
  onlyFields?: string[];
  reply: Record<string, unknown>;
}

interface GoldenFixture {
  /** Legacy path and query sent to the gateway. */
  legacy: string;
  /** The v1 calls the gateway makes for it, in order, with the sandbox's replies. */
  v1?: V1Exchange[];
  /** For methods served from an operator file: that file, relative to the repository root. */
  source?: string;
  /** The legacy reply; the gateway must write exactly JSON.stringify(expected). */
  expected: unknown;
}

const fixtures = readdirSync(HERE)
  .filter((name) => name.endsWith('.json'))
  .sort()
  .map((name) => ({
    method: name.slice(0, -'.json'.length),
    fixture: JSON.parse(readFileSync(path.join(HERE, name), 'utf8')) as GoldenFixture,
  }));

const TESTIMONIALS_FILE = path.join(ROOT, 'test', 'fixtures', 'testimonials.json');

let sandbox: RunningSandbox;
let gateway: TestGateway;

beforeAll(async () => {
  sandbox = await startSandbox();
  gateway = await startTestGateway({
    UPSTREAM_URL: sandbox.url,
    UPSTREAM_API_KEY: SANDBOX_KEYS.primary,
    TESTIMONIALS_FILE,
  });
});
afterAll(async () => {
  await gateway?.close();
  await sandbox?.close();
});

/** A v1 reply cut down the way a fixture stores it. */
function asStored(reply: Record<string, unknown>, onlyFields: string[] | undefined): Record<string, unknown> {
  if (onlyFields === undefined) return reply;
  const data = (reply.data as Record<string, unknown>[]).map((record) =>
    Object.fromEntries(onlyFields.map((field) => [field, record[field]])),
  );
  return { ...reply, data };
}

function pathAndQuery(url: string): { path: string; query: Record<string, string> } {
  const u = new URL(url, 'http://v1.invalid');
  return { path: u.pathname, query: Object.fromEntries(u.searchParams) };
}

it('has one fixture per legacy read method', () => {
  expect(fixtures.map((f) => f.method).sort()).toEqual([...READ_METHODS].sort());
});

describe.each(fixtures)('golden $method', ({ method, fixture }) => {
  it(`the sandbox still gives the recorded v1 replies`, async () => {
    if (fixture.source !== undefined) {
      // No v1 call: the operator's file is the source, and it is the file this gateway was given.
      expect(path.join(ROOT, fixture.source)).toBe(TESTIMONIALS_FILE);
      expect(fixture.v1).toBeUndefined();
      return;
    }
    expect(fixture.v1?.length).toBeGreaterThan(0);
    for (const exchange of fixture.v1 ?? []) {
      const live = await get(sandbox.url, exchange.request, { 'X-API-KEY': SANDBOX_KEYS.primary });
      expect(live.status, exchange.request).toBe(200);
      expect(asStored(live.body as Record<string, unknown>, exchange.onlyFields), exchange.request).toEqual(exchange.reply);
    }
  });

  it(`GET ${fixture.legacy} answers exactly the expected legacy reply`, async () => {
    const before = sandbox.state.requests.length;
    const reply = await get(gateway.url, fixture.legacy);

    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
    expect(reply.text).toBe(JSON.stringify(fixture.expected));

    // ... and it asked v1 exactly the recorded calls, with a key (none at all for an operator file).
    const made = sandbox.state.requests.slice(before).map((r) => ({ method: r.method, path: r.path, query: r.query, apiKey: r.apiKey }));
    const recorded = (fixture.v1 ?? []).map((e) => ({ method: 'GET', ...pathAndQuery(e.request), apiKey: true }));
    expect(made, method).toEqual(recorded);
  });
});
