// The OpenAPI document of the legacy surface: a valid OpenAPI 3.1 document (@readme/openapi-parser: the
// 3.1 schema plus its own checks), every schema compiling under ajv's strict mode, one path per mapped
// method plus the payment and the gateway's own routes, generated from the mappings (a new mapping file
// adds a path), and saying what the engine and the payment contract do: paging limits, id and lookup
// parameters, envelopes, record fields, the payment form, body encodings, limit, header and codes.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { compileErrors, validate } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { SHIPPED_MAPPINGS_DIR } from '../../src/gateway/config.js';
import { loadMappingDirectory, type MappingDirectory } from '../../src/gateway/loaders/mapping-files.js';
import { buildOpenApiDocument } from '../../src/legacy-surface/openapi/document.js';
import type { JsonObject, JsonValue, OpenApiDocument } from '../../src/legacy-surface/openapi/types.js';
import { ALL_PAYMENT_CODES, REQUIRED_ALWAYS, REQUIRED_FOR_NEW_CLIENT } from '../../src/payment/contract.js';
import { openApiChecker } from '../helpers/openapi-check.js';

let shipped: MappingDirectory;
let doc: OpenApiDocument;

const build = (mappings: MappingDirectory): OpenApiDocument =>
  buildOpenApiDocument({ reads: mappings.reads, payment: mappings.payment, version: '9.9.9' });

beforeAll(async () => {
  shipped = await loadMappingDirectory(SHIPPED_MAPPINGS_DIR);
  doc = build(shipped);
});

/** `clients` of `/api/clients/{start}/{limit}`. */
const methodOf = (docPath: string): string | undefined => /^\/api\/([^/]+)/.exec(docPath)?.[1];

/** A value inside the document by its keys, failing the test when a step is missing. */
function at(value: JsonValue | OpenApiDocument, ...keys: string[]): JsonValue {
  let here = value as JsonValue;
  for (const key of keys) {
    const next: JsonValue | undefined = Array.isArray(here) ? here[Number(key)] : typeof here === 'object' && here !== null ? here[key] : undefined;
    if (next === undefined) throw new Error(`no ${keys.join(' > ')} (stopped at ${key})`);
    here = next;
  }
  return here;
}

const schemaOf = (name: string): JsonObject => at(doc, 'components', 'schemas', name) as JsonObject;

describe('the document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    // The parser dereferences what it is given: it gets a copy.
    const result = await validate(structuredClone(doc) as unknown as Parameters<typeof validate>[0]);
    expect(result.valid ? '' : compileErrors(result)).toBe('');
    expect(result.warnings).toEqual([]);
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.info.version).toBe('9.9.9');
  });

  it('has schemas ajv compiles in strict mode (2020-12, OpenAPI 3.1\'s dialect)', () => {
    expect(openApiChecker(doc).compileAll()).toBeGreaterThan(shipped.reads.size);
  });

  it('has one path per mapped method, plus /api/payment, /healthz and /readyz', () => {
    const paths = Object.keys(doc.paths);
    const methods = paths.map(methodOf).filter((m) => m !== undefined && m !== 'payment');
    expect(methods.sort()).toEqual([...shipped.reads.keys()].sort());
    expect(paths).toEqual(expect.arrayContaining(['/api/payment', '/healthz', '/readyz']));
    expect(paths).toHaveLength(shipped.reads.size + 3);
  });

  it('is the same for the same mappings (pure, deterministic)', async () => {
    expect(JSON.stringify(build(await loadMappingDirectory(SHIPPED_MAPPINGS_DIR)))).toBe(JSON.stringify(doc));
  });
});

describe('generated from the mappings', () => {
  let copy: string;
  beforeAll(() => {
    copy = mkdtempSync(path.join(tmpdir(), 'lgw-openapi-'));
    cpSync(SHIPPED_MAPPINGS_DIR, copy, { recursive: true });
  });
  afterAll(() => rmSync(copy, { recursive: true, force: true }));

  it('adding a method file to a copy of the mappings adds its path', async () => {
    // A copy of a paged method's file under a new method name: whatever record it names stays valid.
    const paged = readdirSync(copy)
      .filter((n) => n.endsWith('.yaml'))
      .map((n) => parseYaml(readFileSync(path.join(copy, n), 'utf8')) as Record<string, unknown>)
      .find((data) => data.paging !== undefined);
    expect(paged).toBeDefined();
    writeFileSync(path.join(copy, 'newlisting.yaml'), toYaml({ ...paged, method: 'newlisting', description: 'A listing added for the test' }));

    const grown = build(await loadMappingDirectory(copy));
    expect(Object.keys(grown.paths)).toHaveLength(Object.keys(doc.paths).length + 1);
    expect(grown.paths['/api/newlisting/{start}/{limit}']).toMatchObject({
      'x-accepted-paths': ['/api/newlisting', '/api/newlisting/{start}', '/api/newlisting/{start}/{limit}'],
      get: { summary: 'A listing added for the test' },
    });
    expect(grown.components.schemas['newlisting.record']).toBeDefined();
  });
});

describe('the read methods', () => {
  it('paged methods take optional /{start}/{limit}, with the mapping\'s default and maximum as schema keywords', () => {
    for (const mapping of shipped.reads.values()) {
      if (!('paging' in mapping)) continue;
      const params = at(doc, 'paths', `/api/${mapping.method}/{start}/{limit}`, 'get', 'parameters') as JsonObject[];
      expect(params.map((p) => [p.name, p.in, p.required])).toEqual([['start', 'path', true], ['limit', 'path', true]]);
      expect(params[1]!.schema).toEqual({ type: 'integer', minimum: 1, maximum: mapping.paging.max, default: mapping.paging.default });
      expect(params[0]!.schema).toMatchObject({ type: 'integer', minimum: 0, default: 0 });
    }
    const clients = at(doc, 'paths', '/api/clients/{start}/{limit}', 'get', 'parameters') as JsonObject[];
    expect(clients[1]!.schema).toMatchObject({ default: 1000, maximum: 1000 });
    const staffs = at(doc, 'paths', '/api/staffs/{start}/{limit}', 'get', 'parameters') as JsonObject[];
    expect(staffs[1]!.schema).toMatchObject({ default: 20, maximum: 100 });
  });

  it('details take one id segment; lookups take the exclusive and combinable query parameters; statics none', () => {
    expect(at(doc, 'paths', '/api/staff/{id}', 'get', 'parameters')).toEqual([expect.objectContaining({ name: 'id', in: 'path', required: true })]);
    const client = at(doc, 'paths', '/api/client', 'get', 'parameters') as JsonObject[];
    expect(client.map((p) => [p.name, p.in, p.required])).toEqual(
      ['id', 'email', 'username', 'first_name', 'last_name'].map((name) => [name, 'query', false]),
    );
    expect(at(doc, 'paths', '/api/testimonials', 'get')).not.toHaveProperty('parameters');
  });

  it('answers the statuses the engine answers: 400 everywhere, 404 for details and lookups, 501 for an operator file', () => {
    const statuses = (p: string) => Object.keys(at(doc, 'paths', p, 'get', 'responses') as JsonObject).sort();
    const upstream = ['200', '400', '401', '403', '429', '500', '502', '503', '504', 'default'];
    expect(statuses('/api/clients/{start}/{limit}')).toEqual(upstream.sort());
    expect(statuses('/api/staff/{id}')).toEqual([...upstream, '404'].sort());
    expect(statuses('/api/client')).toEqual([...upstream, '404'].sort());
    expect(statuses('/api/testimonials')).toEqual(['200', '400', '500', '501', '503']);
    expect(at(doc, 'paths', '/api/client', 'get', 'responses', '404', 'content', 'application/json', 'example')).toEqual({
      status: 'failure',
      response: 'client not found',
    });
  });

  it('describes the envelopes with their key order: timezone before response where the mapping has one', () => {
    expect(schemaOf('clients.reply')['x-key-order']).toEqual(['status', 'total', 'response']);
    expect(schemaOf('sessions.reply')['x-key-order']).toEqual(['status', 'total', 'timezone', 'response']);
    expect(schemaOf('session.reply')['x-key-order']).toEqual(['status', 'timezone', 'response']);
    expect(schemaOf('client.reply')['x-key-order']).toEqual(['status', 'response']);
    expect(schemaOf('testimonials.reply')['x-key-order']).toEqual(['status', 'response']);
    expect(schemaOf('legacy.failure')['x-key-order']).toEqual(['status', 'response']);
    for (const name of ['clients.reply', 'legacy.failure', 'payment.reply', 'session.record']) {
      expect(schemaOf(name).description).toMatch(/order is part of the contract/);
    }
  });

  it('lists every record field as a string, nullable unless its nulls are empty, saying where it comes from', () => {
    for (const mapping of shipped.reads.values()) {
      const record = schemaOf(`${mapping.method}.record`);
      expect(record['x-key-order']).toEqual(mapping.record.fields.map((f) => f.name));
      expect(record.required).toEqual(mapping.record.fields.map((f) => f.name));
      expect(record.additionalProperties).toBe(false);
      for (const field of mapping.record.fields) {
        const schema = at(record, 'properties', field.name) as JsonObject;
        const empty = (field.nulls ?? mapping.record.nulls) === 'empty' || field.derive !== undefined;
        expect(schema.type, `${mapping.method}.${field.name}`).toEqual(empty ? 'string' : ['string', 'null']);
        expect(schema.description).toMatch(/^(Copied|Renamed|Derived|Defaulted|Missing)\b/);
      }
    }
    const session = at(schemaOf('sessions.record'), 'properties') as JsonObject;
    expect(session.cancel_clients).toMatchObject({ type: 'string' });
    expect(at(session, 'session_start_time', 'description')).toMatch(/HH:MM/);
    expect(at(schemaOf('meetourstaff.record'), 'properties', 'staff_id', 'description')).toMatch(/^Renamed: v1's `id`/);
    expect(at(schemaOf('services.record'), 'properties', 'service_cost', 'description')).toMatch(/two decimals/);
  });

  it('marks every field of a record that is a guess as a whole, and a field guessed on its own line only there', () => {
    const wholeRecord = ['staff', 'practitioner', 'service', 'session'];
    for (const mapping of shipped.reads.values()) {
      const record = schemaOf(`${mapping.method}.record`);
      const whole = wholeRecord.includes(mapping.record.name);
      const why = `v1's ${mapping.record.name} record is not documented`;
      expect(record.description, mapping.method).toMatch(whole ? `The whole record is a guess about the real service, every field of it: ${why}` : /^(?!.*guess)/s);
      for (const field of mapping.record.fields) {
        const description = at(record, 'properties', field.name, 'description') as string;
        expect(description.includes(`Guess about the real service (the whole record is one): ${why}`), `${mapping.method}.${field.name}`).toBe(whole);
        expect(description.includes('Guess about the real service: '), `${mapping.method}.${field.name}`).toBe(field.guess !== undefined);
      }
    }
    expect(at(schemaOf('services.record'), 'properties', 'service_cost', 'description')).toBe(
      "Copied from v1's `service_cost`. Money with two decimals (45.5 -> \"45.50\"). Guess about the real service (the whole record is one): " +
        "v1's service record is not documented; field names are taken to be the legacy ones.",
    );
    expect(at(schemaOf('clients.record'), 'properties', 'id', 'description')).toBe("Copied from v1's `id`.");
  });
});

describe('POST /api/payment', () => {
  const post = () => at(doc, 'paths', '/api/payment', 'post') as JsonObject;

  it('takes the three body encodings, the body limit and the Idempotency-Key header', () => {
    const body = at(post(), 'requestBody') as JsonObject;
    expect(Object.keys(at(body, 'content') as JsonObject)).toEqual(['application/x-www-form-urlencoded', 'multipart/form-data', 'application/json']);
    expect(body.description).toMatch(/262144 bytes \(256 KB\)/);
    expect(post().parameters).toEqual([expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: false })]);
  });

  it('lists the form fields of payment.yaml and the contract\'s rules', () => {
    const form = schemaOf('payment.form');
    const names = Object.keys(form.properties as JsonObject);
    const mapping = shipped.payment!;
    const fromMapping = [
      ...mapping.payment.fields.map((f) => f.from),
      ...mapping.newClient.fields.map((f) => f.from),
      ...mapping.newClient.availability.days.flatMap((d) => [d.from, d.to]),
      'password2',
    ];
    expect(names.sort()).toEqual([...new Set(fromMapping)].sort());
    expect(form.required).toEqual([...REQUIRED_ALWAYS]);
    expect(at(form, 'anyOf')).toEqual([
      expect.objectContaining({ required: ['client_id'] }),
      expect.objectContaining({ required: [...REQUIRED_FOR_NEW_CLIENT] }),
    ]);
    expect(at(form, 'anyOf', '1', 'properties', 'status', 'enum')).toEqual(mapping.clientStatuses);
  });

  it('answers {"status","code","response"} with code a JSON integer over every legacy code, and each status the route answers', () => {
    const reply = schemaOf('payment.reply');
    expect(reply['x-key-order']).toEqual(['status', 'code', 'response']);
    expect(at(reply, 'properties', 'code')).toMatchObject({ type: 'integer', minimum: 0, maximum: 12 });
    expect(Math.max(...ALL_PAYMENT_CODES)).toBe(12);
    expect(Object.keys(at(post(), 'responses') as JsonObject).sort()).toEqual(
      ['200', '400', '401', '403', '409', '413', '415', '429', '500', '502', '503', '504', '5XX'].sort(),
    );
  });
});

describe('the gateway\'s own routes', () => {
  it('describes /healthz and /readyz without an API key', () => {
    expect(at(doc, 'paths', '/healthz', 'get', 'security')).toEqual([]);
    expect(Object.keys(at(doc, 'paths', '/readyz', 'get', 'responses') as JsonObject)).toEqual(['200', '503']);
  });
});
