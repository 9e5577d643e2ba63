// The shape of a method file (mappings/<method>.yaml): everything the gateway knows about one legacy read method,
// naming the record and the view its reply carries; and the resolved `Mapping` the engine runs (the view's fields
// laid out in `record.fields`). Pure data description (zod); it must never read files or talk to the network.
import { z } from 'zod';
import { nullPolicy, recordName, viewName, type FieldSpec } from './record-schema.js';

export type { FieldSpec } from './record-schema.js';

/** Legacy method names are the first path segment after /api/ (e.g. `clients`, `meetourstaff`). */
const methodName = z.string().regex(/^[a-z][a-z0-9_]*$/, 'lower-case letters, digits and _ only');
/** v1 resource path segments are lower case, with hyphens between words. */
const resourceName = z.string().regex(/^[a-z][a-z0-9-]*$/, 'a v1 resource path segment (a-z, 0-9, -)');
const v1FieldName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a v1 JSON field name');

const paging = z
  .strictObject({
    default: z.number().int().min(1),
    max: z.number().int().min(1).max(1000),
  })
  .refine((p) => p.default <= p.max, { message: 'default must not exceed max' });

const sortKey = z.strictObject({
  field: v1FieldName,
  /** number: compared numerically (nulls last); text: compared case-insensitively (nulls last). */
  type: z.enum(['number', 'text']),
  /** Where records without a value go. */
  nulls: z.enum(['first', 'last']).default('last'),
});

/** The sessions `timezone` beside `response`: a record field, else ACCOUNT_TIMEZONE, else `fallback`. */
const timezoneSpec = z.strictObject({
  from: v1FieldName,
  fallback: z.string().min(1),
});

const v1Source = z.strictObject({
  resource: resourceName,
  /** Fixed v1 query parameters added to every call (e.g. a status filter). */
  query: z.record(z.string().regex(/^[a-z_][a-z0-9_]*$/), z.string()).optional(),
});

/** A source read one record at a time (GET /{resource}/{id}): the reply must be an object carrying the requested id. */
const recordSource = v1Source.extend({
  /** The v1 field holding a record's id, compared with the requested id as whole numbers (`42` = `"42"`). */
  idField: v1FieldName.default('id'),
});

const lookupKey = z.strictObject({
  /** The legacy query parameter. */
  param: z.string().regex(/^[a-z_]+$/),
  /** `detail`: GET /{resource}/{value}; `filter`: a filtered list. */
  via: z.enum(['detail', 'filter']),
  /** The v1 filter parameter name (for `filter`). */
  filter: z.string().regex(/^[a-z_]+$/).optional(),
  /** How the gateway itself checks a candidate, so a filter v1 ignores cannot return the wrong record. */
  match: z.enum(['equals', 'equals-ci', 'list-contains-ci']).optional(),
  /** Value rule for the legacy parameter (integer ids answer 400 otherwise). */
  value: z.enum(['integer', 'text']).default('text'),
  field: v1FieldName.optional(),
});

const common = {
  method: methodName,
  description: z.string().min(1),
  /** The record file (mappings/records/<record>.yaml) describing the legacy record this method answers. */
  record: recordName,
  /** The view of that record: which fields the reply carries, in which order. */
  view: viewName,
};

const listMapping = z.strictObject({
  ...common,
  kind: z.literal('list'),
  source: v1Source,
  paging,
  timezone: timezoneSpec.optional(),
  /** How long a v1 reply for this method may be cached; absent = the CACHE_TTL_MS setting. */
  cacheTtlMs: z.number().int().min(0).optional(),
});

/** Reads every v1 page, sorts the whole listing, then cuts the legacy page (the team listings). */
const sortedListMapping = z.strictObject({
  ...common,
  kind: z.literal('sorted-list'),
  source: v1Source.extend({
    pageSize: z.number().int().min(1).max(1000),
    /** Upper bound of v1 pages read, against an upstream that never stops saying has_more. */
    maxPages: z.number().int().min(1).max(1000),
  }),
  paging,
  sort: z.array(sortKey).min(1),
  /** A whole sorted listing costs many v1 calls to build, so it may be kept longer than CACHE_TTL_MS. */
  cacheTtlMs: z.number().int().min(0).optional(),
});

const detailMapping = z.strictObject({
  ...common,
  kind: z.literal('detail'),
  source: recordSource,
  timezone: timezoneSpec.optional(),
  /** How long a v1 reply for this method may be cached; absent = CACHE_TTL_MS. */
  cacheTtlMs: z.number().int().min(0).optional(),
});

const lookupMapping = z
  .strictObject({
    ...common,
    kind: z.literal('lookup'),
    /** `idField` is checked on the records of `detail` keys. */
    source: recordSource.extend({
      pageSize: z.number().int().min(1).max(1000),
      /** Upper bound of v1 pages read when a filter is ignored and the match is further down. */
      maxPages: z.number().int().min(1).max(100),
    }),
    /** The first of these to appear in the query string wins. */
    exclusive: z.array(lookupKey).min(1),
    /** Used together when no exclusive key is present. */
    combinable: z.array(lookupKey).default([]),
    notFound: z.string().min(1),
    /** How long a v1 reply for this method may be cached; absent = CACHE_TTL_MS. */
    cacheTtlMs: z.number().int().min(0).optional(),
  })
  .superRefine((m, ctx) => {
    [...m.exclusive, ...m.combinable].forEach((k, i) => {
      if (k.via === 'filter' && (!k.filter || !k.match || !k.field)) {
        ctx.addIssue({
          code: 'custom',
          path: [i < m.exclusive.length ? 'exclusive' : 'combinable', i],
          message: 'a filter key needs `filter`, `field` and `match`',
        });
      }
    });
  });

const staticMapping = z.strictObject({
  ...common,
  kind: z.literal('static'),
  /** The setting naming the operator-supplied JSON file (an array of records). */
  source: z.strictObject({ setting: z.string().regex(/^[A-Z][A-Z0-9_]*$/) }),
  /** Answered with 501 when the setting is unset. */
  unavailable: z.string().min(1),
});

/** Every `kind` a file in a mappings directory may have: the read methods' kinds, and the payment's
 * (src/payment/payment-mapping.ts, which the loader sends its file to). */
export const MAPPING_KINDS = ['list', 'sorted-list', 'detail', 'lookup', 'static', 'payment'] as const;

/** A method file as written: it names its record and view. */
export const methodFileSchema = z.discriminatedUnion(
  'kind',
  [listMapping, sortedListMapping, detailMapping, lookupMapping, staticMapping],
  // An unknown or missing kind is told the payment's too: a payment file with a misspelt kind lands here.
  { error: (issue) => (issue.code === 'invalid_union' ? `must be one of ${MAPPING_KINDS.join(', ')}` : undefined) },
);

export type MethodFile = z.infer<typeof methodFileSchema>;

/** The fields a method's reply carries, resolved from its record's view. */
export interface ResolvedRecord {
  /** The record file's name (`session` for mappings/records/session.yaml). */
  name: string;
  /** The view of the record this method answers with. */
  view: string;
  /** Default null policy of the record's fields. */
  nulls: z.infer<typeof nullPolicy>;
  /** The view's fields, in legacy order, with this view's overrides applied. */
  fields: FieldSpec[];
}

/** A method file with its record resolved: what the engine, coverage and the routes read. */
type Resolved<T> = T extends unknown ? Omit<T, 'record' | 'view'> & { record: ResolvedRecord } : never;

export type Mapping = Resolved<MethodFile>;
export type ListMapping = Resolved<z.infer<typeof listMapping>>;
export type SortedListMapping = Resolved<z.infer<typeof sortedListMapping>>;
export type DetailMapping = Resolved<z.infer<typeof detailMapping>>;
export type LookupMapping = Resolved<z.infer<typeof lookupMapping>>;
export type StaticMapping = Resolved<z.infer<typeof staticMapping>>;
export type LookupKey = z.infer<typeof lookupKey>;
export type TimezoneSpec = z.infer<typeof timezoneSpec>;
export type SortKey = z.infer<typeof sortKey>;
