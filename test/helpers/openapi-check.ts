// Checks HTTP replies against the legacy surface's OpenAPI document (`legacy-gateway openapi`): finds the
// document's path for a request path (every form in `x-accepted-paths`, a trailing slash ignored; any other
// path under `/api/{method}` is that method's, as the gateway routes it), the operation, the response for the
// status (exact, then `4XX`-style, then `default`) and the media type, and validates the body with ajv (JSON
// Schema 2020-12, OpenAPI 3.1's dialect), key order (`x-key-order`) and the `date` format included. It never
// changes the document, and it reports problems rather than throwing, so a test can show them all.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import type { JsonObject, JsonValue, OpenApiDocument } from '../../src/legacy-surface/openapi/types.js';
import { ACCEPTED_PATHS, KEY_ORDER } from '../../src/legacy-surface/openapi/types.js';

/** The document's own id inside ajv, so `#/components/...` references resolve against it. */
const DOC_ID = 'https://legacy-gateway.invalid/openapi.json';

export interface ReplyUnderTest {
  /** The request's HTTP method. */
  method: string;
  /** The request path; a query string is ignored. */
  path: string;
  status: number;
  /** The reply's Content-Type header. */
  contentType: string | null;
  body: unknown;
}

export interface OpenApiChecker {
  /** The key of `paths` a request path falls under. */
  pathOf(requestPath: string): string | undefined;
  /** What is wrong with the reply; empty when the document describes it. */
  check(reply: ReplyUnderTest): string[];
  /** What is wrong with a value under one of the document's named schemas (`components.schemas`). */
  checkSchema(name: string, value: unknown): string[];
  /** Compiles every response and request body schema of the document (throws on one ajv refuses). */
  compileAll(): number;
}

const isObject = (v: JsonValue | undefined): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Keys that the order names must come in that order; keys it does not name are someone else's business. */
function keyOrderHolds(order: readonly string[], data: Record<string, unknown>): boolean {
  const positions = Object.keys(data)
    .map((k) => order.indexOf(k))
    .filter((i) => i >= 0);
  return positions.every((p, i) => i === 0 || positions[i - 1]! < p);
}

type KeywordCheck = ((order: string[], data: Record<string, unknown>) => boolean) & { errors?: Partial<ErrorObject>[] };

const keyOrderCheck: KeywordCheck = (order, data) => {
  const ok = keyOrderHolds(order, data);
  keyOrderCheck.errors = ok
    ? []
    : [{ keyword: KEY_ORDER, message: `keys must come in the order ${order.join(', ')}; got ${Object.keys(data).join(', ')}`, params: {} }];
  return ok;
};

/** JSON Schema's `date` format (RFC 3339 full-date): YYYY-MM-DD, a day the calendar has. */
function isFullDate(text: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth;
}

function createAjv(doc: OpenApiDocument): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, strictTypes: false, allowUnionTypes: true, allErrors: true });
  ajv.addKeyword({ keyword: KEY_ORDER, type: 'object', schemaType: 'array', errors: true, validate: keyOrderCheck });
  ajv.addFormat('date', isFullDate);
  // The named schemas, under `$defs` of one schema of their own (the document itself is not a schema).
  ajv.addSchema({ $id: DOC_ID, $defs: anchored(doc.components.schemas) });
  return ajv;
}

/** `/api/{method}` and what follows it, as the gateway reads a legacy path. */
const LEGACY_METHOD = /^\/api\/([a-z][a-z0-9_]*)(?:\/|$)/;

const SCHEMA_REF = '#/components/schemas/';

/** A copy of a schema from the document whose references to named schemas point at ajv's copy of them. */
function anchored(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(anchored);
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      k === '$ref' && typeof v === 'string' && v.startsWith(SCHEMA_REF) ? `${DOC_ID}#/$defs/${v.slice(SCHEMA_REF.length)}` : anchored(v),
    ]),
  );
}

function formRegex(form: string): RegExp {
  const segments = form.split('/').map((s) => (/^\{[^}]+\}$/.test(s) ? '[^/]+' : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  return new RegExp(`^${segments.join('/')}$`);
}

/** Follows a local `$ref` (`#/components/responses/...`) to what it names. */
function dereferenced(doc: OpenApiDocument, value: JsonValue | undefined): JsonValue | undefined {
  if (!isObject(value) || typeof value.$ref !== 'string' || !value.$ref.startsWith('#/')) return value;
  let at: JsonValue | undefined = doc as unknown as JsonObject;
  for (const part of value.$ref.slice(2).split('/')) {
    at = isObject(at) ? at[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
  }
  return at;
}

function responseFor(doc: OpenApiDocument, responses: JsonObject, status: number): JsonValue | undefined {
  return dereferenced(doc, responses[String(status)] ?? responses[`${Math.floor(status / 100)}XX`] ?? responses.default);
}

function describe(errors: readonly ErrorObject[]): string[] {
  return errors.map((e) => `${e.instancePath || '(body)'} ${e.message ?? e.keyword}${e.keyword === 'additionalProperties' ? `: ${String(e.params.additionalProperty)}` : ''}`);
}

export function openApiChecker(doc: OpenApiDocument): OpenApiChecker {
  const ajv = createAjv(doc);
  const compiled = new Map<string, ValidateFunction>();
  const forms = Object.entries(doc.paths).flatMap(([key, item]) => {
    const accepted = item[ACCEPTED_PATHS];
    const list = Array.isArray(accepted) ? accepted.filter((f): f is string => typeof f === 'string') : [key];
    return list.map((form) => ({ key, regex: formRegex(form) }));
  });

  const validatorOf = (where: string, schema: JsonValue): ValidateFunction => {
    let fn = compiled.get(where);
    if (!fn) {
      fn = ajv.compile(anchored(schema) as JsonObject);
      compiled.set(where, fn);
    }
    return fn;
  };

  // A path under `/api/{method}` that is none of the method's forms (a missing id, a segment too many) is
  // still that method's: the gateway routes by the method name and answers its 400.
  const methodPaths = new Map(Object.keys(doc.paths).flatMap((key) => {
    const method = LEGACY_METHOD.exec(key)?.[1];
    return method === undefined ? [] : [[method, key] as const];
  }));

  const pathOf = (requestPath: string): string | undefined => {
    const bare = requestPath.split('?')[0]!.replace(/(.)\/+$/, '$1');
    const exact = forms.find((f) => f.regex.test(bare))?.key;
    if (exact !== undefined) return exact;
    const method = LEGACY_METHOD.exec(bare)?.[1];
    return method === undefined ? undefined : methodPaths.get(method);
  };

  function check(reply: ReplyUnderTest): string[] {
    const where = `${reply.method.toUpperCase()} ${reply.path} -> ${reply.status}`;
    const key = pathOf(reply.path);
    if (key === undefined) return [`${where}: no path of the document matches`];
    const operation = doc.paths[key]![reply.method.toLowerCase() === 'head' ? 'get' : reply.method.toLowerCase()];
    if (!isObject(operation) || !isObject(operation.responses)) return [`${where}: ${key} has no ${reply.method} operation`];
    const response = responseFor(doc, operation.responses, reply.status);
    if (!isObject(response)) return [`${where}: status ${reply.status} is not described for ${key}`];
    const media = (reply.contentType ?? '').split(';')[0]!.trim().toLowerCase();
    const content = isObject(response.content) ? response.content[media] : undefined;
    if (!isObject(content) || content.schema === undefined) return [`${where}: no ${media || 'content type'} content for status ${reply.status}`];
    const validate = validatorOf(`${key} ${reply.method} ${reply.status} ${media}`, content.schema);
    return validate(reply.body) ? [] : describe(validate.errors ?? []).map((e) => `${where}: ${e}`);
  }

  function compileAll(): number {
    let count = 0;
    for (const [key, item] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        if (!isObject(operation)) continue;
        const bodies = isObject(operation.requestBody) && isObject(operation.requestBody.content) ? [operation.requestBody.content] : [];
        const replies = isObject(operation.responses) ? Object.values(operation.responses).map((r) => dereferenced(doc, r)).filter(isObject).map((r) => r.content) : [];
        for (const content of [...bodies, ...replies].filter(isObject)) {
          for (const [media, entry] of Object.entries(content)) {
            if (isObject(entry) && entry.schema !== undefined) {
              validatorOf(`compile ${key} ${method} ${media} ${count}`, entry.schema);
              count++;
            }
          }
        }
      }
    }
    return count;
  }

  function checkSchema(name: string, value: unknown): string[] {
    if (!(name in doc.components.schemas)) return [`no schema named ${name}`];
    const validate = validatorOf(`schema ${name}`, { $ref: `${SCHEMA_REF}${name}` });
    return validate(value) ? [] : describe(validate.errors ?? []);
  }

  return { pathOf, check, checkSchema, compileAll };
}
