// `legacy-gateway openapi`: loads the mappings and prints the OpenAPI 3.1 description of the legacy surface
// (JSON, or YAML with --yaml). It only reads the mappings and package.json; it never starts a server.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify as toYaml } from 'yaml';
import { SHIPPED_MAPPINGS_DIR } from '../gateway/config.js';
import { loadMappingDirectory } from '../gateway/loaders/mapping-files.js';
import { MappingSetError } from '../mapping/mapping-set.js';
import { buildOpenApiDocument, type OpenApiDocument } from '../legacy-surface/openapi/document.js';
import { mappingsRefusal } from './command-run.js';

/** package.json at the package root: two levels above src/commands/ or dist/commands/. */
const PACKAGE_JSON = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'package.json');

async function packageVersion(): Promise<string> {
  const data: unknown = JSON.parse(await readFile(PACKAGE_JSON, 'utf8'));
  const version = typeof data === 'object' && data !== null ? (data as { version?: unknown }).version : undefined;
  return typeof version === 'string' ? version : '0.0.0';
}

/** The document for a mappings directory; a MappingSetError when it cannot be loaded (or has no payment.yaml). */
export async function openApiDocumentFor(dir: string): Promise<OpenApiDocument> {
  const { reads, payment } = await loadMappingDirectory(dir);
  if (!payment) throw new MappingSetError([{ file: 'payment.yaml', path: '', reason: 'no payment mapping (kind: payment) in the mappings directory' }]);
  return buildOpenApiDocument({ reads, payment, version: await packageVersion() });
}

export async function runOpenApi(opts: { yaml?: boolean; mappings?: string }): Promise<void> {
  const dir = opts.mappings ?? (process.env.MAPPINGS_DIR || SHIPPED_MAPPINGS_DIR);
  let doc: OpenApiDocument;
  try {
    doc = await openApiDocumentFor(dir);
  } catch (err) {
    if (!(err instanceof MappingSetError)) throw err;
    process.stderr.write(`legacy-gateway openapi: ${mappingsRefusal(dir, err)}\n`);
    process.exitCode = 2;
    return;
  }
  process.stdout.write(opts.yaml ? toYaml(doc, { lineWidth: 0, aliasDuplicateObjects: false }) : `${JSON.stringify(doc, null, 2)}\n`);
}
