// The shape of a record file (mappings/records/<record>.yaml): one legacy record described once, its fields in
// legacy order with their v1 source, and the named views that pick which fields a method's reply carries.
// Pure data description (zod); it must never read files, and it does not resolve views (record-views.ts does).
import { z } from 'zod';

const v1FieldName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a v1 JSON field name');

/** Record and view names, as method files name them (`record: session`, `view: list`). */
export const recordName = z.string().regex(/^[a-z][a-z0-9_-]*$/, 'lower-case letters, digits, - and _ only');
export const viewName = recordName;

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

/** Separates the first and last field of a range in a view: `id .. email`. */
export const RANGE_MARK = ' .. ';

/** The legacy field name, exactly as the legacy reply spells it (spaces and quirks included). */
const legacyFieldName = z
  .string()
  .min(1)
  .refine((n) => !n.includes(RANGE_MARK.trim()), { message: 'a field name must not contain ".." (it marks a range in a view)' });

/** Everything said about one field except its name; a view may override any of it. */
const fieldSource = {
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
};

export const fieldSpec = z
  .strictObject({ name: legacyFieldName, ...fieldSource })
  .refine((f) => !(f.derive && f.from), { message: 'a field is either derived or read `from` one v1 field, not both' });

/**
 * A field as the record file states it, plus `recordGuess`: its record's own `guess`, copied onto every field
 * when the file is read (never written in a field line: the field schema is strict), so the field counts as a
 * guess in every view and method that carries it. Only `coverage` and `openapi` read guesses; replies do not.
 */
export type FieldSpec = z.infer<typeof fieldSpec> & { recordGuess?: string };

/** A view entry that names one field and changes what is said about it, for this view only. */
const fieldOverride = z.strictObject({ name: z.string().min(1), ...fieldSource });
export type FieldOverride = z.infer<typeof fieldOverride>;

/**
 * One view: `all` (every field, in record order) or a list whose entries are a field name (`email`), a range
 * of the record's order (`id .. text_phone`), or a field with overrides (`{ name: email, guess: "..." }`).
 */
const viewEntry = z.union([z.string().min(1), fieldOverride], {
  error: 'a view entry is a field name, a range `first .. last`, or `{ name, ... }` with overrides',
});
// A word is checked as a word and a list as a list, so a bad entry is reported at its own path.
const everyField = z.string().pipe(z.literal('all', { error: 'a view written as one word must be `all`' }));
const viewSpec = z.union([everyField, z.array(viewEntry).min(1)], {
  error: 'a view is `all` or a list of field names, ranges `first .. last` and `{ name, ... }` overrides',
});
export type ViewSpec = z.infer<typeof viewSpec>;
export type ViewEntry = Exclude<ViewSpec, 'all'>[number];

const recordFileShape = z.strictObject({
  /**
   * Where the whole record is a guess about the real service (e.g. v1 does not document it), say why here:
   * every field of the record then counts as a guess (shown by `coverage` and `openapi`), whatever its own line says.
   */
  guess: z.string().min(1).optional(),
  /** Default null policy of the record's fields. */
  nulls: nullPolicy.default('keep'),
  /** Every legacy field of the record, in legacy order. */
  fields: z.array(fieldSpec).min(1),
  /** What each method's reply carries: `list`, `detail`, ... */
  views: z
    .record(viewName, viewSpec)
    .refine((v) => Object.keys(v).length > 0, { message: 'a record needs at least one view' }),
});

type RecordFileShape = z.infer<typeof recordFileShape>;

/** A record file as written, its record-level `guess` (if any) laid onto every field as `recordGuess`. */
export const recordFileSchema = recordFileShape.transform((r): Omit<RecordFileShape, 'fields'> & { fields: FieldSpec[] } => {
  const { guess } = r;
  return guess === undefined ? r : { ...r, fields: r.fields.map((f): FieldSpec => ({ ...f, recordGuess: guess })) };
});

export type RecordFile = z.infer<typeof recordFileSchema>;
