// The path of one legacy read method, generated from its route in the legacy surface (legacy-surface.ts: the
// path, its accepted forms, the paging) and its mapping: the parameters (paging segments, an id segment or
// lookup query parameters), the success envelope and the failures the gateway answers for it. Pure; it
// states the engine's rules (run.ts, paging.ts), never new ones.
import { sourceOf } from '../../mapping/coverage.js';
import { REQUEST_LIMITS, type ReadRoute } from '../legacy-surface.js';
import type { DetailMapping, LookupKey, LookupMapping, Mapping, StaticMapping } from '../../mapping/schema.js';
import { recordSchema } from './records.js';
import { failureResponse, gatewayFaultResponses, headerRef, jsonContent, successEnvelope, upstreamFaultResponses, type EnvelopeParts } from './replies.js';
import { ACCEPTED_PATHS, schemaRef, type JsonObject, type SchemaObject, type SchemaRegistry } from './types.js';

/** A read method whose legacy path takes the optional `/{start}/{limit}` segments. */
type PagedMapping = Extract<Mapping, { paging: unknown }>;

/** A read route and its mapping, narrowed to one kind. */
type RouteOf<M extends Mapping> = ReadRoute & { mapping: M };

/** The largest whole number the gateway reads from a path or query (15 digits, exact in a double). */
const WHOLE_MAX = 999_999_999_999_999;

export interface ReadPath {
  path: string;
  item: JsonObject;
}

export function readPath(route: ReadRoute, registry: SchemaRegistry): ReadPath {
  const { mapping } = route;
  if ('paging' in mapping) return pagedPath({ ...route, mapping }, registry);
  switch (mapping.kind) {
    case 'detail':
      return detailPath({ ...route, mapping }, registry);
    case 'lookup':
      return lookupPath({ ...route, mapping }, registry);
    case 'static':
      return staticPath({ ...route, mapping }, registry);
  }
}

const GUARD_400 =
  `the API key (X-API-KEY or api_key) is malformed, the path is too long, or the query string has more than ${REQUEST_LIMITS.maxQueryParams} parameters`;

/** The fallback zone of a method whose reply carries `timezone`; undefined when it carries none. */
function timezoneOf(mapping: Mapping): string | undefined {
  return 'timezone' in mapping ? mapping.timezone?.fallback : undefined;
}

function reply200(mapping: Mapping, registry: SchemaRegistry, parts: Omit<EnvelopeParts, 'response'> & { list: boolean }): JsonObject {
  const record = schemaRef(registry, `${mapping.method}.record`, recordSchema(mapping));
  const response: SchemaObject = parts.list ? { type: 'array', items: record } : record;
  const envelope = schemaRef(registry, `${mapping.method}.reply`, successEnvelope({ ...parts, response }));
  const reply: JsonObject = { description: 'The legacy reply.', content: jsonContent(envelope) };
  // Only a reply built from v1 data can be a stale one.
  if (mapping.kind !== 'static') reply.headers = { Warning: headerRef('Warning') };
  return reply;
}

function operation(mapping: Mapping, description: string[], parameters: JsonObject[], responses: Record<string, JsonObject>): JsonObject {
  const op: JsonObject = {
    operationId: `legacy_${mapping.method}`,
    tags: ['legacy reads'],
    summary: mapping.description,
    description: [...description, 'HEAD is answered too, with the same status and headers.'].join('\n\n'),
  };
  if (parameters.length > 0) op.parameters = parameters;
  op.responses = { ...responses, ...(mapping.kind === 'static' ? gatewayFaultResponses() : upstreamFaultResponses()) };
  return op;
}

function sourceQuery(mapping: Exclude<Mapping, StaticMapping>): string {
  const fixed = Object.entries(mapping.source.query ?? {});
  return fixed.length === 0 ? '' : ` (with ${fixed.map(([k, v]) => `${k}=${v}`).join('&')} on every call)`;
}

function pagedV1Text(mapping: PagedMapping): string {
  const v1 = `\`GET ${sourceOf(mapping)}\`${sourceQuery(mapping)}`;
  if (!('sort' in mapping)) {
    return `One v1 call: ${v1} with offset = start and limit = limit; \`total\` is v1's total.`;
  }
  const order = mapping.sort.map((k) => `\`${k.field}\` (${k.type}, empty values ${k.nulls})`).join(', then ');
  const pages = 'pageSize' in mapping.source ? ` (${mapping.source.pageSize} records a call, at most ${mapping.source.maxPages} calls)` : '';
  return `Reads every page of ${v1}${pages}, orders the whole listing by ${order}, then cuts start and limit; \`total\` counts the whole listing.`;
}

function pagedPath(route: RouteOf<PagedMapping>, registry: SchemaRegistry): ReadPath {
  const { mapping, base } = route;
  const { default: size, max } = route.paging ?? mapping.paging;
  const parameters: JsonObject[] = [
    {
      name: 'start',
      in: 'path',
      required: true,
      description: `Index of the first record (0 is the first), digits only. Optional: \`${base}\` reads from 0.`,
      schema: { type: 'integer', minimum: 0, maximum: WHOLE_MAX, default: 0 },
    },
    {
      name: 'limit',
      in: 'path',
      required: true,
      description: `Records in the page, digits only. Optional: \`${base}/{start}\` reads ${size}; a limit above ${max} is clamped to ${max}, not refused.`,
      schema: { type: 'integer', minimum: 1, maximum: max, default: size },
    },
  ];
  const description = [
    pagedV1Text(mapping),
    `Both path segments are optional (OpenAPI marks every path parameter required; \`${ACCEPTED_PATHS}\` lists the shorter forms), and a trailing slash is ignored.`,
  ];
  const responses = {
    '200': reply200(mapping, registry, {
      list: true,
      total: true,
      timezone: timezoneOf(mapping),
      description: `A page of \`${mapping.method}\` records: {"status":"success","total":"<n>",${timezoneOf(mapping) !== undefined ? '"timezone":"<zone>",' : ''}"response":[...]}.`,
    }),
    '400': failureResponse(`Refused before any v1 call: \`start\` or \`limit\` is not a whole number, \`limit\` is below 1, or more than two segments follow the method; or ${GUARD_400}.`),
  };
  return { path: route.template, item: { [ACCEPTED_PATHS]: [...route.acceptedPaths], get: operation(mapping, description, parameters, responses) } };
}

function detailPath(route: RouteOf<DetailMapping>, registry: SchemaRegistry): ReadPath {
  const { mapping } = route;
  const parameters: JsonObject[] = [
    { name: 'id', in: 'path', required: true, description: 'The record id, digits only.', schema: { type: 'integer', minimum: 0, maximum: WHOLE_MAX } },
  ];
  const description = [`One v1 call: \`GET ${sourceOf(mapping)}\`${sourceQuery(mapping)}. A trailing slash is ignored.`];
  const responses = {
    '200': reply200(mapping, registry, {
      list: false,
      total: false,
      timezone: timezoneOf(mapping),
      description: `One \`${mapping.method}\` record: {"status":"success",${timezoneOf(mapping) !== undefined ? '"timezone":"<zone>",' : ''}"response":{...}}.`,
    }),
    '400': failureResponse(`Refused before any v1 call: no id, more than one segment after the method, or an id that is not a whole number; or ${GUARD_400}.`),
    '404': failureResponse('v1 has no record with this id: v1\'s status and message.'),
  };
  return { path: route.template, item: { [ACCEPTED_PATHS]: [...route.acceptedPaths], get: operation(mapping, description, parameters, responses) } };
}

const MATCH_TEXT: Record<NonNullable<LookupKey['match']>, string> = {
  equals: 'is exactly the value',
  'equals-ci': 'equals the value, ignoring case',
  'list-contains-ci': 'holds the value as one item of its comma-separated list, ignoring case',
};

function lookupParameter(mapping: LookupMapping, key: LookupKey, rule: string): JsonObject {
  const resource = `/api/v1/${mapping.source.resource}`;
  const how =
    key.via === 'detail'
      ? `Read with v1 \`GET ${resource}/{${key.param}}\`; v1's 404 answers 404.`
      : `Read with v1 \`GET ${resource}?${key.filter}=\` (page after page, until a match); the gateway checks each candidate itself: its \`${key.field}\` ${MATCH_TEXT[key.match ?? 'equals']}.`;
  const schema: SchemaObject =
    key.value === 'integer'
      ? { type: 'integer', minimum: 0, maximum: WHOLE_MAX, description: 'Digits only.' }
      : { type: 'string', minLength: 1, pattern: '\\S', description: 'Not empty or blank.' };
  return { name: key.param, in: 'query', required: false, description: `${rule} ${how}`, schema };
}

function lookupPath(route: RouteOf<LookupMapping>, registry: SchemaRegistry): ReadPath {
  const { mapping } = route;
  const exclusive = mapping.exclusive.map((k) => `\`${k.param}\``).join(', ');
  const combinable = mapping.combinable.map((k) => `\`${k.param}\``).join(', ');
  const exclusiveRule = `One of ${exclusive}: the first of them to appear in the query string is used, and every other parameter is ignored.`;
  const combinableRule = `Used when none of ${exclusive} is given; ${combinable} may be combined, and every one given must match.`;
  const parameters = [
    ...mapping.exclusive.map((k) => lookupParameter(mapping, k, exclusiveRule)),
    ...mapping.combinable.map((k) => lookupParameter(mapping, k, combinableRule)),
  ];
  const description = [
    `Finds one record through v1 \`${sourceOf(mapping)}\`. ${exclusiveRule}${combinable ? ` Otherwise ${combinable}, together.` : ''} No match answers 404.`,
  ];
  const responses = {
    '200': reply200(mapping, registry, {
      list: false,
      total: false,
      timezone: undefined,
      description: `The \`${mapping.method}\` record found: {"status":"success","response":{...}}.`,
    }),
    '400': failureResponse(`Refused before any v1 call: none of the parameters is given, a text value is empty, an id is not a whole number, or a path segment follows the method; or ${GUARD_400}.`),
    '404': failureResponse('No record matched.', mapping.notFound),
  };
  return { path: route.template, item: { [ACCEPTED_PATHS]: [...route.acceptedPaths], get: operation(mapping, description, parameters, responses) } };
}

function staticPath(route: RouteOf<StaticMapping>, registry: SchemaRegistry): ReadPath {
  const { mapping } = route;
  const description = [
    `No v1 call: the records come from the operator's JSON file named by the setting \`${mapping.source.setting}\` (an array of records), read at start. Unset: 501.`,
  ];
  const responses = {
    '200': reply200(mapping, registry, {
      list: true,
      total: false,
      timezone: undefined,
      description: `Every \`${mapping.method}\` record of the file: {"status":"success","response":[...]} (no \`total\`).`,
    }),
    '400': failureResponse(`A path segment follows the method; or ${GUARD_400}.`),
    '501': failureResponse(`\`${mapping.source.setting}\` is not set on this gateway.`, mapping.unavailable),
  };
  return { path: route.template, item: { [ACCEPTED_PATHS]: [...route.acceptedPaths], get: operation(mapping, description, [], responses) } };
}
