// `legacy-gateway openapi`'s document: the legacy surface described in OpenAPI 3.1, spelled from the surface's
// description (legacy-surface.ts: the routes, their paths and paging, the limits, the payment codes), itself
// built from the mapping set and the payment mapping, with what only the mappings say (the envelopes, every
// record's fields, the payment form): never written by hand. Pure: the same mappings always give the same
// document; reading files and printing are the command's job.
import { legacySurface, type LegacySurface } from '../legacy-surface.js';
import type { MappingSet } from '../../mapping/mapping-set.js';
import type { PaymentMapping } from '../../payment/payment-mapping.js';
import { healthPathItems } from './health-paths.js';
import { paymentPathItem } from './payment-path.js';
import { readPath } from './read-paths.js';
import { FAILURE_SCHEMA, KEY_ORDER_NOTE, REPLY_HEADERS, SHARED_FAILURES, failureSchema } from './replies.js';
import { ACCEPTED_PATHS, KEY_ORDER, type JsonObject, type OpenApiDocument, type SchemaRegistry } from './types.js';

export interface OpenApiInput {
  reads: MappingSet;
  /** mappings/payment.yaml; without it the document has no POST /api/payment. */
  payment: PaymentMapping | undefined;
  /** The package version, the document's `info.version`. */
  version: string;
}

const OVERVIEW = [
  'The retired unversioned API (`/api/{method}`), served by legacy-gateway from the v1 REST API in the old reply shape. Generated from the mappings: `legacy-gateway openapi`.',
  'Replies: `{"status":"success","total":"<n>","response":[...]}` for lists (sessions add `timezone` before `response`), `{"status":"success","response":{...}}` for one record, `{"status":"failure","response":"<message>"}` for errors. Every record value is a string or null: numbers as text, money with two decimals, times as HH:MM.',
  `${KEY_ORDER_NOTE} Records list their fields in the legacy reference's order the same way.`,
  `Paths: a trailing slash is ignored; \`${ACCEPTED_PATHS}\` on a path lists every form accepted, the optional paging segments left out. The gateway routes by the method name (\`/api/{method}\`): any other path under a mapped method (a missing id, a segment too many) answers that method's 400.`,
  'API key: the X-API-KEY header is forwarded to v1 as is; else the `api_key` query parameter (moved into the header); else the gateway\'s UPSTREAM_API_KEY. Paths that are not mapped here are passed through to the upstream unchanged.',
].join('\n\n');

function components(registry: SchemaRegistry, surface: LegacySurface): OpenApiDocument['components'] {
  const { header, queryParam } = surface.apiKey;
  return {
    schemas: Object.fromEntries([...registry].sort(([a], [b]) => a.localeCompare(b))),
    responses: SHARED_FAILURES,
    headers: REPLY_HEADERS,
    securitySchemes: {
      apiKeyHeader: { type: 'apiKey', in: 'header', name: header, description: 'Forwarded to v1 as is.' },
      apiKeyQuery: { type: 'apiKey', in: 'query', name: queryParam, description: `Removed from the query and sent to v1 as ${header}.` },
    },
  };
}

export function buildOpenApiDocument(input: OpenApiInput): OpenApiDocument {
  const surface = legacySurface(input);
  const registry: SchemaRegistry = new Map([[FAILURE_SCHEMA, failureSchema]]);
  const paths: Record<string, JsonObject> = {};
  for (const route of [...surface.reads].sort((a, b) => a.label.localeCompare(b.label))) {
    const { path, item } = readPath(route, registry);
    paths[path] = item;
  }
  const { payment } = surface;
  if (input.payment && payment) paths[payment.path] = paymentPathItem(input.payment, { ...surface, payment }, registry);
  const health = healthPathItems();
  for (const own of surface.own) paths[own.path] = health[own.label];
  return {
    openapi: '3.1.0',
    info: {
      title: 'legacy-gateway: the legacy API',
      version: input.version,
      description: OVERVIEW,
    },
    tags: [
      { name: 'legacy reads', description: 'The mapped legacy read methods.' },
      { name: 'legacy payment', description: 'POST /api/payment.' },
      { name: 'gateway', description: 'The gateway\'s own routes.' },
    ],
    // No key is also accepted: the gateway then lends its UPSTREAM_API_KEY.
    security: [{}, { apiKeyHeader: [] }, { apiKeyQuery: [] }],
    paths,
    components: components(registry, surface),
  };
}

export { KEY_ORDER, ACCEPTED_PATHS };
export type { OpenApiDocument };
