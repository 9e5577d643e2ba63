// The migration guide against the mappings it is generated from: for clients, client, meetourteam and
// payment, every row the guide shows is checked against the mapping objects themselves (never against copied
// text): the fields in legacy order with their v1 source and conversion, the paging, the team listing's
// page size and sort, /api/client's precedence and filters, the payment's bodies and code rules. A copy of the
// mappings with a field renamed and a page maximum changed gives a guide that says so. The guide's Markdown
// for clients and payment is compared with its golden file (written anew with UPDATE_GOLDEN=1).
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { loadMappingDirectorySync, type MappingDirectory } from '../../../src/gateway/loaders/mapping-files.js';
import { classifyField } from '../../../src/mapping/coverage.js';
import type { LookupMapping, Mapping, SortedListMapping } from '../../../src/mapping/schema.js';
import { integrationCalls } from '../../../src/migration-guide/call-shapes.js';
import { plainTextOf, type Block, type GuideDocument, type TableRow } from '../../../src/migration-guide/document.js';
import { buildMigrationGuide } from '../../../src/migration-guide/guide.js';
import { renderHtml } from '../../../src/migration-guide/html.js';
import { renderMarkdown } from '../../../src/migration-guide/markdown.js';
import { PAYMENT_CODES } from '../../../src/payment/codes.js';
import type { PaymentMapping } from '../../../src/payment/payment-mapping.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SHIPPED = path.join(ROOT, 'mappings');
const GOLDEN = path.join(ROOT, 'test/golden/migration-guide/clients-payment.md');
const BASES = { legacy: 'https://legacy.example.com', v1: 'https://api.example.com' };

const shipped = loadMappingDirectorySync(SHIPPED);
const payment = shipped.payment as PaymentMapping;

function guideOf(dir: MappingDirectory, methods: string[], usage?: Parameters<typeof integrationCalls>[0]): GuideDocument {
  return buildMigrationGuide({ reads: dir.reads, payment: dir.payment, methods, bases: BASES, integration: usage && integrationCalls(usage) });
}

const tables = (doc: GuideDocument) => doc.blocks.filter((b): b is Extract<Block, { kind: 'table' }> => b.kind === 'table');
const tableHeaded = (doc: GuideDocument, first: string) => tables(doc).filter((t) => t.header[0] === first);
const cellsOf = (row: TableRow): string[] => row.cells.map(plainTextOf);
const textOf = (doc: GuideDocument): string =>
  doc.blocks.map((b) => (b.kind === 'code' ? b.lines.join('\n') : b.kind === 'list' ? b.items.map(plainTextOf).join('\n') : b.kind === 'table' ? b.rows.map((r) => cellsOf(r).join(' | ')).join('\n') : plainTextOf(b.text))).join('\n');

const read = (name: string): Mapping => shipped.reads.get(name)!;

/** The field table's rows against the method's record: names in order, v1 source, conversion words. */
function expectFieldRows(m: Mapping, doc: GuideDocument): void {
  const [table] = tables(doc).filter((t) => t.header[1] === 'Legacy field');
  const rows = table!.rows.map(cellsOf);
  expect(rows.map((r) => r[1])).toEqual(m.record.fields.map((f) => f.name));
  m.record.fields.forEach((f, i) => {
    const [, , v1, conversion] = rows[i]!;
    const { source } = classifyField(f);
    const guess = f.guess ? ` (a guess: ${f.guess})` : '';
    const format = f.format === 'money' ? 'money with 2 decimals' : f.format === 'hhmm' ? 'time HH:MM' : 'stringified';
    if (source === 'missing') expect([v1, conversion]).toEqual(['—', `not available in v1: always null${guess}`]);
    else if (source === 'defaulted') expect([v1, conversion]).toEqual(['—', `defaulted to ${JSON.stringify(f.default)}: not available in v1${guess}`]);
    else if (source === 'renamed') expect([v1, conversion]).toEqual([f.from, `renamed from ${f.from}, ${format}${guess}`]);
    else {
      expect(source).toBe('copied');
      expect([v1, conversion]).toEqual([f.name, `copied, ${format}${guess}`]);
    }
  });
}

describe('the guide of a read method, from its mapping', () => {
  it('clients: one v1 page per call, start -> offset, its limit default and maximum, every list field', () => {
    const m = read('clients') as Extract<Mapping, { kind: 'list' }>;
    const doc = guideOf(shipped, ['clients']);
    const [calls] = tableHeaded(doc, 'Legacy call');
    expect(calls!.rows.map(cellsOf)).toEqual([[`GET /api/clients/{start}/{limit}`, `GET /api/v1/${m.source.resource}?offset={start}&limit={limit}`]]);
    const text = textOf(doc);
    expect(text).toContain(`limit (default ${m.paging.default}, at most ${m.paging.max}: a larger one was cut to ${m.paging.max}) stays limit`);
    expect(text).toContain(`"$LEGACY_BASE_URL/api/clients/0/${m.paging.default}"`);
    expect(text).toContain(`"$V1_BASE_URL/api/v1/${m.source.resource}?offset=0&limit=${m.paging.default}"`);
    expectFieldRows(m, doc);
  });

  it('client: the precedence of its keys, each with the v1 request and the check of its mapping, and every detail field', () => {
    const m = read('client') as LookupMapping;
    const doc = guideOf(shipped, ['client']);
    const [precedence] = tableHeaded(doc, 'Precedence');
    const rows = precedence!.rows.map(cellsOf);
    expect(rows).toHaveLength(m.exclusive.length + (m.combinable.length > 0 ? 1 : 0));
    m.exclusive.forEach((key, i) => {
      const [order, legacy, v1] = rows[i]!;
      expect(order).toMatch(/^1: /);
      expect(legacy).toBe(`GET /api/client?${key.param}={${key.param}}`);
      if (key.via === 'detail') expect(v1).toBe(`GET /api/v1/${m.source.resource}/{${key.param}}`);
      else expect(v1).toBe(`GET /api/v1/${m.source.resource}?${key.filter}={${key.param}}&offset=0&limit=${m.source.pageSize}`);
    });
    const [order, legacy, v1, found] = rows[m.exclusive.length]!;
    expect(order).toMatch(/^2: /);
    expect(legacy).toBe(`GET /api/client?${m.combinable.map((k) => `${k.param}={${k.param}}`).join('&')}`);
    expect(v1).toContain(m.combinable.map((k) => `${k.filter}={${k.param}}`).join('&'));
    expect(found).toContain(`up to ${m.source.maxPages} pages`);
    expect(textOf(doc)).toContain(`Of ${m.exclusive.map((k) => k.param).join(', ')}, the first to appear in the query string wins`);
    expect(textOf(doc)).toContain(m.notFound);
    expect(precedence!.rows.some((r) => r.highlight)).toBe(false);
    expectFieldRows(m, doc);
  });

  it('client, for an integration: the rows of the keys its call shapes use are highlighted, its shapes are the examples', () => {
    const m = read('client') as LookupMapping;
    const filterKey = m.exclusive.find((k) => k.via === 'filter')!;
    const doc = guideOf(shipped, ['client'], { fingerprint: 'f'.repeat(64), name: 'crm-sync', methods: { client: 3 }, shapes: { [`client?${filterKey.param}`]: 3 } });
    const [precedence] = tableHeaded(doc, 'Precedence');
    const highlighted = precedence!.rows.filter((r) => r.highlight).map((r) => cellsOf(r)[1]);
    expect(highlighted).toEqual([`GET /api/client?${filterKey.param}={${filterKey.param}}`]);
    const examples = doc.blocks.filter((b) => b.kind === 'code').at(-1) as Extract<Block, { kind: 'code' }>;
    expect(examples.lines.filter((l) => l.startsWith('curl'))).toEqual([
      `curl -sS -H "X-API-KEY: $LEGACY_API_KEY" "$LEGACY_BASE_URL/api/client?${filterKey.param}=example"`,
      `curl -sS -H "X-API-KEY: $V1_API_KEY" -H 'Accept: application/json' "$V1_BASE_URL/api/v1/${m.source.resource}?${filterKey.filter}=example&offset=0&limit=${m.source.pageSize}"`,
    ]);
    expect(doc.title).toBe('Moving crm-sync from the legacy API to v1');
    expect(textOf(doc)).toContain(`This integration called it 3 times, in these shapes: client?${filterKey.param} (3)`);
  });

  it('meetourteam: every page read at the mapping\'s page size, sorted by its keys, then cut', () => {
    const m = read('meetourteam') as SortedListMapping;
    const doc = guideOf(shipped, ['meetourteam']);
    const { pageSize, maxPages, resource } = m.source;
    const [calls] = tableHeaded(doc, 'Legacy call');
    expect(cellsOf(calls!.rows[0]!)[1]).toBe(`GET /api/v1/${resource}?offset=0&limit=${pageSize}, then offset=${pageSize}, offset=${2 * pageSize}, … while has_more is true; sort; cut`);
    const text = textOf(doc);
    const sortWords = m.sort.map((k) => `${k.field} (${k.type === 'number' ? 'as a number' : 'as text, ignoring case and accents'}, records without one ${k.nulls})`).join(', then ');
    expect(text).toContain(`the legacy listing is ordered by ${sortWords}`);
    expect(text).toContain(`takes ⌈N / ${pageSize}⌉ v1 calls (the gateway gave up after ${maxPages} pages, ${maxPages * pageSize} records)`);
    expect(text).toContain(`limit (default ${m.paging.default}, at most ${m.paging.max}: a larger one was cut to ${m.paging.max}) how many`);
    expect(text).toContain(`sort by ${m.sort.map((k) => k.field).join(', ')}; keep records 0 to ${m.paging.default - 1}`);
    expectFieldRows(m, doc);
  });
});

describe('the guide of the payment, from payment.yaml', () => {
  const doc = guideOf(shipped, ['payment']);

  it('maps every legacy field to its v1 body field, the new client\'s and the payment\'s', () => {
    const [bodies] = tableHeaded(doc, 'Legacy field');
    const rows = bodies!.rows.map(cellsOf).map(([from, request, to]) => [from, request, to]);
    const { availability } = payment.newClient;
    expect(rows).toEqual([
      ...payment.newClient.fields.map((f) => [f.from, `POST /api/v1/${payment.resources.clients}`, f.to]),
      ...availability.days.map((d) => [`${d.from}, ${d.to}`, `POST /api/v1/${payment.resources.clients}`, `${availability.to}[]`]),
      ...payment.payment.fields.map((f) => [f.from, `POST /api/v1/${payment.resources.payments}`, f.to]),
    ]);
  });

  it('turns v1 errors into legacy codes by the mapping\'s rules, in order, and lists every code 0 to 12', () => {
    const [errors] = tableHeaded(doc, 'v1 request');
    const codes = errors!.rows.map((r) => Number(cellsOf(r)[2]!.split(' ')[0]));
    expect(codes).toEqual([...payment.newClient.errors, ...payment.payment.refusals].map((r) => r.code));
    const [table] = tableHeaded(doc, 'Code');
    expect(table!.rows.map((r) => Number(cellsOf(r)[0]))).toEqual(Object.values(PAYMENT_CODES).sort((a, b) => a - b));
  });

  it('advises an Idempotency-Key, and its example sends the v1 body the gateway would, the key read from the environment', () => {
    const text = textOf(doc);
    expect(text).toContain('Send an Idempotency-Key header with every payment');
    const amount = payment.payment.fields.find((f) => f.from === 'revenue_amount')!.to;
    const body = JSON.parse(/-d '([^']*)'/.exec(text)![1]!) as Record<string, unknown>;
    expect(body[amount]).toBe(10);
    expect(body.timezone).toBe(payment.timezone.fallback);
    expect(text).toContain(`"$V1_BASE_URL/api/v1/${payment.resources.payments}"`);
    expect(text).toMatch(/X-API-KEY: \$LEGACY_API_KEY/);
  });

  it('for an integration whose payments got codes: says which, and highlights their rows; its calls\' statuses in the introduction', () => {
    const refused = payment.payment.refusals[0]!.code;
    const usage = { fingerprint: 'f'.repeat(64), name: 'billing', methods: { payment: 5 }, statuses: { '200': 5, x: 1 }, paymentCodes: { [String(refused)]: 1, '0': 4, bad: 2 } };
    const forIt = guideOf(shipped, ['payment'], usage);
    const name = (n: number) => Object.entries(PAYMENT_CODES).find(([, c]) => c === n)![0];
    const text = textOf(forIt);
    expect(text).toContain(`This integration called it 5 times; the gateway answered with the codes 0 ${name(0)} (4), ${refused} ${name(refused)} (1). Their rows are highlighted.`);
    expect(text).toContain('The gateway answered its legacy calls with the HTTP statuses 200 (5).');
    const [table] = tableHeaded(forIt, 'Code');
    expect(table!.rows.filter((r) => r.highlight).map((r) => Number(cellsOf(r)[0]))).toEqual([0, refused].sort((a, b) => a - b));
    const [errors] = tableHeaded(forIt, 'v1 request');
    // A rule's row is highlighted exactly when its code is one the payments got.
    const rules = errors!.rows.map((r) => [Number(cellsOf(r)[2]!.split(' ')[0]), r.highlight === true] as const);
    expect(rules.some(([, lit]) => lit)).toBe(true);
    for (const [n, lit] of rules) expect(lit, String(n)).toBe(n === 0 || n === refused);
    // Without counts of codes: the call count alone, nothing highlighted.
    const plain = guideOf(shipped, ['payment'], { fingerprint: 'f'.repeat(64), methods: { payment: 2 } });
    expect(textOf(plain)).toContain('This integration called it 2 times.');
    expect(tables(plain).flatMap((t) => t.rows).some((r) => r.highlight)).toBe(false);
  });
});

describe('a changed mapping', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'lgw-guide-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('changes the guide: a renamed field and a new page maximum show', () => {
    cpSync(SHIPPED, dir, { recursive: true });
    const record = path.join(dir, 'records/client.yaml');
    writeFileSync(record, readFileSync(record, 'utf8').replace('  - { name: city }\n', '  - { name: city, from: town }\n'));
    const clients = path.join(dir, 'clients.yaml');
    writeFileSync(clients, readFileSync(clients, 'utf8').replace('paging: { default: 1000, max: 1000 }', 'paging: { default: 200, max: 500 }'));
    const changed = loadMappingDirectorySync(dir);
    const before = renderMarkdown(guideOf(shipped, ['clients']));
    const after = renderMarkdown(guideOf(changed, ['clients']));
    expect(after).not.toBe(before);
    expect(after).toContain('| `city` | `town` | renamed from `town`, stringified |');
    expect(before).toContain('| `city` | `city` | copied, stringified |');
    expect(after).toContain('`limit` (default 200, at most 500: a larger one was cut to 500)');
    expect(after).toContain('/api/v1/clients?offset=0&limit=200"');
    expectFieldRows(changed.reads.get('clients')!, guideOf(changed, ['clients']));
  });
});

describe('the renderers', () => {
  it('escape whatever a mapping says: HTML holds no markup of it, Markdown no live tag', () => {
    const m = structuredClone(read('clients'));
    m.description = 'Clients <img src=x onerror=alert(1)> & "friends" | pipes';
    const reads = new Map(shipped.reads).set('clients', m);
    const doc = buildMigrationGuide({ reads, payment, methods: ['clients'], bases: BASES });
    const html = renderHtml(doc);
    expect(html).not.toContain('<img');
    expect(html).toContain('Clients &lt;img src=x onerror=alert(1)&gt; &amp; &quot;friends&quot; | pipes.');
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).not.toMatch(/<script|<link|src="http/);
    expect(renderMarkdown(doc)).toContain('Clients \\<img src=x onerror=alert(1)\\> \\& "friends" \\| pipes.');
  });

  it('keep the golden Markdown of clients and payment true', () => {
    const text = renderMarkdown(buildMigrationGuide({ ...shipped, methods: ['clients', 'payment'], bases: BASES, mappingsDigest: undefined }));
    if (process.env.UPDATE_GOLDEN === '1') writeFileSync(GOLDEN, text);
    expect(text).toBe(readFileSync(GOLDEN, 'utf8'));
  });
});
