// Reads deploy/kubernetes/ for kubernetes.test.ts and checks objects against the Kubernetes API's own schemas,
// as kubernetes-models generates them from the upstream OpenAPI document, in two ways:
// - its validators (ajv code compiled from the JSON schemas): required fields, types, formats and enums;
// - its TypeScript declarations, through the TypeScript compiler: each object becomes an object literal that
//   must satisfy the kind's interface, so a field the API does not have (a misspelt `readinesProbe`, a
//   `terminationGracePeriodSeconds` put in a container), which the JSON schemas let through, is an error.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { parseAllDocuments } from 'yaml';
import { DEPLOY, ROOT, type Json, type JsonObject } from './compose-files.js';

export const KUBERNETES = path.join(DEPLOY, 'kubernetes');

export interface KubeObject extends JsonObject {
  apiVersion: string;
  kind: string;
  metadata: JsonObject & { name: string };
}

/** Every YAML document of a manifest file. */
export function readManifests(file: string): KubeObject[] {
  const docs = parseAllDocuments(readFileSync(path.join(KUBERNETES, file), 'utf8'));
  return docs.map((doc, i) => {
    if (doc.errors.length > 0) throw new Error(`${file} document ${i}: ${doc.errors[0]?.message ?? ''}`);
    const data = doc.toJS() as KubeObject;
    if (typeof data.apiVersion !== 'string' || typeof data.kind !== 'string') throw new Error(`${file} document ${i}: no apiVersion or kind`);
    return data;
  });
}

/** The module of kubernetes-models for an object's apiVersion and kind (`apps/v1`, `Deployment`). */
const modelModule = (o: KubeObject): string => `kubernetes-models/${o.apiVersion}/${o.kind}`;

interface Model {
  validate(): void;
}

/** The problems the JSON-schema validators find, one string per object that has any. */
export async function schemaProblems(objects: readonly KubeObject[]): Promise<string[]> {
  const problems: string[] = [];
  for (const o of objects) {
    const module = (await import(modelModule(o))) as Record<string, new (data: unknown) => Model>;
    const Kind = module[o.kind];
    if (Kind === undefined) {
      problems.push(`${o.kind} ${o.metadata.name}: no model in ${modelModule(o)}`);
      continue;
    }
    try {
      new Kind(o).validate();
    } catch (err) {
      problems.push(`${o.kind} ${o.metadata.name}: ${(err as Error).message}`);
    }
  }
  return problems;
}

/** The problems the TypeScript declarations find (unknown fields included), as `Kind name: message`. */
export function typeProblems(objects: readonly KubeObject[]): string[] {
  const file = path.join(ROOT, 'test', 'deploy', '.kubernetes-objects.check.ts');
  const lines: string[] = [];
  const owners: Array<{ from: number; label: string }> = [];
  objects.forEach((o, i) => lines.push(`import type { I${o.kind} as T${i} } from '${modelModule(o)}';`));
  objects.forEach((o, i) => {
    owners.push({ from: lines.length, label: `${o.kind} ${o.metadata.name}` });
    lines.push(...`export const o${i} = ${JSON.stringify(o, null, 2)} satisfies T${i};`.split('\n'));
  });
  const source = lines.join('\n');
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    skipLibCheck: true,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.getSourceFile = (name, language, ...rest) => (name === file ? ts.createSourceFile(name, source, language) : getSourceFile.call(host, name, language, ...rest));
  host.fileExists = (name) => name === file || fileExists.call(host, name);
  host.readFile = (name) => (name === file ? source : readFile.call(host, name));
  const program = ts.createProgram([file], options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line : -1;
    const owner = [...owners].reverse().find((o) => o.from <= line);
    const text = lines[line]?.trim() ?? '';
    return `${owner?.label ?? 'import'}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')} (at ${text})`;
  });
}

/** The value at a dotted path (`spec.template.spec`), or undefined. */
export function at(o: Json | undefined, dotted: string): Json | undefined {
  let here: Json | undefined = o;
  for (const key of dotted.split('.')) {
    if (here === null || here === undefined || typeof here !== 'object' || Array.isArray(here)) return undefined;
    here = here[key];
  }
  return here;
}
