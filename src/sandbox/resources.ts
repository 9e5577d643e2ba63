// The v1 resources the sandbox serves: path name, record name, field order, filters and verbs of each,
// and the serialiser that writes a record in its field order. A table of what each resource has of its own
// and pure functions: it must never do I/O or change the state.
import {
  CLIENT_FIELDS,
  DISCOUNT_FIELDS,
  LOCATION_FIELDS,
  PACKAGE_FIELDS,
  PAYMENT_FIELDS,
  PRACTITIONER_FIELDS,
  SERVICE_FIELDS,
  SESSION_FIELDS,
  SKILL_FIELDS,
  STAFF_FIELDS,
  TIMEZONE_FIELDS,
} from './records.js';
import type { SandboxState } from './state.js';

/**
 * How a filter value is compared with a field:
 * - integer: the value must be a whole number (else 400) equal to the field;
 * - date: the value must be YYYY-MM-DD (else 400) equal to the field;
 * - exact: string equality;
 * - case-insensitive: string equality ignoring case;
 * - email-list: the field is a comma-separated list; any address equal to the value, ignoring case.
 * An empty value matches records whose field is empty (null).
 */
export type FilterMatch = 'integer' | 'date' | 'exact' | 'case-insensitive' | 'email-list';

export interface FilterDef {
  field: string;
  match: FilterMatch;
}

export type HttpVerb = 'GET' | 'POST';

export interface ResourceDef {
  /** Path segment under /api/v1/. */
  name: string;
  /** Value of every record's `object` field. */
  objectName: string;
  fields: readonly string[];
  /** The records the API can see, in stored order (ids ascending). */
  records(state: SandboxState): readonly object[];
  filters: Readonly<Record<string, FilterDef>>;
  /** Verbs on /api/v1/{name}; a single record (/api/v1/{name}/{id}) supports GET only. */
  collectionVerbs: readonly HttpVerb[];
}

/**
 * What one resource has of its own; the rest follows from its path name. A filter is named after the field
 * it compares; `records` is, unless given, the state list of the same name; verbs are GET only unless given.
 */
interface ResourceSpec {
  objectName: string;
  fields: readonly string[];
  filters?: Readonly<Record<string, FilterMatch>>;
  records?: (state: SandboxState) => readonly object[];
  collectionVerbs?: readonly HttpVerb[];
}

/** The state lists a resource can serve under their own name. */
type ListName = Exclude<keyof SandboxState, 'availability' | 'requests' | 'gate'>;

// In the order the index call lists them.
const RESOURCE_SPECS: Readonly<Record<ListName, ResourceSpec>> = {
  clients: {
    objectName: 'client',
    fields: CLIENT_FIELDS,
    filters: {
      email: 'email-list',
      username: 'case-insensitive',
      first_name: 'case-insensitive',
      last_name: 'case-insensitive',
      status: 'exact',
    },
    collectionVerbs: ['GET', 'POST'],
  },
  discounts: { objectName: 'discount', fields: DISCOUNT_FIELDS, filters: { code: 'case-insensitive' } },
  locations: { objectName: 'location', fields: LOCATION_FIELDS, filters: { status: 'exact' } },
  packages: {
    objectName: 'package',
    fields: PACKAGE_FIELDS,
    filters: { status: 'exact', service_id: 'integer' },
    // v1 record rule 8: deleted packages are not returned, neither listed nor by id.
    records: (s) => s.packages.filter((p) => p.status !== 'deleted'),
  },
  payments: {
    objectName: 'payment',
    fields: PAYMENT_FIELDS,
    filters: { client_id: 'integer' },
    collectionVerbs: ['GET', 'POST'],
  },
  practitioners: { objectName: 'practitioner', fields: PRACTITIONER_FIELDS, filters: { status: 'exact' } },
  services: { objectName: 'service', fields: SERVICE_FIELDS, filters: { group_id: 'integer', service_status: 'integer' } },
  sessions: {
    objectName: 'session',
    fields: SESSION_FIELDS,
    filters: { client_id: 'integer', pract_id: 'integer', session_date: 'date' },
  },
  skills: { objectName: 'skill', fields: SKILL_FIELDS },
  staff: { objectName: 'staff', fields: STAFF_FIELDS, filters: { status: 'exact' } },
  timezones: { objectName: 'timezone', fields: TIMEZONE_FIELDS, filters: { name: 'exact' } },
};

function resourceDef(name: ListName, spec: ResourceSpec): ResourceDef {
  const filters: Record<string, FilterDef> = {};
  for (const [filter, match] of Object.entries(spec.filters ?? {})) filters[filter] = { field: filter, match };
  return {
    name,
    objectName: spec.objectName,
    fields: spec.fields,
    records: spec.records ?? ((state) => state[name]),
    filters,
    collectionVerbs: spec.collectionVerbs ?? ['GET'],
  };
}

const RESOURCE_LIST: readonly ResourceDef[] = (Object.keys(RESOURCE_SPECS) as ListName[]).map((name) =>
  resourceDef(name, RESOURCE_SPECS[name]),
);

export const RESOURCES: ReadonlyMap<string, ResourceDef> = new Map(RESOURCE_LIST.map((r) => [r.name, r]));

/** Field value of a record by name: records are plain objects whose fields the definition lists. */
export function fieldValue(record: object, field: string): unknown {
  return (record as Record<string, unknown>)[field];
}

/**
 * The record as v1 writes it: `object` first, then every field in the resource's order; a missing field
 * is null. Records tests push into the state come out in the same shape as the demo ones.
 */
export function serializeRecord(resource: ResourceDef, record: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of resource.fields) {
    out[field] = field === 'object' ? resource.objectName : (fieldValue(record, field) ?? null);
  }
  return out;
}
