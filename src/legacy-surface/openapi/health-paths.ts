// /healthz and /readyz, the gateway's own routes (their paths are the legacy surface's own routes), as OpenAPI:
// their replies are the gateway's, not legacy ones (see src/gateway/routes/health.ts). Pure data.
import type { OwnRoute } from '../legacy-surface.js';
import { jsonContent } from './replies.js';
import type { JsonObject, SchemaObject } from './types.js';

/** Said by /readyz, beside its state, when the gateway serves the embedded sandbox's demo data. */
const SANDBOX_NOTICE: SchemaObject = { type: 'string', description: 'Present only in sandbox mode: the upstream is demo data, not the real service.' };

/** Said by /readyz with REDIS_URL: whether the state replicas share can be reached. */
const REDIS_STATE: SchemaObject = {
  type: 'string',
  enum: ['up', 'down'],
  description: 'Present only when REDIS_URL is set: whether Redis (Idempotency-Keys, the shared read cache) answers. Down does not make the gateway unready: reads go on, keyed payments are refused.',
};

/** Said by /readyz with a shared claims store (IDEMPOTENCY_URL, or REDIS_URL): whether it can be reached. */
const CLAIMS_STATE: SchemaObject = {
  type: 'string',
  enum: ['up', 'down'],
  description:
    'Present only when the payment claims are kept in a shared store (IDEMPOTENCY_URL, or REDIS_URL): whether that store answers. Down does not make the gateway unready: reads go on, payments that need a claim are refused (code 8, HTTP 503) before any v1 call.',
};

/** An object with exactly these properties, all required, plus the optional ones named. */
const closed = (properties: Record<string, SchemaObject>, optional: Record<string, SchemaObject> = {}): SchemaObject => ({
  type: 'object',
  properties: { ...properties, ...optional },
  required: Object.keys(properties),
  additionalProperties: false,
});

const ready = closed({
  status: { type: 'string', const: 'ready' },
  mappings: { type: 'integer', minimum: 0, description: 'How many read methods are mapped.' },
  upstream: { type: 'string', const: 'reachable' },
}, { redis: REDIS_STATE, claims: CLAIMS_STATE, sandbox: SANDBOX_NOTICE });

const notReady: SchemaObject = {
  oneOf: [
    closed({ status: { type: 'string', const: 'draining' } }, { sandbox: SANDBOX_NOTICE }),
    closed(
      {
        status: { type: 'string', const: 'upstream unreachable' },
        mappings: { type: 'integer', minimum: 0 },
        upstream: { type: 'string', const: 'unreachable' },
      },
      { redis: REDIS_STATE, claims: CLAIMS_STATE, sandbox: SANDBOX_NOTICE },
    ),
  ],
};

const probe = (operationId: string, summary: string, responses: Record<string, JsonObject>): JsonObject => ({
  get: { operationId, tags: ['gateway'], summary, security: [], responses },
});

/** The path item of each of the gateway's own routes, by its label. */
export function healthPathItems(): Record<OwnRoute['label'], JsonObject> {
  return {
    healthz: probe('healthz', 'Answers 200 while the process runs.', {
      '200': { description: 'The process runs.', content: jsonContent(closed({ status: { type: 'string', const: 'ok' } })) },
    }),
    readyz: probe('readyz', 'Answers 200 when the mappings are loaded and the upstream answers, whether Redis is up or down; 503 otherwise or while draining.', {
      '200': { description: 'Ready to serve.', content: jsonContent(ready) },
      '503': { description: 'The upstream cannot be reached (probed at most every 2 s), or the gateway is shutting down.', content: jsonContent(notReady) },
    }),
  };
}
