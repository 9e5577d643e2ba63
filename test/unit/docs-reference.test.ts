// The reference pages in docs/ against the code they describe, read as files (no server): every setting the
// gateway reads is a row of docs/configuration.md's table, once; every command of the CLI has its section in
// docs/cli.md, naming each of its options; every metric the gateway registers is a row of docs/operations.md's
// metrics table, once; every error code is a row of docs/legacy-api.md's error table, once, with its HTTP
// status. The README stays a front page (at most 300 lines), and the files the pages name exist. Links between
// the pages are checked with the runbooks' in test/deploy/docs.test.ts.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ENVIRONMENT_NAMES } from '../../src/gateway/config.js';
import { createPrometheusMetrics } from '../../src/gateway/metrics/prometheus.js';
import { paymentFieldNames } from '../../src/payment/legacy-fields.js';
import { paymentMappingSchema } from '../../src/payment/payment-mapping.js';
import { ERROR_CODES } from '../../src/shared/errors.js';
import { parse } from 'yaml';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (file: string): string => readFileSync(path.join(ROOT, file), 'utf8');
const PAGES = ['README.md', ...readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** A table row's cells, trimmed (`\|` inside a cell is not a separator). */
const cells = (row: string): string[] => row.split(/(?<!\\)\|/).slice(1, -1).map((cell) => cell.trim());

/** The rows of the one table of `file` whose header row begins with `header`, as cells. */
function tableRows(file: string, header: string): string[][] {
  const lines = read(file).split('\n');
  const starts = lines.flatMap((line, i) => (line.startsWith(header) ? [i] : []));
  expect(starts, `${file}: one table headed "${header}"`).toHaveLength(1);
  const rows: string[][] = [];
  for (let i = (starts[0] ?? 0) + 2; lines[i]?.startsWith('|'); i += 1) rows.push(cells(lines[i] ?? ''));
  return rows;
}

/** How many rows have `name` (in backticks) as their first cell, for each name; and the first cells that are
 * none of the names. */
function rowCounts(rows: string[][], names: readonly string[]): { counts: Record<string, number>; unknown: string[] } {
  const firstCells = rows.map((row) => row[0] ?? '');
  const counts = Object.fromEntries(names.map((name) => [name, firstCells.filter((cell) => cell === `\`${name}\``).length]));
  const unknown = firstCells.filter((cell) => !names.some((name) => cell === `\`${name}\``));
  return { counts, unknown };
}

/** The text of the `## ` section of a page whose heading line is `heading`, up to the next `## `. */
function section(file: string, heading: string): string | undefined {
  const text = read(file);
  const start = text.split('\n').indexOf(heading);
  if (start < 0) return undefined;
  const rest = text.split('\n').slice(start + 1);
  const end = rest.findIndex((line) => line.startsWith('## '));
  return rest.slice(0, end < 0 ? undefined : end).join('\n');
}

describe('docs/configuration.md', () => {
  it('has one row for every environment variable the gateway reads, and no other', () => {
    const names = Object.values(ENVIRONMENT_NAMES);
    const { counts, unknown } = rowCounts(tableRows('docs/configuration.md', '| Variable |'), names);
    expect(counts).toEqual(Object.fromEntries(names.map((name) => [name, 1])));
    expect(unknown).toEqual([]);
  });

  it("names every option of the library, the settings it picks from the environment's", () => {
    const library = read('src/gateway/library.ts');
    const picked = /\.pick\(\{([^}]*)\}\)/.exec(library)?.[1] ?? '';
    const options = [...picked.matchAll(/(\w+): true/g)].map(([, name]) => name ?? '');
    expect(options.length).toBeGreaterThan(0);
    const page = section('docs/configuration.md', '## As a library') ?? '';
    for (const option of ['upstreamUrl', ...options, 'logger', 'metrics']) expect(page, option).toContain(`\`${option}\``);
  });
});

describe('docs/cli.md', () => {
  const program = read('src/commands/program.ts');
  const replay = read('src/commands/replay.ts');
  // Each command of the program, with the source that declares its options.
  const commands = [
    ...program.split(/\n(?=\s*program\s*\n\s*\.command\()/).flatMap((block) => {
      const name = /\.command\('([a-z-]+)'\)/.exec(block)?.[1];
      return name ? [{ name, source: block }] : [];
    }),
    ...[...replay.matchAll(/new ReplayCommand\('([a-z-]+)'\)/g)].map(([, name]) => ({ name: name ?? '', source: replay })),
  ];

  it('finds the commands of the command line (src/commands/program.ts), each with its module in src/commands/', () => {
    expect(commands.map((c) => c.name)).toEqual(expect.arrayContaining(['serve', 'sandbox', 'check', 'coverage', 'routes', 'openapi', 'replay']));
    for (const { name } of commands) expect(existsSync(path.join(ROOT, 'src/commands', `${name}.ts`)), name).toBe(true);
  });

  it('gives every command one section, naming each of its options', () => {
    const headings = read('docs/cli.md').split('\n').filter((line) => /^## `legacy-gateway /.test(line));
    expect(headings.sort()).toEqual(commands.map(({ name }) => `## \`legacy-gateway ${name}\``).sort());
    for (const { name, source } of commands) {
      const text = section('docs/cli.md', `## \`legacy-gateway ${name}\``) ?? '';
      const flags = [...source.matchAll(/(?:\.option|new Option)\('(?:-\w, )?(--[a-z0-9-]+)/g)].map(([, flag]) => flag ?? '');
      for (const flag of flags) expect(text, `${name} ${flag}`).toMatch(new RegExp(`${flag}(?![a-z-])`));
    }
  });
});

describe('docs/operations.md', () => {
  it('has one row of the metrics table for every metric the gateway registers, and no other', async () => {
    const metrics = createPrometheusMetrics({ legacyMethods: [], processMetrics: false, redis: true });
    // The claims' gauge is registered once a shared store of claims is named, as a replica with one does.
    metrics.claimStore(() => true);
    const { registry } = metrics;
    const names = (await registry.getMetricsAsJSON()).map((metric) => metric.name);
    expect(names.length).toBeGreaterThan(0);
    const { counts, unknown } = rowCounts(tableRows('docs/operations.md', '| Metric |'), names);
    expect(counts).toEqual(Object.fromEntries(names.map((name) => [name, 1])));
    expect(unknown).toEqual([]);
  });
});

describe('docs/legacy-api.md', () => {
  it('has one row of the error table for every error code, with its HTTP status, and no other', () => {
    const rows = tableRows('docs/legacy-api.md', '| Code | HTTP |');
    const codes = Object.keys(ERROR_CODES);
    const { counts, unknown } = rowCounts(rows, codes);
    expect(counts).toEqual(Object.fromEntries(codes.map((code) => [code, 1])));
    expect(unknown).toEqual([]);
    for (const [code, { status }] of Object.entries(ERROR_CODES)) {
      const row = rows.find((cellsOfRow) => cellsOfRow[0] === `\`${code}\``);
      expect(row?.[1], code).toBe(status === 0 ? "v1's" : String(status));
    }
  });
});

describe("docs/legacy-api.md's payment fields", () => {
  const mapping = paymentMappingSchema.parse(parse(read('mappings/payment.yaml')));
  const rows = tableRows('docs/legacy-api.md', '| Field | Type | Required | At v1 |');
  /** The field names of a row: every name in backticks of its first cell. */
  const namesOf = (row: string[]): string[] => [...(row[0] ?? '').matchAll(/`([^`]+)`/g)].map(([, name]) => name ?? '');
  const rowOf = (name: string): string[] | undefined => rows.find((row) => namesOf(row).includes(name));

  it('lists every field the payment reads (mappings/payment.yaml, and the checks), once, and no other', () => {
    const listed = rows.flatMap(namesOf);
    expect([...listed].sort()).toEqual([...paymentFieldNames(mapping)].sort());
  });

  it("names, for each field sent to v1, its v1 name and the body it goes in", () => {
    const bodies = [
      { post: `POST /${mapping.resources.payments}`, fields: mapping.payment.fields },
      { post: `POST /${mapping.resources.clients}`, fields: mapping.newClient.fields },
    ];
    for (const { post, fields } of bodies) {
      for (const field of fields) {
        const atV1 = rowOf(field.from)?.[3] ?? '';
        expect(atV1, field.from).toContain(`\`${field.to}\``);
        expect(atV1, field.from).toContain(`\`${post}\``);
      }
    }
    const { availability } = mapping.newClient;
    for (const day of availability.days) {
      expect(rowOf(day.from), day.from).toBe(rowOf(day.to));
      expect(rowOf(day.from)?.[3], day.from).toContain(`\`${availability.to}[]\` of \`POST /${mapping.resources.clients}\`: \`{"day":"${day.day}"`);
    }
  });
});

describe('the pages', () => {
  it('keep the README a front page of at most 300 lines', () => {
    expect(read('README.md').split('\n').length).toBeLessThanOrEqual(300);
  });

  it('name only files of the repository', () => {
    const named = PAGES.flatMap((page) =>
      [...read(page).matchAll(/`((?:src|test|bench|mappings|replay-rules)\/[\w./-]+)`/g)].map(([, name]) => ({ page, name: name ?? '' })),
    );
    expect(named.length).toBeGreaterThan(10);
    for (const { page, name } of named) expect(existsSync(path.join(ROOT, name)), `${page}: ${name}`).toBe(true);
  });

  it("name, in docs/architecture.md's walk through the files, only source files that exist", () => {
    const sources = ['src', 'bench'].flatMap((dir) =>
      (readdirSync(path.join(ROOT, dir), { recursive: true }) as string[]).map((file) => `${dir}/${file.split(path.sep).join('/')}`),
    );
    const names = [...read('docs/architecture.md').matchAll(/`([\w./*-]+\.ts)`/g)].map(([, name]) => name ?? '');
    expect(names.length).toBeGreaterThan(20);
    for (const name of names) {
      const pattern = new RegExp(`(^|/)${name.replace(/[.]/g, '\\.').replace(/\*/g, '[^/]*')}$`);
      expect(sources.some((file) => pattern.test(file)), name).toBe(true);
    }
  });
});
