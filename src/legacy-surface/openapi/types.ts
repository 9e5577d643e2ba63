// The small part of OpenAPI 3.1 the legacy surface's description is built from: plain JSON values, so the
// document prints as JSON or YAML as it is. Pure types and two builders; no I/O, no knowledge of any method.

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** A JSON Schema (2020-12, OpenAPI 3.1's dialect) or any other OpenAPI object: plain JSON. */
export type SchemaObject = JsonObject;

export interface OpenApiDocument {
  openapi: string;
  info: JsonObject;
  tags: JsonObject[];
  security: JsonObject[];
  paths: Record<string, JsonObject>;
  components: {
    schemas: Record<string, SchemaObject>;
    responses: Record<string, JsonObject>;
    headers: Record<string, JsonObject>;
    securitySchemes: Record<string, JsonObject>;
  };
}

/** The named schemas a document collects while its paths are built. */
export type SchemaRegistry = Map<string, SchemaObject>;

/** Registers `schema` under `name` (component names: letters, digits, `.`, `-`, `_`) and returns a `$ref` to it. */
export function schemaRef(registry: SchemaRegistry, name: string, schema: SchemaObject): SchemaObject {
  if (!/^[A-Za-z0-9._-]+$/.test(name)) throw new Error(`not a component name: ${name}`);
  registry.set(name, schema);
  return { $ref: `#/components/schemas/${name}` };
}

/**
 * The extension keyword naming the order in which a reply writes an object's keys. Legacy integrations may
 * read a reply's fields by position, so the order is part of the contract; JSON Schema cannot say so, this
 * keyword does (and the tests check every reply against it).
 */
export const KEY_ORDER = 'x-key-order';

/**
 * The path item extension listing every form of a path the gateway accepts: OpenAPI makes every path parameter
 * required, while the legacy paging segments are optional (`/api/clients`, `/api/clients/{start}`, ...).
 */
export const ACCEPTED_PATHS = 'x-accepted-paths';

/** A closed object schema whose keys are all present, in this order. */
export function orderedObject(description: string, properties: Array<[string, SchemaObject]>): SchemaObject {
  const names = properties.map(([name]) => name);
  return {
    type: 'object',
    description,
    properties: Object.fromEntries(properties),
    required: names,
    additionalProperties: false,
    [KEY_ORDER]: names,
  };
}
