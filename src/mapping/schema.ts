// The shape of a mapping file: everything the gateway knows about one legacy read method.
// Pure data description (zod); it must never read files or talk to the network.
import { z } from 'zod';

/** Legacy method names are the first path segment after /api/ (e.g. `clients`, `meetourstaff`). */
const methodName = z.string().regex(/^[a-z][a-z0-9_]*$/, 'lower-case letters, digits and _ only');
/** v1 resource path segments use hyphens (v1-api.md, record rule 6). */
const resourceName = z.string().regex(/^[a-z][a-z0-9-]*$/, 'a v1 resource path segment (a-z, 0-9, -)');
const v1FieldName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a v1 JSON field name');

/** How a value is written in the legacy reply. Every legacy value is a string (or null). */
export const valueFormat = z.enum([
  'text', // numbers -> "5", booleans -> "1"/"0", strings as they are
  'money', // two decimals: 45.5 -> "45.50"
  'hhmm', // HH:MM:SS -> HH:MM
]);

export const nullPolicy = z.enum([
  'keep', // null stays null
  'empty', // null becomes ""
]);

const fieldSpec = z
  .strictObject({
    /** The legacy field name, exactly as the legacy reply spells it (spaces and quirks included). */
    name: z.string().min(1),
    /** The v1 field read; omitted = the same name as the legacy field. */
    from: v1FieldName.optional(),
    /** Built from other v1 fields: `{field}` placeholders are replaced by their values. */
    derive: z.strictObject({ template: z.string().min(1) }).optional(),
    /** The legacy reference's documented default, used when v1 has no such field. */
    default: z.string().nullable().optional(),
    /** Declares that v1 does not document this field: read it if v1 ever sends it, else default or null. */
    missing: z.literal(true).optional(),
    format: valueFormat.optional(),
    nulls: nullPolicy.optional(),
    /** Where the value is a guess about the real service, say so here (shown by `coverage`). */
    guess: z.string().min(1).optional(),
  })
  .refine((f) => !(f.derive && f.from), { message: 'a field is either derived or read `from` one v1 field, not both' });

export type FieldSpec = z.infer<typeof fieldSpec>;

const recordSpec = z.strictObject({
  /** Default null policy of the record's fields. */
  nulls: nullPolicy.default('keep'),
  fields: z.array(fieldSpec).min(1),
});

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
  record: recordSpec,
};

const listMapping = z.strictObject({
  ...common,
  kind: z.literal('list'),
  source: v1Source,
  paging,
  timezone: timezoneSpec.optional(),
  /** How long a v1 reply for this method may be cached; absent = CACHE_TTL_MS (DESIGN: cache). */
  cacheTtlMs: z.number().int().min(0).optional(),
});

const teamMapping = z.strictObject({
  ...common,
  kind: z.literal('team'),
  source: v1Source.extend({
    pageSize: z.number().int().min(1).max(1000),
    /** Upper bound of v1 pages read, against an upstream that never stops saying has_more. */
    maxPages: z.number().int().min(1).max(1000),
  }),
  paging,
  sort: z.array(sortKey).min(1),
  /** Team listings are cached longer than the default (DESIGN: cache). */
  cacheTtlMs: z.number().int().min(0).optional(),
});

const detailMapping = z.strictObject({
  ...common,
  kind: z.literal('detail'),
  source: v1Source,
  timezone: timezoneSpec.optional(),
  /** How long a v1 reply for this method may be cached; absent = CACHE_TTL_MS. */
  cacheTtlMs: z.number().int().min(0).optional(),
});

const lookupMapping = z
  .strictObject({
    ...common,
    kind: z.literal('lookup'),
    source: v1Source.extend({
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

export const mappingSchema = z.discriminatedUnion('kind', [
  listMapping,
  teamMapping,
  detailMapping,
  lookupMapping,
  staticMapping,
]);

export type Mapping = z.infer<typeof mappingSchema>;
export type ListMapping = z.infer<typeof listMapping>;
export type TeamMapping = z.infer<typeof teamMapping>;
export type DetailMapping = z.infer<typeof detailMapping>;
export type LookupMapping = z.infer<typeof lookupMapping>;
export type LookupKey = z.infer<typeof lookupKey>;
export type StaticMapping = z.infer<typeof staticMapping>;
export type TimezoneSpec = z.infer<typeof timezoneSpec>;
export type SortKey = z.infer<typeof sortKey>;
