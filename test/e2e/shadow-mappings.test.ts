// Shadow mappings (SHADOW_MAPPINGS_DIR) seen from outside: a gateway with a candidate set that differs in one
// field's default of one record view (the client detail's minTime) answers byte for byte as one without it,
// makes the same v1 calls (counted by the fake v1), and reports the difference for that method only, in its
// metrics and in SHADOW_DIFF_FILE (the field's path, no secret, the lookup value redacted); without it no
// shadow metric moves; a bad candidate set stops the start, naming the file.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MappingSetError } from '../../src/mapping/mapping-set.js';
import { get, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { json, startRecordingUpstream, v1List, type RecordingUpstream } from '../helpers/recording-upstream.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const scratch = mkdtempSync(path.join(tmpdir(), 'lgw-shadow-'));
const CANDIDATE = path.join(scratch, 'candidate');
const DIFF_FILE = path.join(scratch, 'out', 'shadow-diffs.jsonl');
const KEY = 'shadow-test-key-5f1c9a7e';
const EMAIL = 'ann.lee@example.com';

// The key shows up in a v1 record's text: it must be scrubbed from every reply the diff file holds.
const client = (id: number) => ({ object: 'client', id, first_name: 'Ann', last_name: 'Lee', email: EMAIL, username: 'ann', notes: `key ${KEY}`, timezone: 'UTC' });

let upstream: RecordingUpstream;
let plain: TestGateway;
let shadowed: TestGateway;

/** Every sample of a metric whose name starts `name{`, as `labels -> value`. */
async function samples(gateway: TestGateway, name: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${gateway.metricsUrl!}/metrics`)).text();
  const found = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const cut = line.lastIndexOf(' ');
    found.set(line.slice(name.length, cut), Number(line.slice(cut + 1)));
  }
  return found;
}
const nonZero = (m: Map<string, number>): Record<string, number> => Object.fromEntries([...m].filter(([, v]) => v !== 0));

beforeAll(async () => {
  cpSync(path.join(ROOT, 'mappings'), CANDIDATE, { recursive: true });
  const record = path.join(CANDIDATE, 'records', 'client.yaml');
  const text = readFileSync(record, 'utf8');
  expect(text).toContain('{ name: minTime, default: "08:00:00" }');
  writeFileSync(record, text.replace('{ name: minTime, default: "08:00:00" }', '{ name: minTime, default: "07:00:00" }'));
  upstream = await startRecordingUpstream((req, res) => {
    if (/^\/api\/v1\/clients\/\d+/.test(req.url)) return json(res, 200, client(1));
    if (req.url.startsWith('/api/v1/clients')) return json(res, 200, v1List([client(1), client(2)]));
    return json(res, 404, { error: { code: 'not_found', message: 'no such resource' } });
  });
  const common = { UPSTREAM_URL: upstream.url, METRICS_PORT: '0', CACHE_TTL_MS: '0', LOG_LEVEL: 'warn' };
  plain = await startTestGateway(common);
  shadowed = await startTestGateway({ ...common, SHADOW_MAPPINGS_DIR: CANDIDATE, SHADOW_DIFF_FILE: DIFF_FILE });
});
afterAll(async () => {
  await plain?.close();
  await shadowed?.close();
  await upstream?.close();
  rmSync(scratch, { recursive: true, force: true });
});

const CALLS = ['/api/clients/0/10', `/api/client?email=${encodeURIComponent(EMAIL)}`, '/api/client?id=1'];

describe('a gateway with shadow mappings', () => {
  it('answers with the same bytes and the same v1 calls as without them', async () => {
    for (const call of CALLS) {
      const before = upstream.received.length;
      const a = await get(plain.url, call, { 'x-api-key': KEY });
      const plainCalls = upstream.received.slice(before).map((r) => r.url);
      const between = upstream.received.length;
      const b = await get(shadowed.url, call, { 'x-api-key': KEY });
      const shadowCalls = upstream.received.slice(between).map((r) => r.url);
      expect(a.status, call).toBe(200);
      expect(b.status, call).toBe(200);
      expect(b.text, call).toBe(a.text);
      expect(shadowCalls, call).toEqual(plainCalls);
    }
    await shadowed.shadow!.idle();
    // The comparisons made no v1 call of their own.
    expect(upstream.received.length).toBe(2 * CALLS.length);
  });

  it('counts the difference for the changed method only, by kind', async () => {
    expect(nonZero(await samples(shadowed, 'legacy_gateway_shadow_reads_total'))).toEqual({
      '{method="clients",result="same"}': 1,
      '{method="client",result="different"}': 2,
    });
    expect(nonZero(await samples(shadowed, 'legacy_gateway_shadow_differences_total'))).toEqual({ '{method="client",kind="value"}': 2 });
    // Known methods and kinds are there from the start, at 0.
    const differences = await samples(shadowed, 'legacy_gateway_shadow_differences_total');
    expect(differences.get('{method="sessions",kind="key-order"}')).toBe(0);
  });

  it('moves no shadow metric without them', async () => {
    expect(nonZero(await samples(plain, 'legacy_gateway_shadow_reads_total'))).toEqual({});
    expect(nonZero(await samples(plain, 'legacy_gateway_shadow_differences_total'))).toEqual({});
  });

  it('writes a sample of the differing pairs to SHADOW_DIFF_FILE: the field, no secret, no lookup value', async () => {
    await shadowed.close();
    const text = readFileSync(DIFF_FILE, 'utf8');
    expect(text).not.toContain(KEY);
    const lines = text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, any>); // eslint-disable-line @typescript-eslint/no-explicit-any
    // At most one line per method per second: the two client reads made one.
    expect(lines).toHaveLength(1);
    const [line] = lines;
    expect(line!.request.method).toBe('GET');
    // The lookup value is redacted from the path (the replies are the caller's data, as RECORD_FILE keeps them).
    expect(line!.request.url).toBe('/api/client?email=[REDACTED]');
    expect(line!.response.status).toBe(200);
    expect(line!.shadow.legacyMethod).toBe('client');
    expect(line!.shadow.differences).toEqual([{ path: '$.response.minTime', kind: 'value', expected: '08:00:00', actual: '07:00:00' }]);
    expect(JSON.parse(line!.shadow.candidate.body as string).response.minTime).toBe('07:00:00');
    expect(JSON.parse(line!.response.body as string).response.notes).toBe('key [REDACTED]');
  });
});

describe('a reload (SIGHUP)', () => {
  it('reads SHADOW_MAPPINGS_DIR again: the candidate, fixed, now answers the same', async () => {
    const candidate = path.join(scratch, 'reloaded');
    cpSync(CANDIDATE, candidate, { recursive: true });
    const record = path.join(candidate, 'records', 'client.yaml');
    const gateway = await startTestGateway({ UPSTREAM_URL: upstream.url, METRICS_PORT: '0', CACHE_TTL_MS: '0', LOG_LEVEL: 'warn', SHADOW_MAPPINGS_DIR: candidate });
    try {
      const read = async (): Promise<void> => {
        expect((await get(gateway.url, '/api/client?id=1', { 'x-api-key': KEY })).status).toBe(200);
        await gateway.shadow!.idle();
      };
      await read();
      writeFileSync(record, readFileSync(record, 'utf8').replace('{ name: minTime, default: "07:00:00" }', '{ name: minTime, default: "08:00:00" }'));
      // What SIGHUP runs (serve.ts): MAPPINGS_DIR first, then the candidate set registered beside it.
      const result = await gateway.reloads.reload();
      expect(result.sets.map((s) => [s.set, s.result])).toEqual([
        ['MAPPINGS_DIR', 'ok'],
        ['SHADOW_MAPPINGS_DIR', 'ok'],
      ]);
      await read();
      expect(nonZero(await samples(gateway, 'legacy_gateway_shadow_reads_total'))).toEqual({
        '{method="client",result="different"}': 1,
        '{method="client",result="same"}': 1,
      });
    } finally {
      await gateway.close();
    }
  });
});

describe('a bad candidate set', () => {
  it('stops the start, naming the file', async () => {
    const bad = path.join(scratch, 'bad');
    cpSync(path.join(ROOT, 'mappings'), bad, { recursive: true });
    writeFileSync(path.join(bad, 'clients.yaml'), 'method: clients\nkind: list\n');
    const started = startTestGateway({ UPSTREAM_URL: upstream.url, SHADOW_MAPPINGS_DIR: bad, LOG_LEVEL: 'silent' });
    await expect(started).rejects.toBeInstanceOf(MappingSetError);
    await expect(started).rejects.toThrow(path.join(bad, 'clients.yaml'));
  });
});
