// zod field types for v1 request bodies, whose errors read as "<field> <problem>" once the path is put in
// front (formatIssuePath): the v1 400 must name the field. Pure schema building: no state, no I/O.
import { z } from 'zod';
import { isDate, isTime } from './calendar.js';
import { SandboxError } from './errors.js';

const ENTITY_CHARACTERS = new Set(['&', '<', '>', '"', "'"]);

/**
 * Length of a value as the service stores it: `& < > " '` are stored as HTML entities, counted here as 5
 * characters each (v1 record rule 7), so "Smith & Sons" is 16 long, not 12.
 */
export function storedLength(value: string): number {
  let length = 0;
  for (const ch of value) length += ENTITY_CHARACTERS.has(ch) ? 5 : 1;
  return length;
}

const isMissing = (input: unknown): boolean => input === undefined || input === null;

/** An optional string of at most `max` stored characters; "" and null are stored as null. */
export function optionalText(max: number) {
  return z
    .string({ error: 'must be a string' })
    .refine((v) => storedLength(v) <= max, { error: `is too long (at most ${String(max)} characters as stored)` })
    .nullable()
    .optional()
    .transform((v) => (v === undefined || v === '' ? null : v));
}

/** A required, non-blank string of at most `max` stored characters. */
export function requiredText(max: number) {
  return z
    .string({ error: (iss) => (isMissing(iss.input) ? 'is required' : 'must be a string') })
    .refine((v) => v.trim() !== '', { error: 'is required' })
    .refine((v) => storedLength(v) <= max, { error: `is too long (at most ${String(max)} characters as stored)` });
}

/** An optional YYYY-MM-DD date; "" and null are stored as null. */
export function optionalDate() {
  return z
    .string({ error: 'must be a date YYYY-MM-DD' })
    .refine((v) => v === '' || isDate(v), { error: 'must be a date YYYY-MM-DD' })
    .nullable()
    .optional()
    .transform((v) => (v === undefined || v === '' ? null : v));
}

export function time() {
  return z
    .string({ error: (iss) => (isMissing(iss.input) ? 'is required' : 'must be a time HH:MM:SS') })
    .refine(isTime, { error: 'must be a time HH:MM:SS' });
}

/** An optional 0/1 switch, `fallback` when absent. */
export function optionalFlag(fallback: 0 | 1) {
  return z
    .union([z.literal(0), z.literal(1)], { error: 'must be 0 or 1' })
    .nullable()
    .optional()
    .transform((v) => v ?? fallback);
}

/** A required positive integer id. */
export function requiredId() {
  return z
    .number({ error: (iss) => (isMissing(iss.input) ? 'is required' : 'must be an integer') })
    .int({ error: 'must be an integer' })
    .positive({ error: 'must be a positive integer' });
}

/** An optional positive integer id; null when absent. */
export function optionalId() {
  return z
    .number({ error: 'must be an integer' })
    .int({ error: 'must be an integer' })
    .positive({ error: 'must be a positive integer' })
    .nullable()
    .optional()
    .transform((v) => v ?? null);
}

/** "availability[0].day" for the path ['availability', 0, 'day']. */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    out += typeof part === 'number' ? `[${String(part)}]` : `${out === '' ? '' : '.'}${String(part)}`;
  }
  return out === '' ? 'request body' : out;
}

/** Parses a body with the schema, or throws the v1 400 naming the first bad field (in schema order). */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const message = issue ? `${formatIssuePath(issue.path)} ${issue.message}` : 'request body is invalid';
  throw new SandboxError('invalid_request', message);
}
