// `legacy-gateway openapi`'s document: the legacy surface described in OpenAPI 3.1, generated from the mapping
// set and the payment mapping (never written by hand): every legacy path, its parameters and limits, the
// envelopes, every record's fields, the payment form and codes, and the gateway's own /healthz and /readyz.
// Pure: the same mappings always give the same document; reading files and printing are the command's job.
import type { MappingSet } from '../mapping-set.js';
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

function components(registry: SchemaRegistry): OpenApiDocument['components'] {
  return {
    schemas: Object.fromEntries([...registry].sort(([a], [b]) => a.localeCompare(b))),
    responses: SHARED_FAILURES,
    headers: REPLY_HEADERS,
    securitySchemes: {
      apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-KEY', description: 'Forwarded to v1 as is.' },
      apiKeyQuery: { type: 'apiKey', in: 'query', name: 'api_key', description: 'Removed from the query and sent to v1 as X-API-KEY.' },
    },
  };
}

export function buildOpenApiDocument(input: OpenApiInput): OpenApiDocument {
  const registry: SchemaRegistry = new Map([[FAILURE_SCHEMA, failureSchema]]);
  const paths: Record<string, JsonObject> = {};
  for (const mapping of [...input.reads.values()].sort((a, b) => a.method.localeCompare(b.method))) {
    const { path, item } = readPath(mapping, registry);
    paths[path] = item;
  }
  if (input.payment) paths['/api/payment'] = paymentPathItem(input.payment, registry);
  Object.assign(paths, healthPathItems());
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
    components: components(registry),
  };
}

export { KEY_ORDER, ACCEPTED_PATHS };
export type { OpenApiDocument };
